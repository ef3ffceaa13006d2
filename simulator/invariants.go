package simulator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/devtools"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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

// invariantViolations lists every violation, sorted
// (devtools.Violations).
func (v *view) invariantViolations(tx *kernel.Tx) []string {
	return devtools.Violations(tx, devtools.Lines{QR: v.st.qr, Card: v.st.cards, Remit: v.st.remit}, v.st.ledger, v.k)
}
