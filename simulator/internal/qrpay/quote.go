package qrpay

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// refusal is an upstream-stage refusal, answered differently by quotes
// (400 codes) and payments (the contract's 500 api_error for business
// failures, 400 for the rest).
type refusal struct {
	quote error
	pay   error
}

// upstreamChecks are the checks the upstream applies when pricing a code
// for a member, in order. nil means the code can be priced.
func (l *Line) upstreamChecks(tx *kernel.Tx, m *api.Member, in *input) *refusal {
	q := in.code
	switch {
	case q.has(ScenarioReject):
		e := api.NewErr("qr_code_invalid", "the QR code cannot be used")
		return &refusal{quote: e, pay: e}
	case q.has(ScenarioUpstreamError):
		return &refusal{
			quote: api.NewErr("upstream_error", "the upstream is unavailable; no funds moved, retrying unchanged is safe"),
			pay:   api.NewErr("service_unavailable", "the QR payment line is temporarily unavailable"),
		}
	case m.KYCLevel < qrLineKYCLevel:
		return &refusal{
			quote: api.NewErr("kyc_required", fmt.Sprintf("the QR line requires KYC level %d", qrLineKYCLevel)),
			pay:   api.Business500("KYC threshold: the member's KYC level is below the line's requirement"),
		}
	case q.has(ScenarioCorridor) || !l.st.fiatUSD.Has(tx, in.currency):
		return &refusal{
			quote: api.NewErr("corridor_not_supported", "the payment corridor cannot be served"),
			pay:   api.Business500("corridor unavailable"),
		}
	}
	if lo, hi := q.rangeLimits(); lo != nil && (in.amountValue.Cmp(lo) < 0 || in.amountValue.Cmp(hi) > 0) {
		return &refusal{
			quote: api.NewErr("amount_out_of_range", fmt.Sprintf("amount outside the code's range %s to %s", lo.Text('f'), hi.Text('f'))),
			pay:   api.Business500("amount outside the code's range"),
		}
	}
	return nil
}

// rateCtx returns a fresh context for rate arithmetic: enough precision that
// the divisions of the rate table are exact. Each call gets its own copy, so
// parallel simulators share nothing.
func rateCtx() *apd.Context { return apd.BaseContext.WithPrecision(60) }

// quoteUpstream asks the upstream to price in (one outbound call). The
// call happened whatever the request it serves answers: the upstream
// order's id and the count of upstream calls survive its refusal
// (Tx.Keep).
func (l *Line) quoteUpstream(tx *kernel.Tx, in *input, now time.Time) (*upstreamQuote, error) {
	fiat := rate(tx, l.st.fiatUSD, in.currency)
	var id string
	tx.Keep(func() { id = "uq_" + tx.NewUUID() })
	uq := &upstreamQuote{
		ID: id, CreatedAt: now, ExpiresAt: now.Add(qrUpstreamQuoteTTL),
		Payee: in.code.payee(), Currency: in.currency, Amount: in.amount, AmountValue: in.amountValue,
		Upstream: map[string]money.Amount{},
	}
	var usd apd.Decimal
	if _, err := rateCtx().Mul(&usd, in.amountValue, fiat); err != nil {
		return nil, err
	}
	for _, a := range tx.Assets() {
		price := rate(tx, l.st.assetUSD, a.Code)
		if price == nil || (a.Code == "ETH" && qrNoETH[in.currency]) {
			continue
		}
		var x apd.Decimal
		if _, err := rateCtx().Quo(&x, &usd, price); err != nil {
			return nil, err
		}
		amt, err := l.ceilAmount(tx, &x, a.Code, a.LedgerScale)
		if err != nil {
			return nil, err
		}
		uq.Upstream[a.Code] = amt
	}
	tx.Keep(func() { l.st.stats.Update(tx, func(s *UpstreamStats) { s.Quotes++ }) })
	return uq, nil
}

// blockedReason is why a payment with plan p would be refused ("" when no
// known block). Limits count the principal only.
func (l *Line) blockedReason(tx *kernel.Tx, m *api.Member, in *input, p plan, now time.Time) string {
	usd := decimal(p.PrincipalUSD)
	lim := lineLimits()
	switch {
	case m.Status == "frozen":
		return "account_frozen"
	case m.FundsProtected:
		return "funds_protected"
	case m.Restricted() || in.code.has(ScenarioBlocked):
		return "member_blocked"
	case usd.Cmp(lim.min) < 0:
		return "below_minimum"
	case usd.Cmp(lim.maxPerTx) > 0:
		return "limit_single"
	}
	var day apd.Decimal
	day.Set(usd)
	y, mo, d := now.Date()
	for _, o := range l.st.list.All(tx) {
		if o.MemberID != m.ID || o.Status == "failed" {
			continue
		}
		if oy, om, od := o.CreatedAt.Date(); oy == y && om == mo && od == d {
			_, _ = rateCtx().Add(&day, &day, decimal(o.Plan.PrincipalUSD))
		}
	}
	switch {
	case day.Cmp(lim.daily) > 0:
		return "limit_daily"
	case usd.Cmp(lim.kyc2) > 0 && m.KYCLevel < 2:
		return "kyc_threshold"
	}
	return ""
}

// blockedMessages are the 500 api_error messages of payments refused for a
// blocked reason.
var blockedMessages = map[string]string{
	"account_frozen":  "member account frozen",
	"funds_protected": "card funds protected",
	"member_blocked":  "member blocklisted",
	"below_minimum":   "amount below the line minimum",
	"limit_single":    "per-transaction maximum exceeded",
	"limit_daily":     "daily amount exceeded",
	"kyc_threshold":   "KYC threshold: the amount needs a higher KYC level",
}

func (l *Line) decode(c *api.Request) (int, any, error) {
	var req struct {
		CodeValue *string `json:"code_value"`
	}
	if err := c.Decode(&req); err != nil {
		return 0, nil, err
	}
	if req.CodeValue == nil || *req.CodeValue == "" {
		return 0, nil, api.InvalidRequest("code_value is required")
	}
	if l.st.disabled.Get(c.Tx) {
		return 0, nil, api.NewErr("service_unavailable", "the QR payment line is temporarily unavailable")
	}
	q, err := l.parseCode(c.Tx, *req.CodeValue)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case q.has(ScenarioReject):
		return 0, nil, api.NewErr("qr_code_invalid", "the QR code cannot be used")
	case q.has(ScenarioUpstreamError):
		return 0, nil, api.NewErr("service_unavailable", "the QR payment line is temporarily unavailable")
	}
	out := map[string]any{
		"payee":                 q.payee(),
		"currency":              q.currency.Alpha,
		"amount":                q.payload.FixedAmount(),
		"amount_editable":       q.payload.AmountEditable(),
		"min_amount":            "",
		"max_amount":            "",
		"required_payer_fields": []string{},
	}
	if lo, hi := q.rangeLimits(); lo != nil {
		out["min_amount"] = lo.Text('f')
		out["max_amount"] = hi.Text('f')
	}
	if q.has(ScenarioPayerFields) {
		out["required_payer_fields"] = append([]string(nil), qrPayerFields...)
	}
	return http.StatusOK, out, nil
}

func (l *Line) quote(c *api.Request) (int, any, error) {
	// A body off the wire format is refused before the quota counts it.
	if err := c.Decode(&request{}); err != nil {
		return 0, nil, err
	}
	// Rate limit first: every quote request that reaches it counts, and
	// the count survives the refusal of the request (Tx.Keep).
	win, _ := l.st.window.Get(c.Tx, c.Member.ID)
	cut := 0
	for cut < win.Len() && !win.At(cut).After(c.Now.Add(-qrQuoteWindow)) {
		cut++
	}
	win = win.From(cut)
	if win.Len() >= qrQuotesPerWindow {
		c.Tx.Keep(func() { l.st.window.Put(c.Tx, c.Member.ID, win) })
		wait := win.At(0).Add(qrQuoteWindow).Sub(c.Now)
		secs := int((wait + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		c.Header.Set("Retry-After", strconv.Itoa(secs))
		return 0, nil, api.NewErr("rate_limited", fmt.Sprintf("at most %d quotes per member per %d seconds", qrQuotesPerWindow, int(qrQuoteWindow/time.Second))).
			With("retry_after", secs)
	}
	c.Tx.Keep(func() { l.st.window.Put(c.Tx, c.Member.ID, win.Append(c.Now)) })

	in, err := l.validate(c)
	if err != nil {
		return 0, nil, err
	}
	if r := l.upstreamChecks(c.Tx, c.Member, in); r != nil {
		return 0, nil, r.quote
	}
	if in.code.has(ScenarioPayerFields) {
		return 0, nil, api.NewErr("product_not_available", "this code needs payer data (required_payer_fields) and cannot be quoted; pay it with a payer object")
	}
	key := strings.Join([]string{c.Member.ID, in.code.value, in.sentCurrency, in.sentAmount}, "\x00")
	var uq *upstreamQuote
	if r, ok := l.st.memo.Get(c.Tx, key); ok && c.Now.Before(r.CreatedAt.Add(qrQuoteMemo)) {
		uq = r.quote()
	} else {
		if uq, err = l.quoteUpstream(c.Tx, in, c.Now); err != nil {
			return 0, nil, err
		}
		// The upstream order is kept 60 seconds, whatever this request
		// answers.
		c.Tx.Keep(func() {
			l.st.memo.Put(c.Tx, key, uq.row())
			c.Tx.ExpireAt(MemoWindow, key, uq.CreatedAt.Add(qrQuoteMemo))
		})
	}
	opts, err := l.options(c.Tx, c.Member, in, uq)
	if err != nil {
		return 0, nil, err
	}
	if in.preferred != "" {
		if _, ok := choose(c.Member, in, opts); !ok {
			return 0, nil, api.InvalidFields(fmt.Sprintf("preferred_asset %q has no upstream quote; options lists the valid assets", in.preferred), "preferred_asset")
		}
	}
	chosen, ok := choose(c.Member, in, opts)
	if !ok {
		if in.merchantFunded {
			return 0, nil, api.NewErr("service_unavailable", "the QR payment line is temporarily unavailable")
		}
		return 0, nil, api.NewErr("insufficient_balance", "no asset of the member covers this payment")
	}
	items := make([]map[string]any, 0, len(opts))
	for _, p := range opts {
		items = append(items, p.json())
	}
	out := map[string]any{
		"payee":             uq.Payee,
		"acquirer_currency": uq.Currency,
		"acquirer_amount":   uq.Amount,
		"expires_at":        uq.ExpiresAt.UTC().Format(time.RFC3339),
		"chosen":            chosen.json(),
		"options":           items,
		"blocked_reason":    l.blockedReason(c.Tx, c.Member, in, chosen, c.Now),
	}
	if in.merchantFunded {
		out["fee_asset"] = chosen.FeeAsset
		out["fee_amount"] = chosen.FeeAmount.String()
		out["fee_ledger_scale"] = chosen.FeeScale
	}
	return http.StatusOK, out, nil
}
