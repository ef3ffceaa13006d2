package cards

import (
	"fmt"
	"sort"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
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
func (l *Line) topUpsInFlight(tx *kernel.Tx, c *simCard) []*cardTopUp {
	var out []*cardTopUp
	for _, t := range l.st.topups.All(tx) {
		if t.CardID == c.ID && t.Status == "processing" {
			out = append(out, &t)
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
func (l *Line) endCard(tx *kernel.Tx, c *simCard) error {
	for _, t := range l.topUpsInFlight(tx, c) {
		if err := l.rejectCardTopUp(tx, t); err != nil {
			return err
		}
	}
	return l.withdrawCard(tx, c, "card "+c.ID+" ended")
}

// withdrawCard returns c's whole balance to its member's available
// balance and sends card.withdraw.completed (data.object card_withdrawal,
// data.id the bare uuid of the withdrawal, REST cwd_<id>). Nothing happens
// when the balance is zero.
func (l *Line) withdrawCard(tx *kernel.Tx, c *simCard, why string) error {
	bal := tx.Balance(cardAccount(c.ID), cardLedgerAsset)
	if bal.IsZero() {
		return nil
	}
	id := tx.NewUUID()
	if err := tx.Transfer(tx.Now(), fmt.Sprintf("card withdrawal cwd_%s: %s, balance returned to the member wallet", id, why),
		cardLedgerAsset, bal, cardAccount(c.ID), kernel.MemberAvailable(c.MemberID)); err != nil {
		return err
	}
	l.emit(tx, "card.withdraw.completed", "card_withdrawal", id, l.host.Member(tx, c.MemberID), "completed", 1)
	return nil
}

// liveReplacement follows c's replacements to the first card that has not
// ended, or returns nil.
func (l *Line) liveReplacement(tx *kernel.Tx, c *simCard) *simCard {
	seen := map[string]bool{}
	for c != nil && cardEnded(c.Status) && !seen[c.ID] {
		seen[c.ID] = true
		next, ok := l.st.cards.Get(tx, c.ReplacedBy)
		c = nil
		if ok {
			c = &next
		}
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
func (l *Line) cardTxDestination(tx *kernel.Tx, c *simCard, direction string) (account string, withdrawal bool, err error) {
	if !cardEnded(c.Status) {
		return cardAccount(c.ID), false, nil
	}
	if direction == "debit" {
		return "", false, api.NewErr("state_invalid", fmt.Sprintf("card %s is %s: an ended card takes no debits", c.ID, c.Status))
	}
	if live := l.liveReplacement(tx, c); live != nil {
		return cardAccount(live.ID), false, nil
	}
	return kernel.MemberAvailable(c.MemberID), true, nil
}

// cardAppUnderReview reports an application whose outcome is not known yet.
func cardAppUnderReview(a *cardApplication) bool {
	return a.Status == "pending_review" || a.Status == "submitted"
}
