package devtools

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
)

// Violations lists, sorted, every violation of the rules a balanced
// ledger cannot show (the simulator's CheckInvariants documents them): each
// locked account against the holds of its live objects
// (ledger.Books.HoldViolations), the card line's rules, a balance on a card
// that does not exist, the remittance and QR lines' structural rules, and
// the steps verify mode found refused with the state changed (k). It reads
// the QR, card and remittance lines of l, which must be wired.
func Violations(tx *kernel.Tx, l Lines, books *ledger.Books, k *kernel.Kernel) []string {
	// Holds: every locked account equals the holds of its live objects.
	holds, out := liveHolds(tx, l)
	out = append(out, books.HoldViolations(tx, holds)...)

	// Cards: no balance on an ended card, nothing in flight towards one,
	// no balance on a card that does not exist.
	out = append(out, l.Card.Violations(tx)...)
	for acct, m := range books.Accounts(tx) {
		id, ok := strings.CutPrefix(acct, "card:")
		if !ok || l.Card.HasCard(tx, id) {
			continue
		}
		for asset, b := range m {
			if !b.IsZero() {
				out = append(out, fmt.Sprintf("%s holds %s %s but no such card exists", acct, b, asset))
			}
		}
	}

	// Orders: structural rules the sums cannot show.
	out = append(out, l.Remit.Invariants(tx)...)
	out = append(out, l.QR.Violations(tx)...)
	// Steps: a refused step that left the state changed (verify mode).
	out = append(out, k.Violations(tx)...)
	sort.Strings(out)
	return out
}

// liveHolds returns what every live object holds, and the objects whose
// hold cannot be summed.
func liveHolds(tx *kernel.Tx, l Lines) ([]ledger.Hold, []string) {
	var out []ledger.Hold
	for _, q := range l.QR.Holds(tx) {
		out = append(out, ledger.Hold{Owner: q.Owner, Account: q.Account, Asset: q.Asset, Amount: q.Amount})
	}
	for _, r := range l.Remit.Holds(tx) {
		out = append(out, ledger.Hold{Owner: r.Owner, Account: r.Account, Asset: r.Asset, Amount: r.Amount})
	}
	holds, errs := l.Card.Holds(tx)
	for _, c := range holds {
		out = append(out, ledger.Hold{Owner: c.Owner, Account: c.Account, Asset: c.Asset, Amount: c.Amount})
	}
	return out, errs
}
