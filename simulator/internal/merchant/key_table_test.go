package merchant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// storedKey is a key as a caller keeps it: its own row type.
type storedKey struct{ ID, Secret string }

// TestTable: a Table reads and writes its rows through the two
// conversions, and the Keyring works over it.
func TestTable(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	rows := kernel.NewTable[string, storedKey](svc.Kernel(), "test.keys")
	keys := Table[storedKey]{T: rows,
		Key: func(r storedKey) gateway.Key { return gateway.Key{ClientID: r.ID, APIKey: r.Secret} },
		Row: func(k gateway.Key) storedKey { return storedKey{ID: k.ClientID, Secret: k.APIKey} }}
	tx := svc.Begin()
	defer tx.End()
	tests := []struct {
		name    string
		id      string
		put     *gateway.Key
		wantHas bool
		want    gateway.Key
	}{
		{name: "absent", id: "c1"},
		{name: "put then read", id: "c2", put: &gateway.Key{ClientID: "c2", APIKey: "ak", SigningKey: "dropped"},
			wantHas: true, want: gateway.Key{ClientID: "c2", APIKey: "ak"}},
	}
	for _, tc := range tests {
		if tc.put != nil {
			keys.Put(tx, tc.id, *tc.put)
		}
		got, ok := keys.Get(tx, tc.id)
		if ok != tc.wantHas || keys.Has(tx, tc.id) != tc.wantHas {
			t.Errorf("%s: Get ok = %v, Has = %v, want %v", tc.name, ok, keys.Has(tx, tc.id), tc.wantHas)
		}
		if diff := cmp.Diff(viewOfKey(tc.want), viewOfKey(got)); diff != "" {
			t.Errorf("%s: Get (-want +got):\n%s", tc.name, diff)
		}
	}
	r := Keyring{Keys: keys, Merchant: New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", PlatformHosted, StatusActive, Sandbox)}
	if err := r.Set(tx, "c2", KeySettingsIn{}); err != nil {
		t.Fatalf("Set over the table: %v", err)
	}
	if row, _ := rows.Get(tx, "c2"); row != (storedKey{ID: "c2", Secret: "ak"}) {
		t.Errorf("row after Set = %+v", row)
	}
}
