package simulator

import (
	"fmt"
	"sort"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Money and ended cards. A card that has ended (closed, expired, replaced)
// never keeps money, and money never arrives on one:
//
//   - close (and close-check) refuse a card with a top-up in flight: that
//     money is unsettled funds (500 api_error, reason topup_in_flight);
//   - replacement moves the balance to the new card and re-points the
//     top-ups in flight to it, so their credit lands on the live card;
//   - a card that ends otherwise (the issuer's close callback, an operator
//     override) first has its top-ups in flight rejected (hold released to
//     where it came from) and then its balance returned to the member's
//     wallet (card.withdraw.completed);
//   - a card transaction crediting an ended card is forwarded to the live
//     replacement, or returned to the member's wallet; one debiting an ended
//     card is refused.

// topUpsInFlight returns the processing top-ups towards c, oldest first.
func (s *Simulator) topUpsInFlight(c *simCard) []*cardTopUp {
	var out []*cardTopUp
	for _, t := range s.st.cards.topups {
		if t.CardID == c.ID && t.Status == "processing" {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// endCard clears a card that is about to end by any path other than
// replacement: its top-ups in flight are rejected (their holds released)
// and its balance goes back to the member's wallet.
func (s *Simulator) endCard(tx *kernel.Tx, c *simCard) error {
	for _, t := range s.topUpsInFlight(c) {
		if err := s.rejectCardTopUp(tx, t); err != nil {
			return err
		}
	}
	return s.withdrawCard(tx, c, "card "+c.ID+" ended")
}

// withdrawCard returns c's whole balance to its member's available
// balance and sends card.withdraw.completed (data.object card_withdrawal,
// data.id the bare uuid of the withdrawal, REST cwd_<id>). Nothing happens
// when the balance is zero.
func (s *Simulator) withdrawCard(tx *kernel.Tx, c *simCard, why string) error {
	bal := s.st.ledger.Balance(CardAccount(c.ID), cardLedgerAsset)
	if bal.IsZero() {
		return nil
	}
	id := s.newUUID()
	if err := s.st.ledger.Transfer(s.st.clock.Now(), fmt.Sprintf("card withdrawal cwd_%s: %s, balance returned to the member wallet", id, why),
		cardLedgerAsset, bal, CardAccount(c.ID), MemberAvailable(c.MemberID)); err != nil {
		return err
	}
	s.emit(tx, "card.withdraw.completed", "card_withdrawal", id, s.memberOfCard(c), "completed", 1, nil)
	return nil
}

// liveReplacement follows c's replacements to the first card that has not
// ended, or returns nil.
func (s *Simulator) liveReplacement(c *simCard) *simCard {
	seen := map[string]bool{}
	for c != nil && cardEnded(c.Status) && !seen[c.ID] {
		seen[c.ID] = true
		c = s.st.cards.cards[c.ReplacedBy]
	}
	if c == nil || cardEnded(c.Status) {
		return nil
	}
	return c
}

// cardTxDestination returns the account a booked card transaction moves: the
// card's own while it has not ended. For an ended card a credit goes to the
// live replacement or, when there is none, back to the member's wallet
// (withdrawal true); a debit is refused.
func (s *Simulator) cardTxDestination(c *simCard, direction string) (account string, withdrawal bool, err error) {
	if !cardEnded(c.Status) {
		return CardAccount(c.ID), false, nil
	}
	if direction == "debit" {
		return "", false, newErr("state_invalid", fmt.Sprintf("card %s is %s: an ended card takes no debits", c.ID, c.Status))
	}
	if live := s.liveReplacement(c); live != nil {
		return CardAccount(live.ID), false, nil
	}
	return MemberAvailable(c.MemberID), true, nil
}
