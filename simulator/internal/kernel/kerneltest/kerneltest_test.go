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
		if got := s.Read(tt.account, tt.asset).String(); got != tt.want {
			t.Errorf("%s %s = %s, want %s", tt.account, tt.asset, got, tt.want)
		}
	}
	if got, want := tx.NewUUID()+" "+tx.NewUUID(), "u1 u2"; got != want {
		t.Errorf("ids %q, want %q", got, want)
	}
}

// TestTransferRefusesNegativeAmounts: Tx.Transfer never moves money
// backwards through a negative amount, and a refused entry (a negative
// amount, or a leg below zero) changes no balance.
func TestTransferRefusesNegativeAmounts(t *testing.T) {
	t.Parallel()
	s := New()
	tx := s.Begin()
	defer tx.End()
	m := kernel.MemberAvailable("m1")
	s.Set(m, "USDT", money.MustParse("1", 6))
	if err := tx.Transfer(s.Clock, "reverse", "USDT", money.MustParse("-1", 6), kernel.AccountWorld, m); err == nil {
		t.Fatal("a negative transfer was accepted")
	}
	err := tx.Post(s.Clock, "two legs", kernel.Posting{Account: m, Asset: "USDT", Amount: money.MustParse("-2", 6)},
		kernel.Posting{Account: kernel.AccountWorld, Asset: "USDT", Amount: money.MustParse("2", 6)})
	if !errors.Is(err, kernel.ErrInsufficientFunds) {
		t.Fatalf("an entry below zero: %v, want ErrInsufficientFunds", err)
	}
	if got := s.Read(m, "USDT").String() + " " + s.Read(kernel.AccountWorld, "USDT").String(); got != "1.000000 0.000000" {
		t.Errorf("balances after refusals: %s", got)
	}
}

// TestMerchantConfigurationThroughTheTx: the merchant's custody model,
// environment, allowlist and webhook secret, and the expiry windows, are
// what the services say, read through the transaction.
func TestMerchantConfigurationThroughTheTx(t *testing.T) {
	t.Parallel()
	s := New()
	s.Scales["BTC"] = 8
	s.Refused["BTC"] = true
	tx := s.Begin()
	defer tx.End()
	if tx.Custody() != kernel.PlatformHosted || tx.MerchantHosted() || tx.Environment() != "sandbox" || tx.WebhookSecret() != "whsec_test" {
		t.Errorf("defaults: %s %v %s %s", tx.Custody(), tx.MerchantHosted(), tx.Environment(), tx.WebhookSecret())
	}
	s.Model, s.Env = kernel.MerchantHosted, "production"
	if !tx.MerchantHosted() || tx.Environment() != "production" {
		t.Errorf("set: %s %s", tx.Custody(), tx.Environment())
	}
	for code, want := range map[string]bool{"USDT": true, "BTC": false, "XRP": false} {
		if got := tx.AssetAllowed(code); got != want {
			t.Errorf("AssetAllowed(%s) = %v, want %v", code, got, want)
		}
	}
	tx.ExpireAt("line/window", "k1", s.Clock)
	if len(s.Expiries) != 1 || s.Expiries[0] != "line/window k1" {
		t.Errorf("Expiries = %q", s.Expiries)
	}
}
