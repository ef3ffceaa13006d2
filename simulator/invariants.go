package simulator

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/money"
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

// holdBook sums the holds the live objects claim, per account and asset, and
// remembers which objects claim them.
type holdBook struct {
	amounts map[string]map[string]money.Amount // account -> asset -> sum
	owners  map[string][]string                // account|asset -> object ids
	errs    []string
}

func (h *holdBook) add(account, asset string, amt money.Amount, owner string) {
	if amt.IsZero() {
		return
	}
	if h.amounts[account] == nil {
		h.amounts[account] = map[string]money.Amount{}
	}
	cur, ok := h.amounts[account][asset]
	if !ok {
		h.amounts[account][asset] = amt
	} else {
		sum, err := cur.Add(amt)
		if err != nil {
			h.errs = append(h.errs, fmt.Sprintf("%s: hold of %s %s at a foreign scale (%v)", owner, amt, asset, err))
			return
		}
		h.amounts[account][asset] = sum
	}
	k := account + "|" + asset
	h.owners[k] = append(h.owners[k], owner)
}

// liveHolds returns what every live object holds.
func (s *view) liveHolds(tx *kernel.Tx) *holdBook {
	h := &holdBook{amounts: map[string]map[string]money.Amount{}, owners: map[string][]string{}}
	for _, q := range s.st.qr.Holds(tx) {
		h.add(q.Account, q.Asset, q.Amount, q.Owner)
	}
	for _, r := range s.st.remit.Holds(tx) {
		h.add(r.Account, r.Asset, r.Amount, r.Owner)
	}
	holds, errs := s.st.cards.Holds(tx)
	h.errs = append(h.errs, errs...)
	for _, c := range holds {
		h.add(c.Account, c.Asset, c.Amount, c.Owner)
	}
	return h
}

// holdAccount reports the accounts whose balance must equal the live holds.
func holdAccount(account string) bool {
	return account == AccountMerchantPrepaidLocked || (strings.HasPrefix(account, "member:") && strings.HasSuffix(account, ":locked"))
}

// invariantViolations lists every violation, sorted.
func (s *view) invariantViolations(tx *kernel.Tx) []string {
	var out []string

	// Holds: every locked account equals the holds of its live objects.
	h := s.liveHolds(tx)
	out = append(out, h.errs...)
	balances := s.st.ledger.Accounts(tx)
	accounts := map[string]bool{}
	for acct := range balances {
		if holdAccount(acct) {
			accounts[acct] = true
		}
	}
	for acct := range h.amounts {
		accounts[acct] = true
	}
	for acct := range accounts {
		assets := map[string]bool{}
		for a := range balances[acct] {
			assets[a] = true
		}
		for a := range h.amounts[acct] {
			assets[a] = true
		}
		for asset := range assets {
			got := s.st.ledger.Balance(tx, acct, asset)
			want, ok := h.amounts[acct][asset]
			if !ok {
				want = money.Zero(got.Scale())
			}
			if got.Cmp(want) == 0 {
				continue
			}
			owners := h.owners[acct+"|"+asset]
			switch {
			case len(owners) == 0:
				out = append(out, fmt.Sprintf("%s holds %s %s but no live object holds anything there (a hold without a live order)", acct, got, asset))
			default:
				out = append(out, fmt.Sprintf("%s holds %s %s but its live objects hold %s (%s)", acct, got, asset, want, strings.Join(owners, ", ")))
			}
		}
	}

	// Cards: no balance on an ended card, nothing in flight towards one,
	// no balance on a card that does not exist.
	out = append(out, s.st.cards.Violations(tx)...)
	for acct, m := range balances {
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
