package qrpay

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// order is a QR payment order. Its USD value of principal is its plan's.
type order struct {
	Seq             int64  // creation sequence, the tie-break of lists (paginate.go)
	ID              string // qrp_<uuid>
	MemberID        string
	Status          string
	Version         int64 // status_version: 1 pending, then +1 per transition
	CreatedAt       time.Time
	Plan            plan
	Payee           string
	Currency        string
	Amount          string
	UpstreamQuoteID string
	// Payer is the payer data forwarded upstream (documented keys only,
	// sorted); PayerSet says the request had a payer object.
	Payer          kernel.List[payerField]
	PayerSet       bool
	NoticeTimedOut bool // the upstream notice timed out: recorded for reconciliation
	Trace          kernel.List[string]
	// From is where the funds were held from, Locked where they are held.
	From, Locked string
}

// payerField is one field of an order's payer data.
type payerField struct{ Key, Value string }

func (o order) key() api.PageKey { return api.PageKey{At: o.CreatedAt, Seq: o.Seq} }

// payerFields are payer data as an order keeps them.
func payerFields(payer map[string]string) kernel.List[payerField] {
	keys := make([]string, 0, len(payer))
	for k := range payer {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []payerField
	for _, k := range keys {
		out = append(out, payerField{k, payer[k]})
	}
	return kernel.ListOf(out...)
}

// transitions is the QR payment order state machine of the contract
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
var transitions = []struct {
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
func (o order) json() map[string]any {
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
func (p plan) separateFee() bool {
	return p.MerchantFunded && p.FeeAsset != p.Asset && !p.FeeAmount.IsZero()
}

// holdPostings move the whole debit from o.from to o.locked (sign +1) or
// back (sign -1).
func (o order) holdPostings(sign int) []kernel.Posting {
	p := o.Plan
	mv := func(asset string, amt money.Amount) []kernel.Posting {
		if sign < 0 {
			return []kernel.Posting{{Account: o.Locked, Asset: asset, Amount: amt.Neg()}, {Account: o.From, Asset: asset, Amount: amt}}
		}
		return []kernel.Posting{{Account: o.From, Asset: asset, Amount: amt.Neg()}, {Account: o.Locked, Asset: asset, Amount: amt}}
	}
	out := mv(p.Asset, p.CustomerTotal)
	if p.separateFee() {
		out = append(out, mv(p.FeeAsset, p.FeeAmount)...)
	}
	return out
}

// settlePostings release the held debit: the principal to the upstream and
// the fee to revenue.
func (o order) settlePostings(upstream, fees string) []kernel.Posting {
	p := o.Plan
	out := []kernel.Posting{
		{Account: o.Locked, Asset: p.Asset, Amount: p.CustomerTotal.Neg()},
		{Account: upstream, Asset: p.Asset, Amount: p.Principal},
	}
	if !p.Fee.IsZero() {
		out = append(out, kernel.Posting{Account: fees, Asset: p.Asset, Amount: p.Fee})
	}
	if p.separateFee() {
		out = append(out,
			kernel.Posting{Account: o.Locked, Asset: p.FeeAsset, Amount: p.FeeAmount.Neg()},
			kernel.Posting{Account: fees, Asset: p.FeeAsset, Amount: p.FeeAmount})
	}
	return out
}

// refundPostings return a completed order's whole debit, principal from the
// upstream and fee from revenue, to the available balance it came from.
func (o order) refundPostings(upstream, fees string) []kernel.Posting {
	p := o.Plan
	out := []kernel.Posting{
		{Account: upstream, Asset: p.Asset, Amount: p.Principal.Neg()},
		{Account: o.From, Asset: p.Asset, Amount: p.CustomerTotal},
	}
	if !p.Fee.IsZero() {
		out = append(out, kernel.Posting{Account: fees, Asset: p.Asset, Amount: p.Fee.Neg()})
	}
	if p.separateFee() {
		out = append(out,
			kernel.Posting{Account: fees, Asset: p.FeeAsset, Amount: p.FeeAmount.Neg()},
			kernel.Posting{Account: o.From, Asset: p.FeeAsset, Amount: p.FeeAmount})
	}
	return out
}

// action applies an upstream action to an order.
func (l *Line) action(tx *kernel.Tx, id, action string) (order, error) {
	o, ok := l.st.orders.Get(tx, OrderID(id))
	if !ok {
		return order{}, api.NotFound("qrpay order")
	}
	if err := l.transition(tx, o, action); err != nil {
		return order{}, err
	}
	o, _ = l.st.orders.Get(tx, o.ID)
	return o, nil
}

func (l *Line) transition(tx *kernel.Tx, o order, action string) error {
	for _, t := range transitions {
		if t.action != action || t.from != o.Status {
			continue
		}
		now := tx.Now()
		upstream, fees := kernel.UpstreamAccount(Upstream), kernel.AccountRevenueFees
		var err error
		switch action {
		case "complete":
			err = tx.Post(now, "qrpay complete "+o.ID, o.settlePostings(upstream, fees)...)
		case "fail":
			err = tx.Post(now, "qrpay fail "+o.ID, o.holdPostings(-1)...)
		case "refund":
			err = tx.Post(now, "qrpay refund "+o.ID, o.refundPostings(upstream, fees)...)
		case "timeout":
			o.NoticeTimedOut = true
		}
		if err != nil {
			return fmt.Errorf("qrpay %s %s: %w", action, o.ID, err)
		}
		o.Trace = o.Trace.Append(action)
		if t.to != o.Status {
			o.Status = t.to
			o.Version++
		}
		l.st.orders.Put(tx, o.ID, o)
		if t.to != "processing" {
			tx.Settled(o.ID)
		}
		if t.event != "" {
			tx.Emit(kernel.Event{Type: t.event, Object: "qrpay_order", ObjectID: strings.TrimPrefix(o.ID, "qrp_"),
				MemberID: o.MemberID, Status: o.Status, Version: o.Version})
		}
		return nil
	}
	return api.NewErr("state_invalid", fmt.Sprintf("qrpay order %s is %s; %s is not possible", o.ID, o.Status, action))
}

func (l *Line) pay(c *api.Request) (int, any, error) {
	in, err := l.validate(c)
	if err != nil {
		return 0, nil, err
	}
	// 1. Strong authentication, bound to the member and the code.
	if err := l.host.RequireStepUp(c, api.ActionDigest("qrpay", c.Member.ID, in.code.value)); err != nil {
		return 0, nil, err
	}
	trace := []string{"step_up"}
	// 2. A fresh upstream quote (never the quotes memo).
	if r := l.upstreamChecks(c.Tx, c.Member, in); r != nil {
		return 0, nil, r.pay
	}
	if in.code.has(ScenarioPayerFields) {
		var missing []string
		for _, k := range qrPayerFields {
			if strings.TrimSpace(in.payer[k]) == "" {
				missing = append(missing, "payer."+k)
			}
		}
		if len(missing) > 0 {
			return 0, nil, api.InvalidFields("the upstream requires payer data for this code", missing...)
		}
	}
	uq, err := l.quoteUpstream(c.Tx, in, c.Now)
	if err != nil {
		return 0, nil, err
	}
	trace = append(trace, "quote")
	opts, err := l.options(c.Tx, c.Member, in, uq)
	if err != nil {
		return 0, nil, err
	}
	plan, ok := choose(c.Member, in, opts)
	switch {
	case !ok && in.preferred != "":
		return 0, nil, api.Business500(fmt.Sprintf("no quote for preferred_asset %s", in.preferred))
	case (!ok || !plan.Sufficient) && in.merchantFunded:
		return 0, nil, api.NewErr("service_unavailable", "the QR payment line is temporarily unavailable")
	case !ok || !plan.Sufficient:
		return 0, nil, api.Business500("insufficient member balance")
	}
	if reason := l.blockedReason(c.Tx, c.Member, in, plan, c.Now); reason != "" {
		return 0, nil, api.Business500(blockedMessages[reason])
	}
	// 3. Hold the funds.
	o := order{
		Seq: c.Tx.NextSeq(), ID: "qrp_" + c.Tx.NewUUID(), MemberID: c.Member.ID, Status: "pending", Version: 1,
		CreatedAt: c.Now, Plan: plan, Payee: uq.Payee, Currency: uq.Currency, Amount: uq.Amount,
		UpstreamQuoteID: uq.ID, Payer: payerFields(in.payer), PayerSet: in.payer != nil,
	}
	o.From, o.Locked = kernel.MemberAvailable(c.Member.ID), kernel.MemberLocked(c.Member.ID)
	if plan.MerchantFunded {
		o.From, o.Locked = kernel.AccountMerchantPrepaid, kernel.AccountMerchantPrepaidLocked
	}
	if err := c.Tx.Post(c.Now, "qrpay hold "+o.ID, o.holdPostings(+1)...); err != nil {
		if errors.Is(err, kernel.ErrInsufficientFunds) {
			if plan.MerchantFunded {
				return 0, nil, api.NewErr("service_unavailable", "the QR payment line is temporarily unavailable")
			}
			return 0, nil, api.Business500("insufficient member balance")
		}
		return 0, nil, err
	}
	trace = append(trace, "hold")
	l.st.orders.Put(c.Tx, o.ID, o)
	// 4. Notify the upstream. A timed-out notice leaves the outcome unknown:
	// the order is processing and the funds stay held.
	l.st.stats.Update(c.Tx, func(s *UpstreamStats) { s.Notices++ })
	if in.code.has(ScenarioTimeout) {
		o.NoticeTimedOut = true
		trace = append(trace, "notice_timeout")
	} else {
		trace = append(trace, "notice")
	}
	o.Trace = kernel.ListOf(trace...)
	o.Status = "processing"
	o.Version++
	l.st.orders.Put(c.Tx, o.ID, o)
	c.Tx.InFlight(Collection, o.ID)
	// The payment answer carries exactly the fields the specification lists
	// for the QR payment order; ledger_scale is an addition of the inferred
	// GET /v1/qrpay/orders/{id} only.
	out := o.json()
	delete(out, "ledger_scale")
	return http.StatusCreated, out, nil
}

func (l *Line) getOrder(c *api.Request) (int, any, error) {
	o, ok := l.st.orders.Get(c.Tx, OrderID(c.PathID()))
	if !ok || o.MemberID != c.Member.ID {
		return 0, nil, api.NotFound("qrpay order")
	}
	return http.StatusOK, o.json(), nil
}
