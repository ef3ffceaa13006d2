package simulator

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
	"github.com/mwallet/mwallet-go/simulator/internal/services"
)

// TestLedgerPostRefusals checks the ledger's own guards, independently of
// the handlers' balance checks: an entry that would take a member, merchant
// prepaid or card account below zero, an unbalanced entry, an unknown asset
// or a scale mismatch is refused as a whole, and nothing of it is applied;
// contra accounts (world, upstream, revenue) may go negative.
func TestLedgerPostRefusals(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	usdt := func(s string) money.Amount { return money.MustParse(s, 6) }
	scales := func(a string) (int, bool) {
		if a == "USDT" {
			return 6, true
		}
		return 0, false
	}
	const mem = "m1"
	tests := []struct {
		name     string
		postings []Posting
		wantErr  bool
		wantNeg  string // account named by *InsufficientFundsError
	}{
		{"member available below zero", []Posting{
			{MemberAvailable(mem), "USDT", usdt("-100.000001")}, {AccountWorld, "USDT", usdt("100.000001")}}, true, MemberAvailable(mem)},
		{"member locked below zero", []Posting{
			{MemberLocked(mem), "USDT", usdt("-0.000001")}, {MemberAvailable(mem), "USDT", usdt("0.000001")}}, true, MemberLocked(mem)},
		{"merchant prepaid below zero", []Posting{
			{AccountMerchantPrepaid, "USDT", usdt("-50.000001")}, {AccountWorld, "USDT", usdt("50.000001")}}, true, AccountMerchantPrepaid},
		{"merchant prepaid locked below zero", []Posting{
			{AccountMerchantPrepaidLocked, "USDT", usdt("-1")}, {AccountMerchantPrepaid, "USDT", usdt("1")}}, true, AccountMerchantPrepaidLocked},
		{"card below zero", []Posting{
			{CardAccount("crd_1"), "USDT", usdt("-1")}, {MemberAvailable(mem), "USDT", usdt("1")}}, true, CardAccount("crd_1")},
		{"one posting fine, the other negative", []Posting{
			{MemberAvailable(mem), "USDT", usdt("-10")}, {AccountWorld, "USDT", usdt("10")},
			{AccountMerchantPrepaid, "USDT", usdt("-60")}, {AccountWorld, "USDT", usdt("60")}}, true, AccountMerchantPrepaid},
		{"unbalanced", []Posting{
			{MemberAvailable(mem), "USDT", usdt("-1")}, {AccountWorld, "USDT", usdt("0.999999")}}, true, ""},
		{"unknown asset", []Posting{
			{MemberAvailable(mem), "XYZ", money.MustParse("-1", 6)}, {AccountWorld, "XYZ", money.MustParse("1", 6)}}, true, ""},
		{"scale mismatch", []Posting{
			{MemberAvailable(mem), "USDT", money.MustParse("-1", 2)}, {AccountWorld, "USDT", money.MustParse("1", 2)}}, true, ""},
		{"whole balance out", []Posting{
			{MemberAvailable(mem), "USDT", usdt("-100")}, {UpstreamAccount("qrpay"), "USDT", usdt("100")}}, false, ""},
		{"contra accounts may go negative", []Posting{
			{AccountWorld, "USDT", usdt("-5")}, {UpstreamAccount("qrpay"), "USDT", usdt("-5")}, {AccountRevenueFees, "USDT", usdt("10")}}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := new(kernel.Kernel)
			l := ledger.New(k, scales)
			tx := k.BeginSetup()
			defer tx.End()
			if err := seed(l, tx, at, usdt("100"), MemberAvailable(mem)); err != nil {
				t.Fatalf("seed member: %v", err)
			}
			if err := seed(l, tx, at, usdt("50"), AccountMerchantPrepaid); err != nil {
				t.Fatalf("seed prepaid: %v", err)
			}
			accounts := []string{MemberAvailable(mem), MemberLocked(mem), AccountMerchantPrepaid, AccountMerchantPrepaidLocked,
				CardAccount("crd_1"), AccountWorld, UpstreamAccount("qrpay"), AccountRevenueFees}
			snapshot := func() map[string]string {
				out := map[string]string{}
				for _, a := range accounts {
					out[a] = l.Balance(tx, a, "USDT").String()
				}
				return out
			}
			before, entries := snapshot(), len(l.Entries(tx))

			legs := make([]kernel.Posting, len(tt.postings))
			for i, p := range tt.postings {
				legs[i] = kernel.Posting(p)
			}
			err := post(l, tx, at, tt.name, legs...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Post error = %v, want error %v", err, tt.wantErr)
			}
			var ife *InsufficientFundsError
			if errors.As(err, &ife) != (tt.wantNeg != "") || (ife != nil && ife.Account != tt.wantNeg) {
				t.Errorf("Post error = %v, want an InsufficientFundsError on %q", err, tt.wantNeg)
			}
			if tt.wantErr {
				if diff := cmp.Diff(before, snapshot()); diff != "" {
					t.Errorf("a refused entry changed balances (-before +after):\n%s", diff)
				}
				if n := len(l.Entries(tx)); n != entries {
					t.Errorf("a refused entry was journaled: %d entries, want %d", n, entries)
				}
			} else if n := len(l.Entries(tx)); n != entries+1 {
				t.Errorf("%d entries after an accepted post, want %d", n, entries+1)
			}
			if err := l.Check(tx); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// TestAccountNamesAreTheKernels: the public account names and the
// kernel's, which the product lines post to, are the same accounts.
func TestAccountNamesAreTheKernels(t *testing.T) {
	t.Parallel()
	for _, tt := range [][2]string{
		{AccountMerchantPrepaid, kernel.AccountMerchantPrepaid},
		{AccountMerchantPrepaidLocked, kernel.AccountMerchantPrepaidLocked},
		{AccountMerchantCustody, kernel.AccountMerchantCustody},
		{AccountRevenueFees, kernel.AccountRevenueFees},
		{AccountWorld, kernel.AccountWorld},
		{MemberAvailable("mem_x"), kernel.MemberAvailable("mem_x")},
		{MemberLocked("mem_x"), kernel.MemberLocked("mem_x")},
	} {
		if tt[0] != tt[1] {
			t.Errorf("%q != kernel's %q", tt[0], tt[1])
		}
	}
}

// post posts an entry as the kernel's services do (internal/services),
// with the public error of a short posting (shortFunds).
func post(l *ledger.Books, tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error {
	return (&services.Services{Books: l, Short: shortFunds}).Post(tx, at, memo, legs...)
}

// seed posts amt of USDT from the world to account.
func seed(l *ledger.Books, tx *kernel.Tx, at time.Time, amt money.Amount, account string) error {
	return post(l, tx, at, "seed", kernel.Posting{Account: AccountWorld, Asset: "USDT", Amount: amt.Neg()},
		kernel.Posting{Account: account, Asset: "USDT", Amount: amt})
}
