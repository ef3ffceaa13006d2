package cards

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// topUpCandidates lists the assets a top-up may be paid with, in order: the
// preferred asset when the product allows it, then the member's payment
// priority.
func (l *Line) topUpCandidates(m *api.Member, p *cardProduct, preferred string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(a string) {
		if !seen[a] && p.allows(a) {
			seen[a] = true
			out = append(out, a)
		}
	}
	add(strings.TrimSpace(preferred))
	for a := range m.PaymentPriority.Values() {
		add(a)
	}
	for a := range p.SourceAssets.Values() {
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

func (l *Line) handleCardTopUp(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
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
	funding, err := l.cardFunding(c.Tx, strings.TrimSpace(b.FundingSource))
	if err != nil {
		return 0, nil, err
	}
	if b.Amount == "" {
		return 0, nil, api.InvalidFields("amount is required", "amount")
	}
	if !card.allowed("topup") {
		return 0, nil, errCardState(card, "top up")
	}
	if c.Member.Restricted() {
		return 0, nil, api.Business500("member account restricted")
	}
	p := l.product(c.Tx, card.ProductID)
	if p == nil || !l.productVisible(c.Tx, p) {
		return 0, nil, api.NewErr("product_not_available", "card product not available")
	}
	if c.Member.FundsProtected {
		// A prerequisite of top-ups; the contract lists no code of its own
		// for it, so it is product_not_available ("prerequisites unmet").
		return 0, nil, api.NewErr("product_not_available", "the member is in funds-protection mode")
	}
	avail, locked := fundingAccounts(funding, c.Member.ID)
	var chosen string
	var amount, fee, total money.Amount
	for _, asset := range l.topUpCandidates(c.Member, p, b.SourceAsset) {
		a, err := nonNegAmount(c.Tx, asset, b.Amount)
		if err != nil {
			return 0, nil, cardAmountError("amount", asset, err)
		}
		if a.IsZero() {
			return 0, nil, api.InvalidFields("amount must be greater than zero", "amount")
		}
		if a.Cmp(mustAmount(c.Tx, p.FeeAsset, p.MinTopUp)) < 0 {
			return 0, nil, api.Business500("top-up below minimum")
		}
		if a.Cmp(mustAmount(c.Tx, p.FeeAsset, p.MaxTopUp)) > 0 {
			return 0, nil, api.Business500("top-up over the per-transaction limit")
		}
		f, t := topUpPrice(p, a)
		if c.Tx.Balance(avail, asset).Cmp(t) >= 0 {
			chosen, amount, fee, total = asset, a, f, t
			break
		}
	}
	if chosen == "" {
		if funding == "merchant" {
			return 0, nil, api.NewErr("service_unavailable", "card line temporarily unavailable")
		}
		return 0, nil, api.Business500("insufficient member balance")
	}
	id := "ctp_" + c.Tx.NewUUID()
	if err := c.Tx.Transfer(c.Now, "card top-up "+id+" hold", chosen, total, avail, locked); err != nil {
		if errors.Is(err, kernel.ErrInsufficientFunds) {
			return 0, nil, api.Business500("insufficient balance")
		}
		return 0, nil, err
	}
	t := &cardTopUp{Seq: c.Tx.NextSeq(), ID: id, CardID: card.ID, MemberID: c.Member.ID, Asset: chosen, Funding: funding, Amount: amount, Fee: fee,
		Status: "processing", StatusVersion: 1, CreatedAt: c.Now}
	l.putTopUp(c.Tx, t)
	c.Tx.InFlight(CollectionTopups, t.ID)
	if n := l.st.topUpTimeouts.Get(c.Tx); n > 0 {
		// The upstream call timed out after the hold: the order exists and
		// stays processing with its funds held (no outcome runs by itself),
		// the caller is answered 504, and the order is what the idempotency
		// key stores, so the retry with the same key replays it.
		l.st.topUpTimeouts.Set(c.Tx, n-1)
		_ = l.timeoutCardTopUp(c.Tx, t)
		c.AnswerInstead = api.NewErr("upstream_timeout", "the card issuer did not answer in time; the top-up may have been accepted: retry with the same idempotency key")
	}
	return 201, map[string]any{"id": t.ID, "status": t.Status}, nil
}

func (l *Line) handleCardTopUpEstimate(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	q := c.Req.URL.Query()
	if q.Get("amount") == "" {
		return 0, nil, api.InvalidFields("amount is required", "amount")
	}
	p := l.product(c.Tx, card.ProductID)
	if p == nil || !l.productVisible(c.Tx, p) {
		return 0, nil, api.NewErr("product_not_available", "card product not available")
	}
	cands := l.topUpCandidates(c.Member, p, q.Get("source_asset"))
	if len(cands) == 0 {
		return 0, nil, api.NewErr("product_not_available", "no source asset available for this card")
	}
	asset := cands[0]
	a, err := nonNegAmount(c.Tx, asset, q.Get("amount"))
	if err != nil {
		return 0, nil, cardAmountError("amount", asset, err)
	}
	if a.IsZero() {
		return 0, nil, api.InvalidFields("amount must be greater than zero", "amount")
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

// findTopUp finds a top-up by id (ctp_ optional); the copy is written
// back by putTopUp.
func (l *Line) findTopUp(tx *kernel.Tx, id string) (*cardTopUp, error) {
	t, ok := l.st.topups.Get(tx, WithIDPrefix("ctp_", id))
	if !ok {
		return nil, fmt.Errorf("card top-up %q not found", id)
	}
	return &t, nil
}

func topUpJSON(t *cardTopUp) map[string]any {
	return map[string]any{"id": t.ID, "card_id": t.CardID, "status": t.Status, "status_version": t.StatusVersion,
		"asset": t.Asset, "amount": t.Amount.String(), "fee": t.Fee.String(), "timed_out": t.TimedOut}
}

// creditCardTopUp is the upstream's confirmation: the base amount
// reaches the card, the fee is earned, card.topup.credited is sent.
func (l *Line) creditCardTopUp(tx *kernel.Tx, t *cardTopUp) error {
	if t.Status != "processing" {
		return api.NewErr("state_invalid", fmt.Sprintf("card top-up %s is %s, not processing", t.ID, t.Status))
	}
	avail, locked := fundingAccounts(t.Funding, t.MemberID)
	if !t.Fee.IsZero() {
		if err := tx.Transfer(tx.Now(), "card top-up "+t.ID+" fee", t.Asset, t.Fee, locked, kernel.AccountRevenueFees); err != nil {
			return err
		}
	}
	if err := l.creditCard(tx, "card top-up "+t.ID+" credited", t.Asset, t.Amount, locked, avail, t.CardID); err != nil {
		return err
	}
	t.Status = "completed"
	t.StatusVersion++
	l.putTopUp(tx, t)
	tx.Settled(t.ID)
	l.emit(tx, "card.topup.credited", "card_topup", strings.TrimPrefix(t.ID, "ctp_"), l.host.Member(tx, t.MemberID), t.Status, t.StatusVersion)
	return nil
}

// rejectCardTopUp is an explicit upstream rejection: the hold is
// released at once.
func (l *Line) rejectCardTopUp(tx *kernel.Tx, t *cardTopUp) error {
	if t.Status != "processing" {
		return api.NewErr("state_invalid", fmt.Sprintf("card top-up %s is %s, not processing", t.ID, t.Status))
	}
	avail, locked := fundingAccounts(t.Funding, t.MemberID)
	total, _ := t.Amount.Add(t.Fee)
	if err := tx.Transfer(tx.Now(), "card top-up "+t.ID+" rejected: hold released", t.Asset, total, locked, avail); err != nil {
		return err
	}
	t.Status = "failed"
	t.StatusVersion++
	l.putTopUp(tx, t)
	tx.Settled(t.ID)
	return nil
}

// timeoutCardTopUp records an upstream timeout: the order stays
// processing and the funds stay held until reconciliation credits or
// rejects it; no automatic outcome runs any more.
func (l *Line) timeoutCardTopUp(tx *kernel.Tx, t *cardTopUp) error {
	if t.Status != "processing" {
		return api.NewErr("state_invalid", fmt.Sprintf("card top-up %s is %s, not processing", t.ID, t.Status))
	}
	t.TimedOut = true
	l.putTopUp(tx, t)
	tx.Settled(t.ID)
	return nil
}
