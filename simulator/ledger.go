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
func UpstreamAccount(line string) string { return kernel.UpstreamAccount(line) }

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
// lost unless an entry says so. Both are kernel tables: a refused step
// undoes its postings with the rest of its writes.
type books struct {
	balances *kernel.Table[string, money.Amount] // balanceKey(account, asset) -> balance
	entries  *kernel.Table[int64, entryRow]      // by seq
	scales   func(asset string) (int, bool)
}

// entryRow is an Entry as the entries table holds it.
type entryRow struct {
	Seq      int
	At       time.Time
	Memo     string
	Postings kernel.List[Posting]
}

func (e entryRow) entry() Entry {
	return Entry{Seq: e.Seq, At: e.At, Memo: e.Memo, Postings: e.Postings.Slice()}
}

// balanceKey is the key of an account's balance in asset.
func balanceKey(account, asset string) string { return account + "\x00" + asset }

func newLedger(k *kernel.Kernel, scales func(string) (int, bool)) *books {
	return &books{
		balances: kernel.NewTable[string, money.Amount](k, "ledger.balances"),
		entries:  kernel.NewTable[int64, entryRow](k, "ledger.entries", kernel.Ordered()),
		scales:   scales,
	}
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

// insufficientFunds is the error Post answers: an *InsufficientFundsError
// (errors.As) that is also kernel.ErrInsufficientFunds (errors.Is), as
// the product lines test it.
type insufficientFunds struct{ *InsufficientFundsError }

func (e insufficientFunds) Unwrap() []error {
	return []error{e.InsufficientFundsError, kernel.ErrInsufficientFunds}
}

// Balance returns the balance of account in asset (zero at the asset's scale).
func (l *books) Balance(tx *kernel.Tx, account, asset string) money.Amount {
	if b, ok := l.balances.Get(tx, balanceKey(account, asset)); ok {
		return b
	}
	sc, _ := l.scales(asset)
	return money.Zero(sc)
}

// Post applies a balanced entry atomically: either every posting is applied or
// none. It refuses an unbalanced entry, an unknown asset, a scale mismatch, and
// any posting that would take a non-negative account below zero.
func (l *books) Post(tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error {
	postings := make([]Posting, len(legs))
	for i, p := range legs {
		postings[i] = Posting(p)
	}
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
			cur = l.Balance(tx, p.Account, p.Asset)
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
				return insufficientFunds{&InsufficientFundsError{Account: acct, Asset: asset}}
			}
		}
	}
	for acct, m := range next {
		for asset, b := range m {
			l.balances.Put(tx, balanceKey(acct, asset), b)
		}
	}
	seq := l.entries.Len(tx) + 1
	l.entries.Put(tx, int64(seq), entryRow{Seq: seq, At: at, Memo: memo, Postings: kernel.ListOf(postings...)})
	return nil
}

// Check verifies the books: every asset sums to zero over all accounts and no
// non-negative account is below zero. It returns nil when the books balance.
func (l *books) Check(tx *kernel.Tx) error {
	sums := map[string]money.Amount{}
	for key, b := range l.balances.All(tx) {
		acct, asset, _ := strings.Cut(key, "\x00")
		{
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
func (l *books) Entries(tx *kernel.Tx) []Entry {
	var out []Entry
	for _, e := range l.entries.All(tx) {
		out = append(out, e.entry())
	}
	return out
}

// Accounts returns the balances of every account that ever moved, by
// account then asset.
func (l *books) Accounts(tx *kernel.Tx) map[string]map[string]money.Amount {
	out := map[string]map[string]money.Amount{}
	for key, b := range l.balances.All(tx) {
		acct, asset, _ := strings.Cut(key, "\x00")
		if out[acct] == nil {
			out[acct] = map[string]money.Amount{}
		}
		out[acct][asset] = b
	}
	return out
}

// legacyBooks is the ledger as the state image of recordings of versions 1
// and 2 held it.
type legacyBooks struct {
	Balances map[string]map[string]money.Amount
	Entries  []Entry
}

func (l *books) legacy(tx *kernel.Tx) *legacyBooks {
	return &legacyBooks{Balances: l.Accounts(tx), Entries: l.Entries(tx)}
}
