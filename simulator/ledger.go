package simulator

import (
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
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

// shortFunds is the error the kernel's Post answers (internal/services)
// for a posting that would take a non-negative account below zero.
func shortFunds(account, asset string) error {
	return insufficientFunds{&InsufficientFundsError{Account: account, Asset: asset}}
}

// entries is the ledger's journal as the public API answers it.
func entries(l *ledger.Books, tx *kernel.Tx) []Entry {
	var out []Entry
	for _, e := range l.Entries(tx) {
		ps := make([]Posting, len(e.Postings))
		for i, p := range e.Postings {
			ps[i] = Posting(p)
		}
		out = append(out, Entry{Seq: e.Seq, At: e.At, Memo: e.Memo, Postings: ps})
	}
	return out
}

// legacyBooks is the ledger as the state image of recordings of versions 1
// and 2 held it.
type legacyBooks struct {
	Balances map[string]map[string]money.Amount
	Entries  []Entry
}

func legacyLedger(l *ledger.Books, tx *kernel.Tx) *legacyBooks {
	return &legacyBooks{Balances: l.Accounts(tx), Entries: entries(l, tx)}
}
