package simulator

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Account names of the ledger. Member and card accounts carry the id.
//
//	member:<mem_id>:available   spendable balance of a member
//	member:<mem_id>:locked      held for an order whose outcome is not final
//	merchant:prepaid            the merchant's prepaid account (merchant_hosted funding)
//	merchant:prepaid_locked     prepaid held for an order in flight
//	merchant:custody            merchant custody declaration (contra of deposits)
//	card:<crd_id>               money on a card
//	upstream:<line>             money released to an upstream (acquirer, bank, issuer)
//	revenue:fees                fees earned by the platform
//	world                       outside money (fixture seeding, operator top-ups)
//
// Accounts whose names start with "member:", "merchant:prepaid" or "card:"
// may never go below zero; the others are contra accounts and may.
const (
	// The kernel names the same accounts for the product lines
	// (TestAccountNamesAreTheKernels).

	AccountMerchantPrepaid       = "merchant:prepaid"
	AccountMerchantPrepaidLocked = "merchant:prepaid_locked"
	AccountMerchantCustody       = "merchant:custody"
	AccountRevenueFees           = "revenue:fees"
	AccountWorld                 = "world"
)

// MemberAvailable names a member's available balance account.
func MemberAvailable(memberID string) string { return kernel.MemberAvailable(memberID) }

// MemberLocked names a member's locked balance account.
func MemberLocked(memberID string) string { return kernel.MemberLocked(memberID) }

// CardAccount names the balance account of a card.
func CardAccount(cardID string) string { return "card:" + cardID }

// UpstreamAccount names the settlement account of an upstream line.
func UpstreamAccount(line string) string { return "upstream:" + line }

func nonNegative(account string) bool {
	return strings.HasPrefix(account, "member:") || strings.HasPrefix(account, "merchant:prepaid") || strings.HasPrefix(account, "card:")
}

// Posting is one line of a journal entry: a signed amount on an account.
type Posting struct {
	Account string       `json:"account"`
	Asset   string       `json:"asset"`
	Amount  money.Amount `json:"amount"`
}

// Entry is a balanced journal entry: for every asset its postings sum to zero.
type Entry struct {
	Seq      int       `json:"seq"`
	At       time.Time `json:"at"`
	Memo     string    `json:"memo"`
	Postings []Posting `json:"postings"`
}

// books is the simulator's double-entry ledger. Every money movement is one
// balanced Entry; balances are derived from entries, so nothing is created or
// lost unless an entry says so.
type books struct {
	balances map[string]map[string]money.Amount // account -> asset -> balance
	entries  []Entry
	scales   func(asset string) (int, bool)
}

func newLedger(scales func(string) (int, bool)) *books {
	return &books{balances: map[string]map[string]money.Amount{}, scales: scales}
}

// InsufficientFundsError reports a posting that would make a non-negative
// account negative. Nothing of the entry was applied.
type InsufficientFundsError struct {
	Account string
	Asset   string
}

// Error names the account and asset that would have gone negative.
func (e *InsufficientFundsError) Error() string {
	return fmt.Sprintf("ledger: %s would go negative in %s", e.Account, e.Asset)
}

// Balance returns the balance of account in asset (zero at the asset's scale).
func (l *books) Balance(account, asset string) money.Amount {
	if b, ok := l.balances[account][asset]; ok {
		return b
	}
	sc, _ := l.scales(asset)
	return money.Zero(sc)
}

// Post applies a balanced entry atomically: either every posting is applied or
// none. It refuses an unbalanced entry, an unknown asset, a scale mismatch, and
// any posting that would take a non-negative account below zero.
func (l *books) Post(at time.Time, memo string, postings ...Posting) error {
	sums := map[string]money.Amount{}
	next := map[string]map[string]money.Amount{}
	for _, p := range postings {
		sc, ok := l.scales(p.Asset)
		if !ok {
			return fmt.Errorf("ledger: unknown asset %q", p.Asset)
		}
		if p.Amount.Scale() != sc {
			return fmt.Errorf("ledger: %s amount %s has scale %d, asset scale is %d", p.Asset, p.Amount, p.Amount.Scale(), sc)
		}
		s, ok := sums[p.Asset]
		if !ok {
			s = money.Zero(sc)
		}
		var err error
		if sums[p.Asset], err = s.Add(p.Amount); err != nil {
			return err
		}
		if next[p.Account] == nil {
			next[p.Account] = map[string]money.Amount{}
		}
		cur, ok := next[p.Account][p.Asset]
		if !ok {
			cur = l.Balance(p.Account, p.Asset)
		}
		if next[p.Account][p.Asset], err = cur.Add(p.Amount); err != nil {
			return err
		}
	}
	for asset, s := range sums {
		if !s.IsZero() {
			return fmt.Errorf("ledger: entry %q does not balance in %s (off by %s)", memo, asset, s)
		}
	}
	for acct, m := range next {
		for asset, b := range m {
			if b.IsNegative() && nonNegative(acct) {
				return &InsufficientFundsError{Account: acct, Asset: asset}
			}
		}
	}
	for acct, m := range next {
		if l.balances[acct] == nil {
			l.balances[acct] = map[string]money.Amount{}
		}
		for asset, b := range m {
			l.balances[acct][asset] = b
		}
	}
	l.entries = append(l.entries, Entry{Seq: len(l.entries) + 1, At: at, Memo: memo, Postings: postings})
	return nil
}

// Transfer posts one amount from one account to another.
func (l *books) Transfer(at time.Time, memo, asset string, amount money.Amount, from, to string) error {
	if amount.IsNegative() {
		return fmt.Errorf("ledger: negative transfer %s", amount)
	}
	return l.Post(at, memo,
		Posting{Account: from, Asset: asset, Amount: amount.Neg()},
		Posting{Account: to, Asset: asset, Amount: amount},
	)
}

// Check verifies the books: every asset sums to zero over all accounts and no
// non-negative account is below zero. It returns nil when the books balance.
func (l *books) Check() error {
	sums := map[string]money.Amount{}
	for acct, m := range l.balances {
		for asset, b := range m {
			if b.IsNegative() && nonNegative(acct) {
				return fmt.Errorf("ledger: %s is negative in %s: %s", acct, asset, b)
			}
			s, ok := sums[asset]
			if !ok {
				s = money.Zero(b.Scale())
			}
			var err error
			if sums[asset], err = s.Add(b); err != nil {
				return err
			}
		}
	}
	var bad []string
	for asset, s := range sums {
		if !s.IsZero() {
			bad = append(bad, asset+" off by "+s.String())
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		return fmt.Errorf("ledger: books do not balance: %s", strings.Join(bad, "; "))
	}
	return nil
}

// Entries returns a copy of the journal.
func (l *books) Entries() []Entry { return append([]Entry(nil), l.entries...) }
