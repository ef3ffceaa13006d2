package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
)

// qrRequest is the body of quotes and payments. Pointers tell "absent" from
// "empty".
type qrRequest struct {
	FundingSource  *string         `json:"funding_source"`
	CodeValue      *string         `json:"code_value"`
	Currency       *string         `json:"currency"`
	Amount         *string         `json:"amount"`
	PreferredAsset *string         `json:"preferred_asset"`
	Payer          json.RawMessage `json:"payer"`
}

// qrInput is a validated quote or payment request.
type qrInput struct {
	code           *qrCode
	merchantFunded bool
	sentCurrency   string // as sent ("" when absent), for the memo key
	sentAmount     string // normalized amount as sent ("" when absent)
	currency       string // acquirer currency (alphabetic)
	amount         string // acquirer amount printed with the currency's minor units
	amountValue    *apd.Decimal
	preferred      string // "" when absent
	payer          map[string]string
}

// qrValidate checks a quote or payment body: everything that needs no
// upstream and changes nothing. The errors are the 400s of the contract.
func (s *Simulator) qrValidate(c *rc) (*qrInput, error) {
	var req qrRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	if req.CodeValue == nil || *req.CodeValue == "" {
		return nil, errInvalidRequest("code_value is required")
	}
	in := &qrInput{}
	// funding_source: merchant_hosted accounts must send merchant; member (or
	// nothing) only on platform_hosted accounts, as on the other lines.
	fs := ""
	if req.FundingSource != nil {
		fs = *req.FundingSource
	}
	switch {
	case s.merchant.Model == MerchantHosted && fs != "merchant":
		return nil, errInvalidFields("merchant_hosted accounts must send funding_source merchant", "funding_source")
	case s.merchant.Model == MerchantHosted:
		in.merchantFunded = true
	case fs != "" && fs != "member":
		return nil, errInvalidFields("funding_source must be member (or omitted) on platform_hosted accounts", "funding_source")
	}
	if req.PreferredAsset != nil {
		if *req.PreferredAsset == "" {
			return nil, errInvalidRequest("preferred_asset is empty")
		}
		in.preferred = *req.PreferredAsset
	}
	payer, err := qrPayer(req.Payer)
	if err != nil {
		return nil, err
	}
	in.payer = payer
	if s.qr.disabled {
		return nil, newErr("service_unavailable", "the QR payment line is temporarily unavailable")
	}
	q, err := s.parseCode(*req.CodeValue)
	if err != nil {
		return nil, err
	}
	in.code = q
	minor := q.currency.MinorUnits
	if !q.payload.AmountEditable() {
		var keys []string
		if req.Currency != nil {
			keys = append(keys, "currency")
		}
		if req.Amount != nil {
			keys = append(keys, "amount")
		}
		if len(keys) > 0 {
			return nil, errInvalidFields("currency and amount are only for custom-amount codes; this code carries its amount", keys...)
		}
		v, text, ok := fiatAmount(q.payload.Amount, minor)
		if !ok {
			return nil, newErr("qr_code_invalid", "the QR code cannot be used")
		}
		in.currency, in.amount, in.amountValue = q.currency.Alpha, text, v
		return in, nil
	}
	if req.Amount == nil || *req.Amount == "" {
		return nil, errInvalidRequest("amount is required for custom-amount codes (amount_editable true)")
	}
	v, text, ok := fiatAmount(*req.Amount, minor)
	if !ok {
		return nil, errInvalidRequest(fmt.Sprintf("amount %q: want a positive decimal string with at most %d decimals", *req.Amount, minor))
	}
	if req.Currency != nil {
		if *req.Currency == "" {
			return nil, errInvalidRequest("currency is empty")
		}
		if *req.Currency != q.currency.Alpha {
			return nil, errInvalidFields(fmt.Sprintf("currency %q does not match the code's currency", *req.Currency), "currency")
		}
		in.sentCurrency = *req.Currency
	}
	in.sentAmount = text
	in.currency, in.amount, in.amountValue = q.currency.Alpha, text, v
	return in, nil
}

// qrPayer reads the payer object: string values only; unknown keys are
// dropped, never forwarded.
func qrPayer(raw json.RawMessage) (map[string]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errInvalidRequest("payer must be an object of strings")
	}
	out := map[string]string{}
	for k, v := range m {
		sv, ok := v.(string)
		if !ok {
			return nil, errInvalidRequest(fmt.Sprintf("payer.%s must be a string", k))
		}
		if qrPayerKeys[k] {
			out[k] = sv
		}
	}
	return out, nil
}

// fiatAmount parses a positive plain decimal with at most minor decimals and
// prints it with exactly minor decimals.
func fiatAmount(s string, minor int) (*apd.Decimal, string, bool) {
	if len(s) == 0 || len(s) > 16 {
		return nil, "", false
	}
	ip, fp, dot := strings.Cut(s, ".")
	if ip == "" || !qrDigits(ip) || (dot && (fp == "" || !qrDigits(fp))) {
		return nil, "", false
	}
	if len(fp) > minor {
		if strings.Trim(fp[minor:], "0") != "" {
			return nil, "", false
		}
		fp = fp[:minor]
	}
	d, _, err := apd.NewFromString(ip + "." + fp + "0")
	if err != nil || d.Sign() <= 0 {
		return nil, "", false
	}
	var q apd.Decimal
	if _, err := apd.BaseContext.WithPrecision(40).Quantize(&q, d, -int32(minor)); err != nil {
		return nil, "", false
	}
	return &q, q.Text('f'), true
}

func qrDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

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

// qrUpstreamQuoteLocked asks the upstream to price in (one outbound call).
func (s *Simulator) qrUpstreamQuoteLocked(in *qrInput, now time.Time) (*qrUpstreamQuote, error) {
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
	for _, a := range s.assets {
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

// ceilAmount rounds a non-negative decimal up to scale decimals.
func ceilAmount(d *apd.Decimal, scale int) (money.Amount, error) {
	var q apd.Decimal
	c := qrCtx()
	c.Rounding = apd.RoundCeiling
	if _, err := c.Quantize(&q, d, -int32(scale)); err != nil {
		return money.Amount{}, err
	}
	return money.Parse(q.Text('f'), scale)
}

// qrPlan is the debit plan of one asset: what the member (or the merchant
// prepaid account) pays in it.
type qrPlan struct {
	Asset         string
	Scale         int
	DisplayScale  int
	Principal     money.Amount // upstream amount plus cost protection
	Fee           money.Amount // the fee inside CustomerTotal (zero when charged in another asset)
	CustomerTotal money.Amount
	// Merchant-funded plans: the fee asset and amount.
	MerchantFunded bool
	FeeAsset       string
	FeeAmount      money.Amount
	FeeScale       int
	Sufficient     bool
	PrincipalUSD   *apd.Decimal
}

// principal is the upstream amount plus cost protection, rounded up.
func qrPrincipal(u money.Amount) (money.Amount, error) {
	prem, err := u.MulRatio(qrPremiumBps, 10000, money.RoundUp)
	if err != nil {
		return money.Amount{}, err
	}
	return u.Add(prem)
}

// qrPlanFor prices asset for the member (member-funded) or for the merchant
// prepaid account (merchant-funded). Balances decide only Sufficient and
// the fee asset; they are never returned.
func (s *Simulator) qrPlanFor(m *member, merchantFunded bool, uq *qrUpstreamQuote, asset string) (qrPlan, error) {
	a := s.assetByCode[asset]
	p := qrPlan{Asset: asset, Scale: a.LedgerScale, DisplayScale: a.DisplayScale, MerchantFunded: merchantFunded}
	var err error
	if p.Principal, err = qrPrincipal(uq.Upstream[asset]); err != nil {
		return p, err
	}
	var usd apd.Decimal
	if _, err := qrCtx().Mul(&usd, p.Principal.Decimal(), s.qr.assetUSD[asset]); err != nil {
		return p, err
	}
	p.PrincipalUSD = &usd
	if !merchantFunded {
		if p.Fee, err = p.Principal.MulRatio(qrMemberFeeBps, 10000, money.RoundUp); err != nil {
			return p, err
		}
		if p.CustomerTotal, err = p.Principal.Add(p.Fee); err != nil {
			return p, err
		}
		p.Sufficient = s.ledger.Balance(MemberAvailable(m.ID), asset).Cmp(p.CustomerTotal) >= 0
		return p, nil
	}
	// Merchant funded: the fee is the principal times the merchant fee rate,
	// at least 0.01 when the rate is not zero, charged in USDT unless the USDT
	// left after any USDT principal cannot cover it, then wholly in USDC.
	bal := func(code string) money.Amount { return s.ledger.Balance(AccountMerchantPrepaid, code) }
	feeIn := func(code string) (money.Amount, error) {
		fa := s.assetByCode[code]
		if fa == nil {
			return money.Amount{}, fmt.Errorf("fee asset %s is not in the catalogue", code)
		}
		if s.merchant.FeeRateBps == 0 {
			return money.Zero(fa.LedgerScale), nil
		}
		base, ok := uq.Upstream[code]
		if !ok {
			return money.Amount{}, fmt.Errorf("no %s price for the fee", code)
		}
		pr, err := qrPrincipal(base)
		if err != nil {
			return money.Amount{}, err
		}
		f, err := pr.MulRatio(s.merchant.FeeRateBps, 10000, money.RoundUp)
		if err != nil {
			return money.Amount{}, err
		}
		minFee, err := money.Parse("0.01", fa.LedgerScale)
		if err != nil {
			return money.Amount{}, err
		}
		if f.Cmp(minFee) < 0 {
			f = minFee
		}
		return f, nil
	}
	// need is what the prepaid account must hold in code for this plan.
	covers := func(code string, fee money.Amount) bool {
		need := fee
		if code == asset {
			var err error
			if need, err = need.Add(p.Principal); err != nil {
				return false
			}
		}
		return bal(code).Cmp(need) >= 0
	}
	p.FeeAsset = "USDT"
	if p.FeeAmount, err = feeIn("USDT"); err != nil {
		return p, err
	}
	if !p.FeeAmount.IsZero() && !covers("USDT", p.FeeAmount) {
		if usdc, err := feeIn("USDC"); err == nil && covers("USDC", usdc) {
			p.FeeAsset, p.FeeAmount = "USDC", usdc
		}
	}
	p.FeeScale = s.assetByCode[p.FeeAsset].LedgerScale
	if p.FeeAsset == asset {
		p.Fee = p.FeeAmount
	} else {
		p.Fee = money.Zero(p.Scale)
	}
	if p.CustomerTotal, err = p.Principal.Add(p.Fee); err != nil {
		return p, err
	}
	p.Sufficient = bal(asset).Cmp(p.CustomerTotal) >= 0
	if p.FeeAsset != asset {
		p.Sufficient = p.Sufficient && bal(p.FeeAsset).Cmp(p.FeeAmount) >= 0
	}
	return p, nil
}

func (p qrPlan) json() map[string]any {
	m := map[string]any{
		"asset": p.Asset, "ledger_scale": p.Scale, "display_scale": p.DisplayScale,
		"customer_total": p.CustomerTotal.String(), "fee": p.Fee.String(), "sufficient": p.Sufficient,
	}
	if p.MerchantFunded {
		m["fee_asset"] = p.FeeAsset
		m["fee_amount"] = p.FeeAmount.String()
		m["fee_ledger_scale"] = p.FeeScale
	}
	return m
}

// qrOptions prices every asset the upstream quoted that is enabled here,
// in catalogue order.
func (s *Simulator) qrOptions(m *member, in *qrInput, uq *qrUpstreamQuote) ([]qrPlan, error) {
	var out []qrPlan
	for _, a := range s.assets {
		if _, quoted := uq.Upstream[a.Code]; !quoted || !a.Enabled {
			continue
		}
		if len(s.merchant.AssetAllowlist) > 0 && !s.merchant.AssetAllowlist[a.Code] {
			continue
		}
		p, err := s.qrPlanFor(m, in.merchantFunded, uq, a.Code)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// qrChoose picks the plan to debit: the preferred asset when given (ok false
// when it was not quoted), the merchant-funded default USDT, or the first
// sufficient asset of the member's payment priority (ok false when none).
func qrChoose(m *member, in *qrInput, opts []qrPlan) (qrPlan, bool) {
	find := func(code string) (qrPlan, bool) {
		for _, p := range opts {
			if p.Asset == code {
				return p, true
			}
		}
		return qrPlan{}, false
	}
	if in.preferred != "" {
		return find(in.preferred)
	}
	if in.merchantFunded {
		return find("USDT")
	}
	for _, code := range m.PaymentPriority {
		if p, ok := find(code); ok && p.Sufficient {
			return p, true
		}
	}
	return qrPlan{}, false
}

// qrBlockedReason is why a payment with plan p would be refused ("" when no
// known block). Limits count the principal only.
func (s *Simulator) qrBlockedReason(m *member, in *qrInput, p qrPlan, now time.Time) string {
	usd := p.PrincipalUSD
	l := s.qr.limits
	switch {
	case m.Status == "frozen":
		return "account_frozen"
	case in.code.has(QRScenarioBlocked):
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
	"account_frozen": "member account frozen",
	"member_blocked": "member blocklisted",
	"below_minimum":  "amount below the line minimum",
	"limit_single":   "per-transaction maximum exceeded",
	"limit_daily":    "daily amount exceeded",
	"kyc_threshold":  "KYC threshold: the amount needs a higher KYC level",
}

func (s *Simulator) qrDecode(c *rc) (int, any, error) {
	var req struct {
		CodeValue *string `json:"code_value"`
	}
	if err := c.decode(&req); err != nil {
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
		"amount":                q.payload.Amount,
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
	// Rate limit first: every quote request that reaches it counts.
	win := s.qr.window[c.member.ID]
	cut := 0
	for cut < len(win) && !win[cut].After(c.now.Add(-qrQuoteWindow)) {
		cut++
	}
	win = win[cut:]
	if len(win) >= qrQuotesPerWindow {
		s.qr.window[c.member.ID] = win
		wait := win[0].Add(qrQuoteWindow).Sub(c.now)
		secs := int((wait + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		c.header.Set("Retry-After", strconv.Itoa(secs))
		return 0, nil, newErr("rate_limited", fmt.Sprintf("at most %d quotes per member per %d seconds", qrQuotesPerWindow, int(qrQuoteWindow/time.Second))).
			with("retry_after", secs)
	}
	s.qr.window[c.member.ID] = append(win, c.now)

	in, err := s.qrValidate(c)
	if err != nil {
		return 0, nil, err
	}
	if r := s.qrUpstreamChecks(c.member, in); r != nil {
		return 0, nil, r.quote
	}
	if in.code.has(QRScenarioPayerFields) {
		return 0, nil, newErr("product_not_available", "this code needs payer data (required_payer_fields) and cannot be quoted; pay it with a payer object")
	}
	key := strings.Join([]string{c.member.ID, in.code.value, in.sentCurrency, in.sentAmount}, "\x00")
	uq := s.qr.memo[key]
	if uq == nil || !c.now.Before(uq.CreatedAt.Add(qrQuoteMemo)) {
		if uq, err = s.qrUpstreamQuoteLocked(in, c.now); err != nil {
			return 0, nil, err
		}
		s.qr.memo[key] = uq
	}
	opts, err := s.qrOptions(c.member, in, uq)
	if err != nil {
		return 0, nil, err
	}
	if in.preferred != "" {
		if _, ok := qrChoose(c.member, in, opts); !ok {
			return 0, nil, errInvalidFields(fmt.Sprintf("preferred_asset %q has no upstream quote; options lists the valid assets", in.preferred), "preferred_asset")
		}
	}
	chosen, ok := qrChoose(c.member, in, opts)
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
		"blocked_reason":    s.qrBlockedReason(c.member, in, chosen, c.now),
	}
	if in.merchantFunded {
		out["fee_asset"] = chosen.FeeAsset
		out["fee_amount"] = chosen.FeeAmount.String()
		out["fee_ledger_scale"] = chosen.FeeScale
	}
	return http.StatusOK, out, nil
}
