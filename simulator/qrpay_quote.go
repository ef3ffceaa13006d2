package simulator

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
)

// qrRefusal is an upstream-stage refusal, answered differently by quotes
// (400 codes) and payments (the contract's 500 api_error for business
// failures, 400 for the rest).
type qrRefusal struct {
	quote error
	pay   error
}

// qrUpstreamChecks are the checks the upstream applies when pricing a code
// for a member, in order. nil means the code can be priced.
func (s *Simulator) qrUpstreamChecks(m *member, in *qrInput) *qrRefusal {
	q := in.code
	switch {
	case q.has(QRScenarioReject):
		e := newErr("qr_code_invalid", "the QR code cannot be used")
		return &qrRefusal{quote: e, pay: e}
	case q.has(QRScenarioUpstreamError):
		return &qrRefusal{
			quote: newErr("upstream_error", "the upstream is unavailable; no funds moved, retrying unchanged is safe"),
			pay:   newErr("service_unavailable", "the QR payment line is temporarily unavailable"),
		}
	case m.KYCLevel < qrLineKYCLevel:
		return &qrRefusal{
			quote: newErr("kyc_required", fmt.Sprintf("the QR line requires KYC level %d", qrLineKYCLevel)),
			pay:   errBusiness500("KYC threshold: the member's KYC level is below the line's requirement"),
		}
	case q.has(QRScenarioCorridor) || s.qr.fiatUSD[in.currency] == nil:
		return &qrRefusal{
			quote: newErr("corridor_not_supported", "the payment corridor cannot be served"),
			pay:   errBusiness500("corridor unavailable"),
		}
	}
	if lo, hi := q.rangeLimits(); lo != nil && (in.amountValue.Cmp(lo) < 0 || in.amountValue.Cmp(hi) > 0) {
		return &qrRefusal{
			quote: newErr("amount_out_of_range", fmt.Sprintf("amount outside the code's range %s to %s", lo.Text('f'), hi.Text('f'))),
			pay:   errBusiness500("amount outside the code's range"),
		}
	}
	return nil
}

// qrCtx returns a fresh context for rate arithmetic: enough precision that
// the divisions of the rate table are exact. Each call gets its own copy, so
// parallel simulators share nothing.
func qrCtx() *apd.Context { return apd.BaseContext.WithPrecision(60) }

// qrUpstreamQuote asks the upstream to price in (one outbound call).
func (s *Simulator) qrUpstreamQuote(tx *kernel.Tx, in *qrInput, now time.Time) (*qrUpstreamQuote, error) {
	fiat := s.qr.fiatUSD[in.currency]
	uq := &qrUpstreamQuote{
		ID: "uq_" + s.newUUID(), CreatedAt: now, ExpiresAt: now.Add(qrUpstreamQuoteTTL),
		Payee: in.code.payee(), Currency: in.currency, Amount: in.amount, AmountValue: in.amountValue,
		Upstream: map[string]money.Amount{},
	}
	var usd apd.Decimal
	if _, err := qrCtx().Mul(&usd, in.amountValue, fiat); err != nil {
		return nil, err
	}
	for _, a := range s.cat.all() {
		price := s.qr.assetUSD[a.Code]
		if price == nil || (a.Code == "ETH" && qrNoETH[in.currency]) {
			continue
		}
		var x apd.Decimal
		if _, err := qrCtx().Quo(&x, &usd, price); err != nil {
			return nil, err
		}
		amt, err := ceilAmount(&x, a.LedgerScale)
		if err != nil {
			return nil, err
		}
		uq.Upstream[a.Code] = amt
	}
	s.qr.stats.Quotes++
	return uq, nil
}

// qrBlockedReason is why a payment with plan p would be refused ("" when no
// known block). Limits count the principal only.
func (s *Simulator) qrBlockedReason(m *member, in *qrInput, p qrPlan, now time.Time) string {
	usd := p.PrincipalUSD
	l := s.qr.limits
	switch {
	case m.Status == "frozen":
		return "account_frozen"
	case m.FundsProtected:
		return "funds_protected"
	case memberRestriction(m) != "" || in.code.has(QRScenarioBlocked):
		return "member_blocked"
	case usd.Cmp(l.min) < 0:
		return "below_minimum"
	case usd.Cmp(l.maxPerTx) > 0:
		return "limit_single"
	}
	var day apd.Decimal
	day.Set(usd)
	y, mo, d := now.Date()
	for _, o := range s.qr.list {
		if o.MemberID != m.ID || o.Status == "failed" {
			continue
		}
		if oy, om, od := o.CreatedAt.Date(); oy == y && om == mo && od == d {
			_, _ = qrCtx().Add(&day, &day, o.PrincipalUSD)
		}
	}
	switch {
	case day.Cmp(l.daily) > 0:
		return "limit_daily"
	case usd.Cmp(l.kyc2) > 0 && m.KYCLevel < 2:
		return "kyc_threshold"
	}
	return ""
}

// qrBlockedMessages are the 500 api_error messages of payments refused for a
// blocked reason.
var qrBlockedMessages = map[string]string{
	"account_frozen":  "member account frozen",
	"funds_protected": "card funds protected",
	"member_blocked":  "member blocklisted",
	"below_minimum":   "amount below the line minimum",
	"limit_single":    "per-transaction maximum exceeded",
	"limit_daily":     "daily amount exceeded",
	"kyc_threshold":   "KYC threshold: the amount needs a higher KYC level",
}

func (s *Simulator) qrDecode(c *rc) (int, any, error) {
	var req struct {
		CodeValue *string `json:"code_value"`
	}
	if err := c.Decode(&req); err != nil {
		return 0, nil, err
	}
	if req.CodeValue == nil || *req.CodeValue == "" {
		return 0, nil, errInvalidRequest("code_value is required")
	}
	if s.qr.disabled {
		return 0, nil, newErr("service_unavailable", "the QR payment line is temporarily unavailable")
	}
	q, err := s.parseCode(*req.CodeValue)
	if err != nil {
		return 0, nil, err
	}
	switch {
	case q.has(QRScenarioReject):
		return 0, nil, newErr("qr_code_invalid", "the QR code cannot be used")
	case q.has(QRScenarioUpstreamError):
		return 0, nil, newErr("service_unavailable", "the QR payment line is temporarily unavailable")
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
	if q.has(QRScenarioPayerFields) {
		out["required_payer_fields"] = append([]string(nil), qrPayerFields...)
	}
	return http.StatusOK, out, nil
}

func (s *Simulator) qrQuote(c *rc) (int, any, error) {
	// A body off the wire format is refused before the quota counts it.
	if err := c.Decode(&qrRequest{}); err != nil {
		return 0, nil, err
	}
	// Rate limit first: every quote request that reaches it counts.
	win := s.qr.window[c.Member.ID]
	cut := 0
	for cut < len(win) && !win[cut].After(c.Now.Add(-qrQuoteWindow)) {
		cut++
	}
	win = win[cut:]
	if len(win) >= qrQuotesPerWindow {
		s.qr.window[c.Member.ID] = win
		wait := win[0].Add(qrQuoteWindow).Sub(c.Now)
		secs := int((wait + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		c.Header.Set("Retry-After", strconv.Itoa(secs))
		return 0, nil, newErr("rate_limited", fmt.Sprintf("at most %d quotes per member per %d seconds", qrQuotesPerWindow, int(qrQuoteWindow/time.Second))).
			With("retry_after", secs)
	}
	s.qr.window[c.Member.ID] = append(win, c.Now)

	in, err := s.qrValidate(c)
	if err != nil {
		return 0, nil, err
	}
	if r := s.qrUpstreamChecks(c.Member, in); r != nil {
		return 0, nil, r.quote
	}
	if in.code.has(QRScenarioPayerFields) {
		return 0, nil, newErr("product_not_available", "this code needs payer data (required_payer_fields) and cannot be quoted; pay it with a payer object")
	}
	key := strings.Join([]string{c.Member.ID, in.code.value, in.sentCurrency, in.sentAmount}, "\x00")
	uq := s.qr.memo[key]
	if uq == nil || !c.Now.Before(uq.CreatedAt.Add(qrQuoteMemo)) {
		if uq, err = s.qrUpstreamQuote(c.Tx, in, c.Now); err != nil {
			return 0, nil, err
		}
		s.qr.memo[key] = uq
		s.gw.qrMemoQ.push(key, uq.CreatedAt.Add(qrQuoteMemo))
	}
	opts, err := s.qrOptions(c.Member, in, uq)
	if err != nil {
		return 0, nil, err
	}
	if in.preferred != "" {
		if _, ok := qrChoose(c.Member, in, opts); !ok {
			return 0, nil, errInvalidFields(fmt.Sprintf("preferred_asset %q has no upstream quote; options lists the valid assets", in.preferred), "preferred_asset")
		}
	}
	chosen, ok := qrChoose(c.Member, in, opts)
	if !ok {
		if in.merchantFunded {
			return 0, nil, newErr("service_unavailable", "the QR payment line is temporarily unavailable")
		}
		return 0, nil, newErr("insufficient_balance", "no asset of the member covers this payment")
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
		"blocked_reason":    s.qrBlockedReason(c.Member, in, chosen, c.Now),
	}
	if in.merchantFunded {
		out["fee_asset"] = chosen.FeeAsset
		out["fee_amount"] = chosen.FeeAmount.String()
		out["fee_ledger_scale"] = chosen.FeeScale
	}
	return http.StatusOK, out, nil
}
