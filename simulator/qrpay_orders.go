package simulator

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
)

// qrOrder is a QR payment order.
type qrOrder struct {
	seq             int64  // creation sequence, the tie-break of lists (paginate.go)
	ID              string // qrp_<uuid>
	MemberID        string
	member          *member
	Status          string
	Version         int64 // status_version: 1 pending, then +1 per transition
	CreatedAt       time.Time
	Plan            qrPlan
	Payee           string
	Currency        string
	Amount          string
	PrincipalUSD    *apd.Decimal
	UpstreamQuoteID string
	Payer           map[string]string // payer data forwarded upstream (documented keys only)
	NoticeTimedOut  bool              // the upstream notice timed out: recorded for reconciliation
	Trace           []string
	// from is where the funds were held from, locked where they are held.
	from, locked string
}

// qrTransitions is the QR payment order state machine of the contract
// (States and transitions, QR payment order), one row per trigger:
//
//	pending     payments accepted (funds held, upstream notified)  -> processing
//	processing  network error or timeout notifying upstream        -> processing (funds never released)
//	processing  upstream result: success                           -> completed  qrpay.order.completed
//	processing  upstream result: failure                           -> failed     qrpay.order.failed (full debit returned)
//	completed   upstream initiates refund                          -> refunded   qrpay.order.refunded
//
// The first row happens inside POST /v1/qrpay/payments; the others are the
// actions complete, timeout, fail and refund.
var qrTransitions = []struct {
	action, from, to, event string
}{
	{"timeout", "processing", "processing", ""},
	{"complete", "processing", "completed", "qrpay.order.completed"},
	{"fail", "processing", "failed", "qrpay.order.failed"},
	{"refund", "completed", "refunded", "qrpay.order.refunded"},
}

// json is the QR payment order with exactly the fields the contract lists
// (merchant-funded orders add the fee_* trio); no ledger_scale, which the
// contract does not list: clients take it from the asset catalogue.
func (o *qrOrder) json() map[string]any {
	p := o.Plan
	m := map[string]any{
		"id": o.ID, "status": o.Status, "asset": p.Asset,
		"customer_total": p.CustomerTotal.String(), "fee": p.Fee.String(),
		"payee": o.Payee, "acquirer_currency": o.Currency, "acquirer_amount": o.Amount,
	}
	if p.MerchantFunded {
		m["fee_asset"] = p.FeeAsset
		m["fee_amount"] = p.FeeAmount.String()
		m["fee_ledger_scale"] = p.FeeScale
	}
	return m
}

// separateFee reports a merchant-funded fee charged in another asset than
// the principal.
func (p qrPlan) separateFee() bool {
	return p.MerchantFunded && p.FeeAsset != p.Asset && !p.FeeAmount.IsZero()
}

// holdPostings move the whole debit from o.from to o.locked (sign +1) or
// back (sign -1).
func (o *qrOrder) holdPostings(sign int) []Posting {
	p := o.Plan
	mv := func(asset string, amt money.Amount) []Posting {
		if sign < 0 {
			return []Posting{{Account: o.locked, Asset: asset, Amount: amt.Neg()}, {Account: o.from, Asset: asset, Amount: amt}}
		}
		return []Posting{{Account: o.from, Asset: asset, Amount: amt.Neg()}, {Account: o.locked, Asset: asset, Amount: amt}}
	}
	out := mv(p.Asset, p.CustomerTotal)
	if p.separateFee() {
		out = append(out, mv(p.FeeAsset, p.FeeAmount)...)
	}
	return out
}

// settlePostings release the held debit: the principal to the upstream and
// the fee to revenue.
func (o *qrOrder) settlePostings() []Posting {
	p := o.Plan
	out := []Posting{
		{Account: o.locked, Asset: p.Asset, Amount: p.CustomerTotal.Neg()},
		{Account: UpstreamAccount(qrUpstreamLine), Asset: p.Asset, Amount: p.Principal},
	}
	if !p.Fee.IsZero() {
		out = append(out, Posting{Account: AccountRevenueFees, Asset: p.Asset, Amount: p.Fee})
	}
	if p.separateFee() {
		out = append(out,
			Posting{Account: o.locked, Asset: p.FeeAsset, Amount: p.FeeAmount.Neg()},
			Posting{Account: AccountRevenueFees, Asset: p.FeeAsset, Amount: p.FeeAmount})
	}
	return out
}

// refundPostings return a completed order's whole debit, principal from the
// upstream and fee from revenue, to the available balance it came from.
func (o *qrOrder) refundPostings() []Posting {
	p := o.Plan
	out := []Posting{
		{Account: UpstreamAccount(qrUpstreamLine), Asset: p.Asset, Amount: p.Principal.Neg()},
		{Account: o.from, Asset: p.Asset, Amount: p.CustomerTotal},
	}
	if !p.Fee.IsZero() {
		out = append(out, Posting{Account: AccountRevenueFees, Asset: p.Asset, Amount: p.Fee.Neg()})
	}
	if p.separateFee() {
		out = append(out,
			Posting{Account: AccountRevenueFees, Asset: p.FeeAsset, Amount: p.FeeAmount.Neg()},
			Posting{Account: o.from, Asset: p.FeeAsset, Amount: p.FeeAmount})
	}
	return out
}

// qrAction applies an upstream action to an order.
func (s *Simulator) qrAction(tx *kernel.Tx, id, action string) (*qrOrder, error) {
	o := s.qr.orders[qrOrderID(id)]
	if o == nil {
		return nil, errNotFound("qrpay order")
	}
	return o, s.qrTransition(tx, o, action)
}

func (s *Simulator) qrTransition(tx *kernel.Tx, o *qrOrder, action string) error {
	for _, t := range qrTransitions {
		if t.action != action || t.from != o.Status {
			continue
		}
		now := s.clock.Now()
		var err error
		switch action {
		case "complete":
			err = s.ledger.Post(now, "qrpay complete "+o.ID, o.settlePostings()...)
		case "fail":
			err = s.ledger.Post(now, "qrpay fail "+o.ID, o.holdPostings(-1)...)
		case "refund":
			err = s.ledger.Post(now, "qrpay refund "+o.ID, o.refundPostings()...)
		case "timeout":
			o.NoticeTimedOut = true
		}
		if err != nil {
			return fmt.Errorf("qrpay %s %s: %w", action, o.ID, err)
		}
		o.Trace = append(o.Trace, action)
		if t.to != o.Status {
			o.Status = t.to
			o.Version++
		}
		if t.to != "processing" {
			s.settled(tx, o.ID)
		}
		if t.event != "" {
			s.emit(tx, t.event, "qrpay_order", strings.TrimPrefix(o.ID, "qrp_"), o.member, o.Status, o.Version, nil)
		}
		return nil
	}
	return newErr("state_invalid", fmt.Sprintf("qrpay order %s is %s; %s is not possible", o.ID, o.Status, action))
}

func (s *Simulator) qrPay(c *rc) (int, any, error) {
	in, err := s.qrValidate(c)
	if err != nil {
		return 0, nil, err
	}
	// 1. Strong authentication, bound to the member and the code.
	if err := s.requireStepUp(c, actionDigest("qrpay", c.Member.ID, in.code.value)); err != nil {
		return 0, nil, err
	}
	trace := []string{"step_up"}
	// 2. A fresh upstream quote (never the quotes memo).
	if r := s.qrUpstreamChecks(c.Member, in); r != nil {
		return 0, nil, r.pay
	}
	if in.code.has(QRScenarioPayerFields) {
		var missing []string
		for _, k := range qrPayerFields {
			if strings.TrimSpace(in.payer[k]) == "" {
				missing = append(missing, "payer."+k)
			}
		}
		if len(missing) > 0 {
			return 0, nil, errInvalidFields("the upstream requires payer data for this code", missing...)
		}
	}
	uq, err := s.qrUpstreamQuote(c.Tx, in, c.Now)
	if err != nil {
		return 0, nil, err
	}
	trace = append(trace, "quote")
	opts, err := s.qrOptions(c.Member, in, uq)
	if err != nil {
		return 0, nil, err
	}
	plan, ok := qrChoose(c.Member, in, opts)
	switch {
	case !ok && in.preferred != "":
		return 0, nil, errBusiness500(fmt.Sprintf("no quote for preferred_asset %s", in.preferred))
	case (!ok || !plan.Sufficient) && in.merchantFunded:
		return 0, nil, newErr("service_unavailable", "the QR payment line is temporarily unavailable")
	case !ok || !plan.Sufficient:
		return 0, nil, errBusiness500("insufficient member balance")
	}
	if reason := s.qrBlockedReason(c.Member, in, plan, c.Now); reason != "" {
		return 0, nil, errBusiness500(qrBlockedMessages[reason])
	}
	// 3. Hold the funds.
	o := &qrOrder{
		seq: s.nextSeq(c.Tx), ID: "qrp_" + s.newUUID(), MemberID: c.Member.ID, member: c.Member, Status: "pending", Version: 1,
		CreatedAt: c.Now, Plan: plan, Payee: uq.Payee, Currency: uq.Currency, Amount: uq.Amount,
		PrincipalUSD: plan.PrincipalUSD, UpstreamQuoteID: uq.ID, Payer: in.payer,
		from: MemberAvailable(c.Member.ID), locked: MemberLocked(c.Member.ID),
	}
	if plan.MerchantFunded {
		o.from, o.locked = AccountMerchantPrepaid, AccountMerchantPrepaidLocked
	}
	if err := s.ledger.Post(c.Now, "qrpay hold "+o.ID, o.holdPostings(+1)...); err != nil {
		var inf *InsufficientFundsError
		if errors.As(err, &inf) {
			if plan.MerchantFunded {
				return 0, nil, newErr("service_unavailable", "the QR payment line is temporarily unavailable")
			}
			return 0, nil, errBusiness500("insufficient member balance")
		}
		return 0, nil, err
	}
	trace = append(trace, "hold")
	s.qr.orders[o.ID] = o
	s.qr.list = insertByKey(s.qr.list, o, func(x *qrOrder) pageKey { return pageKey{At: x.CreatedAt, Seq: x.seq} })
	// 4. Notify the upstream. A timed-out notice leaves the outcome unknown:
	// the order is processing and the funds stay held.
	s.qr.stats.Notices++
	if in.code.has(QRScenarioTimeout) {
		o.NoticeTimedOut = true
		trace = append(trace, "notice_timeout")
	} else {
		trace = append(trace, "notice")
	}
	o.Trace = trace
	o.Status = "processing"
	o.Version++
	s.inFlight(c.Tx, CollectionQROrders, o.ID)
	// The payment answer carries exactly the fields the specification lists
	// for the QR payment order; ledger_scale is an addition of the inferred
	// GET /v1/qrpay/orders/{id} only.
	out := o.json()
	delete(out, "ledger_scale")
	return http.StatusCreated, out, nil
}

func (s *Simulator) qrGetOrder(c *rc) (int, any, error) {
	o := s.qr.orders[qrOrderID(c.PathID())]
	if o == nil || o.MemberID != c.Member.ID {
		return 0, nil, errNotFound("qrpay order")
	}
	return http.StatusOK, o.json(), nil
}
