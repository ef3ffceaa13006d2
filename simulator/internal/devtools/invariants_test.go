package devtools

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
)

// TestViolations runs the invariants over empty lines and books that hold
// money: a locked balance no live object holds and a balance on a card
// that does not exist are each one sentence, sorted; money elsewhere is
// no violation.
func TestViolations(t *testing.T) {
	t.Parallel()
	usdt := func(v string) money.Amount { return money.MustParse(v, 6) }
	for _, tc := range []struct {
		name     string
		balances map[string]string
		want     []string
	}{
		{name: "nothing anywhere"},
		{name: "available money", balances: map[string]string{kernel.MemberAvailable("m1"): "5", kernel.AccountMerchantPrepaid: "1"}},
		{name: "a hold without a live object and a card that does not exist",
			balances: map[string]string{kernel.MemberLocked("m1"): "2", "card:crd_x": "1"},
			want: []string{
				"card:crd_x holds 1.000000 USDT but no such card exists",
				"member:m1:locked holds 2.000000 USDT but no live object holds anything there (a hold without a live order)",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := new(kernel.Kernel)
			tx := k.BeginSetup()
			defer tx.End()
			l := Lines{QR: qrpay.New(k, tx, nil), Card: cardline.New(k, tx, nil, []byte("secret"), 6), Remit: remittances.New(k, nil)}
			books := ledger.New(k, func(string) (int, bool) { return 6, true })
			for acct, v := range tc.balances {
				legs := []kernel.Posting{{Account: "world", Asset: "USDT", Amount: usdt("-" + v)}, {Account: acct, Asset: "USDT", Amount: usdt(v)}}
				if err := books.Post(tx, t0, "seed", legs...); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, Violations(tx, l, books, k)); diff != "" {
				t.Errorf("Violations (-want +got):\n%s", diff)
			}
		})
	}
}
