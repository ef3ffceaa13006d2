package ledger

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestHoldViolations holds the check of the locked accounts against the
// live objects' holds to a table: equal sums pass, a hold without a live
// object, a live object without its hold, sums that differ and a hold at a
// foreign scale are each one sentence; accounts that hold nothing by rule
// (available, cards) are not checked.
func TestHoldViolations(t *testing.T) {
	t.Parallel()
	locked := kernel.MemberLocked("m1")
	usdt := func(v string) money.Amount { return money.MustParse(v, 6) }
	for _, tc := range []struct {
		name     string
		balances map[string]string
		holds    []Hold
		want     []string
	}{
		{name: "equal", balances: map[string]string{locked: "5", kernel.AccountMerchantPrepaidLocked: "2"},
			holds: []Hold{{"qrp_1 (processing)", locked, "USDT", usdt("3")}, {"rmt_1 (held)", locked, "USDT", usdt("2")},
				{"ctp_1 (processing)", kernel.AccountMerchantPrepaidLocked, "USDT", usdt("2")}}},
		{name: "nothing anywhere"},
		{name: "zero hold ignored", holds: []Hold{{"qrp_1 (processing)", locked, "USDT", usdt("0")}}},
		{name: "hold without object", balances: map[string]string{locked: "5"},
			want: []string{"member:m1:locked holds 5.000000 USDT but no live object holds anything there (a hold without a live order)"}},
		{name: "object without hold", holds: []Hold{{"qrp_1 (processing)", locked, "USDT", usdt("3")}},
			want: []string{"member:m1:locked holds 0.000000 USDT but its live objects hold 3.000000 (qrp_1 (processing))"}},
		{name: "sums differ", balances: map[string]string{locked: "5"},
			holds: []Hold{{"qrp_1 (processing)", locked, "USDT", usdt("3")}, {"rmt_1 (held)", locked, "USDT", usdt("1")}},
			want:  []string{"member:m1:locked holds 5.000000 USDT but its live objects hold 4.000000 (qrp_1 (processing), rmt_1 (held))"}},
		{name: "foreign scale", balances: map[string]string{locked: "3"},
			holds: []Hold{{"qrp_1 (processing)", locked, "USDT", usdt("3")}, {"rmt_1 (held)", locked, "USDT", money.MustParse("1", 2)}},
			want:  []string{"rmt_1 (held): hold of 1.00 USDT at a foreign scale (money: scale mismatch or out of range: 6 and 2)"}},
		{name: "other accounts unchecked", balances: map[string]string{kernel.MemberAvailable("m1"): "5", "card:c1": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k := new(kernel.Kernel)
			l := New(k, func(string) (int, bool) { return 6, true })
			tx := k.BeginSetup()
			defer tx.End()
			for acct, v := range tc.balances {
				l.balances.Put(tx, balanceKey(acct, "USDT"), usdt(v))
			}
			got := l.HoldViolations(tx, tc.holds)
			sort.Strings(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("HoldViolations (-want +got):\n%s", diff)
			}
		})
	}
}
