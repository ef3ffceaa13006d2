// Package ledger is the simulator's double-entry ledger: the kernel's
// ledger service (kernel.Services' Post and Balance), which every product
// line reaches through its transaction (Tx.Post, Tx.Transfer, Tx.Balance).
//
// Every money movement is one balanced entry; balances are derived from
// entries, so nothing is created or lost unless an entry says so. Balances
// and entries are kernel tables: a refused step undoes its postings with
// the rest of its writes.
package ledger

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// NonNegative reports whether account may never go below zero: a member's
// accounts, the merchant's prepaid accounts and cards. The others are
// contra accounts (world, upstream, revenue, custody) and may.
func NonNegative(account string) bool {
	return strings.HasPrefix(account, "member:") || strings.HasPrefix(account, kernel.AccountMerchantPrepaid) || strings.HasPrefix(account, "card:")
}

// Entry is a balanced journal entry: for every asset its postings sum to
// zero.
type Entry struct {
	Seq      int              `json:"seq"`
	At       time.Time        `json:"at"`
	Memo     string           `json:"memo"`
	Postings []kernel.Posting `json:"postings"`
}

// entryRow is an Entry as the entries table holds it.
type entryRow struct {
	Seq      int
	At       time.Time
	Memo     string
	Postings kernel.List[kernel.Posting]
}

// ShortError is what Post answers for a posting that would take a
// non-negative account below zero (errors.Is kernel.ErrInsufficientFunds).
// Nothing of the entry was applied.
type ShortError struct {
	Account string
	Asset   string
}

// Error names the account and asset that would have gone negative.
func (e *ShortError) Error() string {
	return fmt.Sprintf("ledger: %s would go negative in %s", e.Account, e.Asset)
}

// Unwrap makes the error kernel.ErrInsufficientFunds, as the lines test it.
func (e *ShortError) Unwrap() error { return kernel.ErrInsufficientFunds }

// Books is the ledger: balances by account and asset, and the journal.
type Books struct {
	balances *kernel.Table[string, money.Amount] // balanceKey(account, asset) -> balance
	entries  *kernel.Table[int64, entryRow]      // by seq
	scales   func(asset string) (int, bool)
}

// balanceKey is the key of an account's balance in asset.
func balanceKey(account, asset string) string { return account + "\x00" + asset }

// New makes the ledger's tables in k; scales gives an asset's ledger scale
// (false: not a catalogue asset).
func New(k *kernel.Kernel, scales func(asset string) (int, bool)) *Books {
	return &Books{
		balances: kernel.NewTable[string, money.Amount](k, "ledger.balances"),
		entries:  kernel.NewTable[int64, entryRow](k, "ledger.entries", kernel.Ordered()),
		scales:   scales,
	}
}

// Balance returns the balance of account in asset (zero at the asset's scale).
func (l *Books) Balance(tx *kernel.Tx, account, asset string) money.Amount {
	if b, ok := l.balances.Get(tx, balanceKey(account, asset)); ok {
		return b
	}
	sc, _ := l.scales(asset)
	return money.Zero(sc)
}

// Post applies a balanced entry atomically: either every posting is applied or
// none. It refuses an unbalanced entry, an unknown asset, a scale mismatch, and
// any posting that would take a non-negative account below zero (*ShortError).
func (l *Books) Post(tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error {
	sums := map[string]money.Amount{}
	next := map[string]map[string]money.Amount{}
	for _, p := range legs {
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
			if b.IsNegative() && NonNegative(acct) {
				return &ShortError{Account: acct, Asset: asset}
			}
		}
	}
	for acct, m := range next {
		for asset, b := range m {
			l.balances.Put(tx, balanceKey(acct, asset), b)
		}
	}
	seq := l.entries.Len(tx) + 1
	l.entries.Put(tx, int64(seq), entryRow{Seq: seq, At: at, Memo: memo, Postings: kernel.ListOf(legs...)})
	return nil
}

// Check verifies the books: every asset sums to zero over all accounts and no
// non-negative account is below zero. It returns nil when the books balance.
func (l *Books) Check(tx *kernel.Tx) error {
	sums := map[string]money.Amount{}
	for key, b := range l.balances.All(tx) {
		acct, asset, _ := strings.Cut(key, "\x00")
		if b.IsNegative() && NonNegative(acct) {
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

// Entries returns a copy of the journal, in order.
func (l *Books) Entries(tx *kernel.Tx) []Entry {
	var out []Entry
	for _, e := range l.entries.All(tx) {
		out = append(out, Entry{Seq: e.Seq, At: e.At, Memo: e.Memo, Postings: e.Postings.Slice()})
	}
	return out
}

// Accounts returns the balances of every account that ever moved, by
// account then asset.
func (l *Books) Accounts(tx *kernel.Tx) map[string]map[string]money.Amount {
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
