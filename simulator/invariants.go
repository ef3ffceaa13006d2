package simulator

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
)

// CheckInvariants verifies what a balanced ledger cannot show: that money
// sits only where a live object needs it. It returns nil when every rule
// holds, otherwise an error listing every violation found:
//
//   - no balance on an ended card (closed, expired or replaced);
//   - no card top-up in flight towards an ended card;
//   - every held amount is owned by an object that is not final: each
//     member's locked balance, and the merchant's prepaid locked balance,
//     equals, asset by asset, the sum of the holds of its live objects (QR
//     orders pending or processing, remittances held and not final, card
//     top-ups processing, card applications under review with a first
//     top-up), so there is no hold without a live order and no live order
//     without its hold;
//   - a remittance waiting for merchant funds holds nothing;
//   - no QR order is left pending (pending lasts only inside the payment
//     request);
//   - no card application under review relies on a quick KYC binding that
//     is no longer active, and every issued application names an existing
//     card.
//
// Use it beside CheckLedger at the end of a test.
func (s *Simulator) CheckInvariants() error {
	tx := s.k.Begin()
	defer tx.End()
	v := s.wiring.view.invariantViolations(tx)
	if len(v) == 0 {
		return nil
	}
	return &InvariantError{Violations: v}
}

// InvariantError lists the violations CheckInvariants found, each a
// sentence naming the object, account and amounts involved.
type InvariantError struct {
	Violations []string
}

// Error joins the violations.
func (e *InvariantError) Error() string {
	return fmt.Sprintf("simulator invariants: %d violation(s): %s", len(e.Violations), strings.Join(e.Violations, "; "))
}

// ErrInvariant is matched by errors.Is for every *InvariantError.
var ErrInvariant = errors.New("simulator invariant violated")

// Is makes errors.Is(err, ErrInvariant) true.
func (e *InvariantError) Is(target error) bool { return target == ErrInvariant }

// liveHolds returns what every live object holds, and the objects whose
// hold cannot be summed.
func (s *view) liveHolds(tx *kernel.Tx) ([]ledger.Hold, []string) {
	var out []ledger.Hold
	for _, q := range s.st.qr.Holds(tx) {
		out = append(out, ledger.Hold{Owner: q.Owner, Account: q.Account, Asset: q.Asset, Amount: q.Amount})
	}
	for _, r := range s.st.remit.Holds(tx) {
		out = append(out, ledger.Hold{Owner: r.Owner, Account: r.Account, Asset: r.Asset, Amount: r.Amount})
	}
	holds, errs := s.st.cards.Holds(tx)
	for _, c := range holds {
		out = append(out, ledger.Hold{Owner: c.Owner, Account: c.Account, Asset: c.Asset, Amount: c.Amount})
	}
	return out, errs
}

// invariantViolations lists every violation, sorted.
func (s *view) invariantViolations(tx *kernel.Tx) []string {
	// Holds: every locked account equals the holds of its live objects
	// (ledger.Books.HoldViolations).
	holds, out := s.liveHolds(tx)
	out = append(out, s.st.ledger.HoldViolations(tx, holds)...)

	// Cards: no balance on an ended card, nothing in flight towards one,
	// no balance on a card that does not exist.
	out = append(out, s.st.cards.Violations(tx)...)
	for acct, m := range s.st.ledger.Accounts(tx) {
		id, ok := strings.CutPrefix(acct, "card:")
		if !ok || s.st.cards.HasCard(tx, id) {
			continue
		}
		for asset, b := range m {
			if !b.IsZero() {
				out = append(out, fmt.Sprintf("%s holds %s %s but no such card exists", acct, b, asset))
			}
		}
	}

	// Orders: structural rules the sums cannot show.
	out = append(out, s.st.remit.Invariants(tx)...)
	out = append(out, s.st.qr.Violations(tx)...)
	// Steps: a refused step that left the state changed (verify mode).
	out = append(out, s.k.Violations(tx)...)
	sort.Strings(out)
	return out
}
