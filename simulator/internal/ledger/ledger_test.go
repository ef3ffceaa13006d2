package ledger

import (
	"testing"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestLedgerCheckDetects checks that Check reports books that do not
// balance and a non-negative account below zero (states Post never
// produces, forced here directly).
func TestLedgerCheckDetects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		balances map[string]string
		wantErr  bool
	}{
		{"balanced", map[string]string{kernel.MemberAvailable("m1"): "5", kernel.AccountWorld: "-5"}, false},
		{"money created", map[string]string{kernel.MemberAvailable("m1"): "5", kernel.AccountWorld: "-4.999999"}, true},
		{"member negative", map[string]string{kernel.MemberAvailable("m1"): "-5", kernel.AccountWorld: "5"}, true},
		{"card negative", map[string]string{"card:c": "-1", kernel.AccountRevenueFees: "1"}, true},
		{"contra negative", map[string]string{kernel.UpstreamAccount("x"): "-1", kernel.AccountRevenueFees: "1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := new(kernel.Kernel)
			l := New(k, func(string) (int, bool) { return 6, true })
			tx := k.BeginSetup()
			defer tx.End()
			for acct, v := range tt.balances {
				l.balances.Put(tx, balanceKey(acct, "USDT"), money.MustParse(v, 6))
			}
			if err := l.Check(tx); (err != nil) != tt.wantErr {
				t.Errorf("Check = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}
