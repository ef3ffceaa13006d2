package kerneltest

import (
	"errors"
	"testing"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestLedgerIsPerAsset: a transfer moves one asset only, and a member's
// account never goes below zero.
func TestLedgerIsPerAsset(t *testing.T) {
	t.Parallel()
	s := New()
	s.Scales["BTC"] = 8
	tx := s.Begin()
	defer tx.End()
	m := kernel.MemberAvailable("mem_1")
	s.Set(m, "USDT", money.MustParse("5", 6))
	if err := tx.Transfer(s.Clock, "t", "USDT", money.MustParse("2", 6), m, kernel.AccountRevenueFees); err != nil {
		t.Fatal(err)
	}
	if err := tx.Transfer(s.Clock, "t", "BTC", money.MustParse("1", 8), m, kernel.AccountRevenueFees); !errors.Is(err, ErrInsufficient) {
		t.Fatalf("BTC the member does not hold: %v", err)
	}
	for _, tt := range []struct{ account, asset, want string }{
		{m, "USDT", "3.000000"}, {kernel.AccountRevenueFees, "USDT", "2.000000"}, {m, "BTC", "0.00000000"},
	} {
		if got := s.Balance(tt.account, tt.asset).String(); got != tt.want {
			t.Errorf("%s %s = %s, want %s", tt.account, tt.asset, got, tt.want)
		}
	}
	if got, want := tx.NewUUID()+" "+tx.NewUUID(), "u1 u2"; got != want {
		t.Errorf("ids %q, want %q", got, want)
	}
}
