package devtools

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// fakeLedger answers balances from a map of account, then asset; an
// account it does not hold is zero at scale 2.
type fakeLedger map[string]map[string]string

func (f fakeLedger) Balance(_ *kernel.Tx, account, asset string) money.Amount {
	if v, ok := f[account][asset]; ok {
		return amt(v)
	}
	return money.Zero(2)
}

// TestAccounts: the merchant's prepaid and every member's balances, asset
// by asset in the catalogue's order, members in their order; no asset or
// no member reads as nil, as the snapshot has always shown them.
func TestAccounts(t *testing.T) {
	t.Parallel()
	books := fakeLedger{
		kernel.AccountMerchantPrepaid:       {"USDT": "100"},
		kernel.AccountMerchantPrepaidLocked: {"USDC": "1.50"},
		kernel.MemberAvailable("mem_1"):     {"USDT": "7"},
		kernel.MemberLocked("mem_1"):        {"USDT": "3"},
	}
	assets := AssetCodes([]*assetcat.Asset{{Code: "USDT"}, {Code: "USDC"}})
	if diff := cmp.Diff([]string{"USDT", "USDC"}, assets); diff != "" {
		t.Errorf("AssetCodes (-want +got):\n%s", diff)
	}
	wantPrepaid := []Balance{{Asset: "USDT", Available: "100.00", Locked: "0.00"}, {Asset: "USDC", Available: "0.00", Locked: "1.50"}}
	if diff := cmp.Diff(wantPrepaid, Prepaid(nil, books, assets)); diff != "" {
		t.Errorf("Prepaid (-want +got):\n%s", diff)
	}
	list := []api.Member{
		{ID: "mem_1", ExternalID: "m-1", KYCLevel: 2, Status: "active", CreatedAt: t0},
		{ID: "mem_2", ExternalID: "m-2", Status: "frozen", PlatformDirect: true, CreatedAt: t0},
	}
	want := []Member{
		{ID: "mem_1", ExternalMemberID: "m-1", KYCLevel: 2, Status: "active", CreatedAt: t0,
			Balances: []Balance{{Asset: "USDT", Available: "7.00", Locked: "3.00"}, {Asset: "USDC", Available: "0.00", Locked: "0.00"}}},
		{ID: "mem_2", ExternalMemberID: "m-2", Status: "frozen", PlatformDirect: true, CreatedAt: t0,
			Balances: []Balance{{Asset: "USDT", Available: "0.00", Locked: "0.00"}, {Asset: "USDC", Available: "0.00", Locked: "0.00"}}},
	}
	if diff := cmp.Diff(want, Members(nil, books, list, assets)); diff != "" {
		t.Errorf("Members (-want +got):\n%s", diff)
	}
	if p, ms, b := Prepaid(nil, books, nil), Members(nil, books, nil, assets), Members(nil, books, list[:1], nil)[0].Balances; p != nil || ms != nil || b != nil {
		t.Errorf("without assets or members: prepaid %#v, members %#v, a member's balances %#v; want nil", p, ms, b)
	}
}

// TestLinesSource: an unwired line lists nothing (nil), a wired one reads
// through its views, and a member id names its external id ("" for an
// unknown one).
func TestLinesSource(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	var mem members.Line
	mem.Init(svc.Kernel())
	m, err := mem.Create(tx, members.Seed{ExternalID: "m-1"})
	if err != nil {
		t.Fatal(err)
	}
	l := Lines{Deposit: deposits.New(svc.Kernel()), Hooks: hookline.New(svc.Kernel(), nil, func(tr *http.Transport) http.RoundTripper { return tr }), Members: &mem}
	if l.QROrders(tx) != nil || l.CardApplications(tx) != nil || l.Cards(tx) != nil || l.CardTopUps(tx) != nil || l.Remittances(tx) != nil {
		t.Error("an unwired line listed something")
	}
	if got := len(l.Deposits(tx)) + len(l.Events(tx)); got != 0 {
		t.Errorf("empty lines listed %d items", got)
	}
	if got := l.ExternalID(tx, m.ID); got != "m-1" {
		t.Errorf("ExternalID(%s) = %q, want m-1", m.ID, got)
	}
	if got := l.ExternalID(tx, "mem_none"); got != "" {
		t.Errorf("ExternalID(mem_none) = %q, want empty", got)
	}
	var _ Source = l
}
