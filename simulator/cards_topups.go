package simulator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// topUpCandidates lists the assets a top-up may be paid with, in order: the
// preferred asset when the product allows it, then the member's payment
// priority.
func (s *Simulator) topUpCandidates(m *member, p *cardProduct, preferred string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(a string) {
		if !seen[a] && p.allows(a) {
			seen[a] = true
			out = append(out, a)
		}
	}
	add(strings.TrimSpace(preferred))
	for _, a := range m.PaymentPriority {
		add(a)
	}
	for _, a := range p.SourceAssets {
		add(a)
	}
	return out
}

// topUpPrice returns the fee and customer total of amount for product p.
func topUpPrice(p *cardProduct, amount money.Amount) (fee, total money.Amount) {
	fee, _ = amount.MulRatio(p.TopUpFeeBps, 10000, money.RoundUp)
	total, _ = amount.Add(fee)
	return fee, total
}

func (s *Simulator) handleCardTopUp(c *rc) (int, any, error) {
	card, err := s.cardOf(c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	var b struct {
		Amount        string `json:"amount"`
		SourceAsset   string `json:"source_asset"`
		FundingSource string `json:"funding_source"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, nil, err
	}
	funding, err := s.cardFunding(strings.TrimSpace(b.FundingSource))
	if err != nil {
		return 0, nil, err
	}
	if b.Amount == "" {
		return 0, nil, errInvalidFields("amount is required", "amount")
	}
	if !card.allowed("topup") {
		return 0, nil, errCardState(card, "top up")
	}
	if memberRestriction(c.Member) != "" {
		return 0, nil, errBusiness500("member account restricted")
	}
	p := s.st.cards.productByID[card.ProductID]
	if p == nil || !s.productVisible(p) {
		return 0, nil, newErr("product_not_available", "card product not available")
	}
	if c.Member.FundsProtected {
		// A prerequisite of top-ups; the contract lists no code of its own
		// for it, so it is product_not_available ("prerequisites unmet").
		return 0, nil, newErr("product_not_available", "the member is in funds-protection mode")
	}
	avail, locked := fundingAccounts(funding, c.Member.ID)
	var chosen string
	var amount, fee, total money.Amount
	for _, asset := range s.topUpCandidates(c.Member, p, b.SourceAsset) {
		a, err := s.st.cat.amount(asset, b.Amount, decimalNonNegative)
		if err != nil {
			return 0, nil, cardAmountError("amount", asset, err)
		}
		if a.IsZero() {
			return 0, nil, errInvalidFields("amount must be greater than zero", "amount")
		}
		if a.Cmp(s.st.cat.mustAmount(p.FeeAsset, p.MinTopUp)) < 0 {
			return 0, nil, errBusiness500("top-up below minimum")
		}
		if a.Cmp(s.st.cat.mustAmount(p.FeeAsset, p.MaxTopUp)) > 0 {
			return 0, nil, errBusiness500("top-up over the per-transaction limit")
		}
		f, t := topUpPrice(p, a)
		if s.st.ledger.Balance(avail, asset).Cmp(t) >= 0 {
			chosen, amount, fee, total = asset, a, f, t
			break
		}
	}
	if chosen == "" {
		if funding == "merchant" {
			return 0, nil, newErr("service_unavailable", "card line temporarily unavailable")
		}
		return 0, nil, errBusiness500("insufficient member balance")
	}
	id := "ctp_" + s.newUUID()
	if err := s.st.ledger.Transfer(c.Now, "card top-up "+id+" hold", chosen, total, avail, locked); err != nil {
		var insuf *InsufficientFundsError
		if errors.As(err, &insuf) {
			return 0, nil, errBusiness500("insufficient balance")
		}
		return 0, nil, err
	}
	t := &cardTopUp{seq: s.nextSeq(c.Tx), ID: id, CardID: card.ID, MemberID: c.Member.ID, Asset: chosen, Funding: funding, Amount: amount, Fee: fee,
		Status: "processing", StatusVersion: 1, CreatedAt: c.Now}
	s.st.cards.topups[t.ID] = t
	s.inFlight(c.Tx, CollectionCardTopups, t.ID)
	if s.st.cards.topUpTimeouts > 0 {
		// The upstream call timed out after the hold: the order exists and
		// stays processing with its funds held (no outcome runs by itself),
		// the caller is answered 504, and the order is what the idempotency
		// key stores, so the retry with the same key replays it.
		s.st.cards.topUpTimeouts--
		_ = s.timeoutCardTopUp(c.Tx, t)
		c.AnswerInstead = newErr("upstream_timeout", "the card issuer did not answer in time; the top-up may have been accepted: retry with the same idempotency key")
	}
	return 201, map[string]any{"id": t.ID, "status": t.Status}, nil
}

func (s *Simulator) handleCardTopUpEstimate(c *rc) (int, any, error) {
	card, err := s.cardOf(c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	q := c.Req.URL.Query()
	if q.Get("amount") == "" {
		return 0, nil, errInvalidFields("amount is required", "amount")
	}
	p := s.st.cards.productByID[card.ProductID]
	if p == nil || !s.productVisible(p) {
		return 0, nil, newErr("product_not_available", "card product not available")
	}
	cands := s.topUpCandidates(c.Member, p, q.Get("source_asset"))
	if len(cands) == 0 {
		return 0, nil, newErr("product_not_available", "no source asset available for this card")
	}
	asset := cands[0]
	a, err := s.st.cat.amount(asset, q.Get("amount"), decimalNonNegative)
	if err != nil {
		return 0, nil, cardAmountError("amount", asset, err)
	}
	if a.IsZero() {
		return 0, nil, errInvalidFields("amount must be greater than zero", "amount")
	}
	fee, total := topUpPrice(p, a)
	credit, _, err := cardCredit(a)
	if err != nil {
		return 0, nil, err
	}
	cardAmt, err := credit.Rescale(cardScale)
	if err != nil {
		return 0, nil, err
	}
	return 200, map[string]any{
		"source_asset": asset, "ledger_scale": a.Scale(), "amount": a.String(), "fee": fee.String(),
		"customer_total": total.String(), "currency": cardCurrency, "scale": cardScale, "card_amount": cardAmt.String(),
	}, nil
}

func (s *Simulator) findTopUp(id string) (*cardTopUp, error) {
	t := s.st.cards.topups[withIDPrefix("ctp_", id)]
	if t == nil {
		return nil, fmt.Errorf("card top-up %q not found", id)
	}
	return t, nil
}

func topUpJSON(t *cardTopUp) map[string]any {
	return map[string]any{"id": t.ID, "card_id": t.CardID, "status": t.Status, "status_version": t.StatusVersion,
		"asset": t.Asset, "amount": t.Amount.String(), "fee": t.Fee.String(), "timed_out": t.TimedOut}
}

// creditCardTopUp is the upstream's confirmation: the base amount
// reaches the card, the fee is earned, card.topup.credited is sent.
func (s *Simulator) creditCardTopUp(tx *kernel.Tx, t *cardTopUp) error {
	if t.Status != "processing" {
		return newErr("state_invalid", fmt.Sprintf("card top-up %s is %s, not processing", t.ID, t.Status))
	}
	avail, locked := fundingAccounts(t.Funding, t.MemberID)
	if !t.Fee.IsZero() {
		if err := s.st.ledger.Transfer(s.st.clock.Now(), "card top-up "+t.ID+" fee", t.Asset, t.Fee, locked, AccountRevenueFees); err != nil {
			return err
		}
	}
	if err := s.creditCard(tx, "card top-up "+t.ID+" credited", t.Asset, t.Amount, locked, avail, t.CardID); err != nil {
		return err
	}
	t.Status = "completed"
	t.StatusVersion++
	s.settled(tx, t.ID)
	s.emit(tx, "card.topup.credited", "card_topup", strings.TrimPrefix(t.ID, "ctp_"), s.st.members.Get(t.MemberID), t.Status, t.StatusVersion, nil)
	return nil
}

// rejectCardTopUp is an explicit upstream rejection: the hold is
// released at once.
func (s *Simulator) rejectCardTopUp(tx *kernel.Tx, t *cardTopUp) error {
	if t.Status != "processing" {
		return newErr("state_invalid", fmt.Sprintf("card top-up %s is %s, not processing", t.ID, t.Status))
	}
	avail, locked := fundingAccounts(t.Funding, t.MemberID)
	total, _ := t.Amount.Add(t.Fee)
	if err := s.st.ledger.Transfer(s.st.clock.Now(), "card top-up "+t.ID+" rejected: hold released", t.Asset, total, locked, avail); err != nil {
		return err
	}
	t.Status = "failed"
	t.StatusVersion++
	s.settled(tx, t.ID)
	return nil
}

// timeoutCardTopUp records an upstream timeout: the order stays
// processing and the funds stay held until reconciliation credits or
// rejects it; no automatic outcome runs any more.
func (s *Simulator) timeoutCardTopUp(tx *kernel.Tx, t *cardTopUp) error {
	if t.Status != "processing" {
		return newErr("state_invalid", fmt.Sprintf("card top-up %s is %s, not processing", t.ID, t.Status))
	}
	t.TimedOut = true
	s.settled(tx, t.ID)
	return nil
}
