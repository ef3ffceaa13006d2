package devtools

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// fakeMembers finds a member by any id it is listed under.
type fakeMembers map[string]*api.Member

func (f fakeMembers) ByAny(_ *kernel.Tx, id string) *api.Member { return f[id] }

// fakeCatalogue is a catalogue of USDT (scale 2) and BTC (scale 8).
type fakeCatalogue struct{}

func (fakeCatalogue) All() []*assetcat.Asset {
	return []*assetcat.Asset{{Code: "USDT", LedgerScale: 2}, {Code: "BTC", LedgerScale: 8}}
}

func (fakeCatalogue) Scale(code string) (int, bool) {
	switch code {
	case "USDT":
		return 2, true
	case "BTC":
		return 8, true
	}
	return 0, false
}

// fakeMerchant is the merchant mer_sim.
type fakeMerchant struct{}

func (fakeMerchant) ID(*kernel.Tx) string { return "mer_sim" }

// TestAccounts_Member: a member found by any of its ids, its balances
// (the asset in any case) and its document; zero balances at the asset's
// scale and no info for a member there is none of.
func TestAccounts_Member(t *testing.T) {
	t.Parallel()
	m := &api.Member{ID: "mem_1", ExternalID: "m-1", KYCLevel: 1, Status: "active"}
	a := Accounts{
		Books:     fakeLedger{kernel.MemberAvailable("mem_1"): {"USDT": "7"}, kernel.MemberLocked("mem_1"): {"USDT": "3"}},
		Catalogue: fakeCatalogue{},
		Members:   fakeMembers{"mem_1": m, "m-1": m},
		Merchant:  fakeMerchant{},
	}
	for _, tc := range []struct {
		name, id, asset string
		info            MemberInfo
		found           bool
		balance         [2]string
	}{
		{name: "by mem_ id", id: "mem_1", asset: "usdt", info: MemberInfo{ID: "mem_1", ExternalID: "m-1", KYCLevel: 1, Status: "active"}, found: true, balance: [2]string{"7.00", "3.00"}},
		{name: "by external id", id: "m-1", asset: "USDT", info: MemberInfo{ID: "mem_1", ExternalID: "m-1", KYCLevel: 1, Status: "active"}, found: true, balance: [2]string{"7.00", "3.00"}},
		{name: "unknown", id: "m-2", asset: "btc", balance: [2]string{"0.00000000", "0.00000000"}},
	} {
		info, found := a.Info(nil, tc.id)
		if diff := cmp.Diff(tc.info, info); diff != "" || found != tc.found {
			t.Errorf("%s: Info found %v, want %v (-want +got):\n%s", tc.name, found, tc.found, diff)
		}
		b := a.Balance(nil, tc.id, tc.asset)
		if got := [2]string{b[0].String(), b[1].String()}; got != tc.balance {
			t.Errorf("%s: Balance %v, want %v", tc.name, got, tc.balance)
		}
	}
	doc := a.Document(nil, m)
	if doc["merchant_id"] != "mer_sim" || !cmp.Equal(doc["balances"], map[string]any{
		"USDT": map[string]string{"available": "7.00", "locked": "3.00"},
		"BTC":  map[string]string{"available": "0.00", "locked": "0.00"},
	}) {
		t.Errorf("Document %v", doc)
	}
}
