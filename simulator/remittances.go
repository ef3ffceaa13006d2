package simulator

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/money"
)

// remitIdemWindow is the idempotency window of POST /v1/remittances.
const remitIdemWindow = 24 * time.Hour

// remitState is the remittance product line: payees, orders and the
// handler's own replay records.
type remitState struct {
	payeesOf  map[string][]*payee // by member id, oldest first
	payeeByID map[string]*payee   // by pye_ id
	nextPayee int64

	orders []*remitOrder // ascending by pageKey
	byID   map[string]*remitOrder
	byIdem map[string]*remitIdem // x-idempotency-key -> first success

	vpApps map[string]*vpApplication // by member id

	poboInactive bool // no active upstream subaccount for pobo
}

type payee struct {
	ID        string
	MemberID  string
	Country   string
	Currency  string
	Holder    string
	Account   string
	BankCode  string
	Status    string
	CreatedAt time.Time
}

func (p *payee) summary() string {
	a := p.Account
	if len(a) > 4 {
		a = a[len(a)-4:]
	}
	return p.Currency + " ****" + a
}

func payeeKey(p *payee) pageKey { return pageKey{At: p.CreatedAt, ID: p.ID} }

type remitIdem struct {
	hash    [32]byte
	orderID string
	at      time.Time
}

// remitOrder is one remittance order. Status is internal: the public form of
// pending_merchant_funds is pending.
type remitOrder struct {
	ID       string // rmt_<uuid>
	Member   *member
	Payee    *payee
	Line     string
	Status   string
	Version  int64
	Funding  string // member or merchant
	Asset    string
	Scale    int
	Slippage int

	Principal     money.Amount
	Fee           money.Amount
	CustomerTotal money.Amount
	Locked        money.Amount
	Settled       money.Amount

	PayoutCurrency string
	PayoutAmount   string
	Rate           string
	RateDealt      bool
	Purpose        string
	Reference      string
	FailureCode    string
	PayoutDate     string

	Held      bool
	HeldAt    time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

func remitKey(o *remitOrder) pageKey { return pageKey{At: o.CreatedAt, ID: o.ID} }

func (o *remitOrder) publicStatus() string {
	if o.Status == "pending_merchant_funds" {
		return "pending"
	}
	return o.Status
}

// accounts returns the account funds come from and the account they are held
// in while the order is in flight.
func (o *remitOrder) accounts() (from, held string) {
	if o.Funding == "merchant" {
		return AccountMerchantPrepaid, AccountMerchantPrepaidLocked
	}
	return MemberAvailable(o.Member.ID), MemberLocked(o.Member.ID)
}

func (s *Simulator) registerRemittances() {
	s.remit = &remitState{
		payeesOf: map[string][]*payee{}, payeeByID: map[string]*payee{}, nextPayee: 100000,
		byID: map[string]*remitOrder{}, byIdem: map[string]*remitIdem{}, vpApps: map[string]*vpApplication{},
	}
	s.register(endpoint{method: http.MethodPost, pattern: "/v1/remittances", member: true, idempotent: true, ownReplay: true, handle: s.createRemittance})
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/remittances", scope: "remittances:read", member: true, handle: s.listRemittances})
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/remittances/{id}", scope: "remittances:read", member: true, handle: s.getRemittance})
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/remit/payees", scope: "remittances:read", member: true, handle: s.listPayees})
	s.register(endpoint{method: http.MethodPost, pattern: "/v1/remit/payees", member: true, idempotent: true, handle: s.createPayee})
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/remit/quotes", scope: "remittances:read", member: true, handle: s.remitQuote})
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/remit/products", scope: "remittances:read", handle: s.remitProducts})
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/remit/conversion-dates", scope: "remittances:read", handle: s.remitConversionDates})
	s.register(endpoint{method: http.MethodPost, pattern: "/v1/remit/vp/applications/query", scope: "remittances:read", handle: s.queryVPApplications})
	for _, a := range []string{"dispatch", "complete", "fail", "refund", "needs_reconfirm", "advance"} {
		action := a
		s.actions["remittances/"+action] = func(id string, body []byte) (any, error) {
			o, err := s.remitActionLocked(id, action, body)
			if err != nil {
				return nil, err
			}
			return s.remitOrderJSON(o), nil
		}
	}
	s.actions["merchant/prepaid/topup"] = func(_ string, body []byte) (any, error) {
		var in struct {
			Asset  string `json:"asset"`
			Amount string `json:"amount"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, errInvalidRequest("body: " + err.Error())
		}
		if err := s.topUpPrepaidLocked(in.Asset, in.Amount); err != nil {
			return nil, err
		}
		asset := strings.ToUpper(in.Asset)
		return map[string]any{"asset": asset, "prepaid": s.ledger.Balance(AccountMerchantPrepaid, asset).String()}, nil
	}
}

// --- payees ---

// payeesOfLocked returns m's payees, creating the fixture payees (one per
// corridor) on first use, so members created at any time have them.
func (s *Simulator) payeesOfLocked(m *member) []*payee {
	if _, ok := s.remit.payeesOf[m.ID]; !ok {
		list := make([]*payee, 0, len(remitCorridors))
		for _, c := range remitCorridors {
			s.remit.nextPayee++
			p := &payee{
				ID: "pye_" + strconv.FormatInt(s.remit.nextPayee, 10), MemberID: m.ID, Country: c.Country, Currency: c.Currency,
				Holder: c.Holder, Account: c.Account, Status: "active", CreatedAt: m.CreatedAt,
			}
			list = append(list, p)
			s.remit.payeeByID[p.ID] = p
		}
		s.remit.payeesOf[m.ID] = list
	}
	return s.remit.payeesOf[m.ID]
}

// payeeOfLocked finds payee id (pye_<digits>) of m; nil when it does not
// exist or belongs to someone else.
func (s *Simulator) payeeOfLocked(m *member, id string) *payee {
	s.payeesOfLocked(m)
	p := s.remit.payeeByID[id]
	if p == nil || p.MemberID != m.ID {
		return nil
	}
	return p
}

func payeeJSON(p *payee) map[string]any {
	return map[string]any{
		"id": p.ID, "corridor": p.Country + "-" + p.Currency, "country": p.Country, "currency": p.Currency,
		"holder": p.Holder, "summary": p.summary(), "status": p.Status, "created_at": p.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// listPayees answers GET /v1/remit/payees, newest first. The response shape
// is inferred: the specification names this endpoint without showing its
// fields.
func (s *Simulator) listPayees(c *rc) (int, any, error) {
	items := s.payeesOfLocked(c.member)
	env := paginate(items, payeeKey, c.r.URL.Query())
	page := env.Data.([]*payee)
	out := make([]map[string]any, 0, len(page))
	for _, p := range page {
		out = append(out, payeeJSON(p))
	}
	env.Data = out
	return http.StatusOK, env, nil
}

// createPayee answers POST /v1/remit/payees with 201 and the payee, or
// invalid_fields with a key and a reason per refused field. The shapes are
// inferred: the specification names this endpoint without showing its fields.
func (s *Simulator) createPayee(c *rc) (int, any, error) {
	var in struct {
		Country       string `json:"country"`
		Currency      string `json:"currency"`
		HolderName    string `json:"holder_name"`
		AccountNumber string `json:"account_number"`
		BankCode      string `json:"bank_code"`
	}
	if err := c.decode(&in); err != nil {
		return 0, nil, err
	}
	country := strings.ToUpper(strings.TrimSpace(in.Country))
	currency := strings.ToUpper(strings.TrimSpace(in.Currency))
	holder := strings.TrimSpace(in.HolderName)
	account := strings.ReplaceAll(strings.TrimSpace(in.AccountNumber), " ", "")
	var bad []fieldReason
	switch {
	case country == "":
		bad = append(bad, fieldReason{"country", "required"})
	case !isAlpha(country, 2):
		bad = append(bad, fieldReason{"country", "must be an ISO 3166 alpha-2 code"})
	}
	switch {
	case currency == "":
		bad = append(bad, fieldReason{"currency", "required"})
	case !isAlpha(currency, 3):
		bad = append(bad, fieldReason{"currency", "must be an ISO 4217 alphabetic code"})
	default:
		if _, ok := isoMinorUnits[currency]; !ok {
			bad = append(bad, fieldReason{"currency", "currency not offered for payees"})
		}
	}
	switch {
	case holder == "":
		bad = append(bad, fieldReason{"holder_name", "required"})
	case utf8.RuneCountInString(holder) > 140:
		bad = append(bad, fieldReason{"holder_name", "at most 140 characters"})
	}
	switch {
	case account == "":
		bad = append(bad, fieldReason{"account_number", "required"})
	case len(account) < 4 || len(account) > 34 || !isAlnum(account):
		bad = append(bad, fieldReason{"account_number", "4 to 34 letters and digits"})
	}
	if len(in.BankCode) > 20 {
		bad = append(bad, fieldReason{"bank_code", "at most 20 characters"})
	}
	if len(bad) > 0 {
		return 0, nil, errInvalidFieldReasons("invalid payee fields", bad...)
	}
	for _, p := range s.payeesOfLocked(c.member) {
		if p.Currency == currency && strings.EqualFold(p.Account, account) {
			return 0, nil, newErr("duplicate_resource", "an identical payee exists")
		}
	}
	s.remit.nextPayee++
	p := &payee{
		ID: "pye_" + strconv.FormatInt(s.remit.nextPayee, 10), MemberID: c.member.ID, Country: country, Currency: currency,
		Holder: holder, Account: account, BankCode: in.BankCode, Status: "active", CreatedAt: c.now,
	}
	s.remit.payeeByID[p.ID] = p
	s.remit.payeesOf[c.member.ID] = insertByKey(s.remit.payeesOf[c.member.ID], p, payeeKey)
	return http.StatusCreated, payeeJSON(p), nil
}

func isAlpha(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// --- pricing ---

// remitPrice is the price of a remittance.
type remitPrice struct {
	Asset         string
	Scale         int
	Principal     money.Amount // payout / rate, rounded up at the asset scale
	Fee           money.Amount
	CustomerTotal money.Amount // principal + fee
	Locked        money.Amount // customer_total × (1 + bps/10000), rounded up
	Rate          string
}

// rateRatio returns num and den with 1/rate = num/den exactly, for an exact
// decimal rate such as "148.20" (num 100, den 14820).
func rateRatio(rate string) (num, den int64, err error) {
	intPart, frac, _ := strings.Cut(rate, ".")
	den, err = strconv.ParseInt(intPart+frac, 10, 64)
	if err != nil || den <= 0 {
		return 0, 0, fmt.Errorf("bad rate %q", rate)
	}
	num = 1
	for range frac {
		num *= 10
	}
	return num, den, nil
}

// price computes customer_total = payout / rate + fee, rounding the
// principal up to the asset's ledger scale, and locked_amount =
// customer_total × (1 + bps/10000), rounded up at the ledger scale.
func (s *Simulator) price(cor corridor, payout money.Amount, line remitLine, asset string, bps int) (remitPrice, error) {
	sc, _ := s.assetScale(asset)
	p, err := payout.Rescale(sc)
	if err != nil {
		return remitPrice{}, err
	}
	num, den, err := rateRatio(cor.Rate)
	if err != nil {
		return remitPrice{}, err
	}
	principal, err := p.MulRatio(num, den, money.RoundUp)
	if err != nil {
		return remitPrice{}, err
	}
	fee, err := s.amount(asset, line.Fee)
	if err != nil {
		return remitPrice{}, err
	}
	total, err := principal.Add(fee)
	if err != nil {
		return remitPrice{}, err
	}
	locked, err := total.MulRatio(int64(10000+bps), 10000, money.RoundUp)
	if err != nil {
		return remitPrice{}, err
	}
	return remitPrice{Asset: asset, Scale: sc, Principal: principal, Fee: fee, CustomerTotal: total, Locked: locked, Rate: cor.Rate}, nil
}

// remitRequest is a remittance request after the checks shared by create
// and quote.
type remitRequest struct {
	Payee    *payee
	Corridor corridor
	Payout   money.Amount
	Line     remitLine
	Asset    string
}

// checkPayeeID validates payee_id: optional pye_ prefix, then digits only.
func checkPayeeID(v string) (string, *apiError) {
	rest := strings.TrimPrefix(v, "pye_")
	if rest == "" {
		return "", errInvalidRequest("payee_id is required")
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", errInvalidRequest("payee_id must be digits after the optional pye_ prefix")
		}
	}
	return "pye_" + rest, nil
}

// checkPayoutSyntax validates payout_amount as a positive plain decimal of at
// most 32 characters (its precision is checked once the payee's currency is
// known).
func checkPayoutSyntax(v string) *apiError {
	if v == "" {
		return errInvalidRequest("payout_amount is required")
	}
	if len(v) > 32 {
		return errInvalidRequest("payout_amount is longer than 32 characters")
	}
	dec := 0
	if i := strings.IndexByte(v, '.'); i >= 0 {
		dec = len(v) - i - 1
	}
	a, err := money.ParseNonNegative(v, dec)
	if err != nil || a.IsZero() {
		return errInvalidRequest("payout_amount must be a positive plain decimal")
	}
	return nil
}

// resolveRemit runs the checks that need the payee: ownership, corridor, then
// payout precision (exactly the currency's minor units).
func (s *Simulator) resolveRemit(m *member, payeeID, payout, lineName, asset string) (remitRequest, *apiError) {
	line, ok := remitLines[lineName]
	if !ok {
		line = remitLines["express"] // unrecognised falls back to express
	}
	asset = strings.ToUpper(strings.TrimSpace(asset))
	if asset == "" {
		asset = "USDT"
	}
	supported := false
	for _, a := range remitSourceAssets {
		supported = supported || a == asset
	}
	if !supported || !s.assetAllowed(asset) {
		return remitRequest{}, newErr("product_not_available", "the debit asset is not available for remittances")
	}
	p := s.payeeOfLocked(m, payeeID)
	if p == nil {
		return remitRequest{}, newErr("resource_not_found", "payee not found")
	}
	cor, ok := corridorOf(p.Country, p.Currency)
	if !ok || !cor.Supported {
		return remitRequest{}, newErr("corridor_not_supported", "the payee's corridor cannot be served")
	}
	dec := 0
	if i := strings.IndexByte(payout, '.'); i >= 0 {
		dec = len(payout) - i - 1
	}
	if dec != cor.Units {
		return remitRequest{}, errInvalidRequest(fmt.Sprintf("payout_amount must have exactly %d decimals for %s", cor.Units, cor.Currency))
	}
	amt, err := money.ParseNonNegative(payout, cor.Units)
	if err != nil {
		return remitRequest{}, errInvalidRequest("payout_amount is not a valid amount")
	}
	return remitRequest{Payee: p, Corridor: cor, Payout: amt, Line: line, Asset: asset}, nil
}

// --- create ---

// createRemittance answers POST /v1/remittances. The checks run in this
// order, and any failure changes nothing:
//
//  1. JSON body (invalid_request)
//  2. payee_id present, digits after an optional pye_ (invalid_request)
//  3. payout_amount present, at most 32 characters, positive plain decimal (invalid_request)
//  4. slippage_bps a JSON integer 50..1000 (invalid_fields, key slippage_bps)
//  5. purpose_code one of the 23 codes (invalid_request)
//  6. funding_source per custody model (invalid_fields, key funding_source)
//  7. debit asset USDT or USDC (product_not_available)
//  8. payee belongs to the member (404 resource_not_found)
//  9. corridor served (corridor_not_supported)
//  10. payout_amount has exactly the currency's decimals (invalid_request)
//  11. purpose_code permitted for the line (invalid_fields, key purpose_code)
//  12. pobo has an active upstream subaccount (product_not_available)
//  13. member KYC level: express 1, pobo 2 (kyc_required)
//  14. member banned or payee risk-listed (request_rejected)
//  15. customer_total at least the line minimum (amount_out_of_range), at most
//     the per-order maximum (limit_exceeded single/member) and within the
//     member's daily line limit (limit_exceeded daily/member)
//  16. funds: member available covers locked_amount (insufficient_balance);
//     merchant-funded: prepaid covers it, else express queues (201 pending,
//     nothing moved) and pobo answers service_unavailable.
func (s *Simulator) createRemittance(c *rc) (int, any, error) {
	hash := sha256.Sum256(c.body)
	if rec := s.remit.byIdem[c.idemKey]; rec != nil && c.now.Sub(rec.at) < remitIdemWindow {
		if rec.hash != hash {
			return 0, nil, newErr("idempotency_key_reused", "idempotency key reused with a different body")
		}
		o := s.remit.byID[rec.orderID]
		c.header.Set("X-Idempotent-Replay", "true")
		return http.StatusCreated, map[string]any{"id": o.ID, "status": o.publicStatus(), "quote": nil, "duplicated": true}, nil
	}
	var in struct {
		PayeeID       *string         `json:"payee_id"`
		PayoutAmount  *string         `json:"payout_amount"`
		SlippageBps   json.RawMessage `json:"slippage_bps"`
		PurposeCode   *string         `json:"purpose_code"`
		FundingSource *string         `json:"funding_source"`
		Reference     string          `json:"reference"`
		Line          string          `json:"line"`
		Asset         string          `json:"asset"`
	}
	if err := c.decode(&in); err != nil {
		return 0, nil, err
	}
	if in.PayeeID == nil {
		return 0, nil, errInvalidRequest("payee_id is required")
	}
	payeeID, aerr := checkPayeeID(*in.PayeeID)
	if aerr != nil {
		return 0, nil, aerr
	}
	if in.PayoutAmount == nil {
		return 0, nil, errInvalidRequest("payout_amount is required")
	}
	if aerr := checkPayoutSyntax(*in.PayoutAmount); aerr != nil {
		return 0, nil, aerr
	}
	bps, ok := slippageOf(in.SlippageBps)
	if !ok {
		return 0, nil, errInvalidFields("slippage_bps must be an integer from 50 to 1000", "slippage_bps")
	}
	if in.PurposeCode == nil || *in.PurposeCode == "" {
		return 0, nil, errInvalidRequest("purpose_code is required")
	}
	purpose := *in.PurposeCode
	if !knownPurpose(purpose) {
		return 0, nil, errInvalidRequest("purpose_code is not one of the service's purpose codes")
	}
	funding, aerr := s.fundingSource(in.FundingSource)
	if aerr != nil {
		return 0, nil, aerr
	}
	req, aerr := s.resolveRemit(c.member, payeeID, *in.PayoutAmount, in.Line, in.Asset)
	if aerr != nil {
		return 0, nil, aerr
	}
	line := req.Line
	if !line.permits(purpose) {
		return 0, nil, errInvalidFields("purpose_code is not permitted for the "+line.Name+" line", "purpose_code")
	}
	if line.Name == "pobo" && s.remit.poboInactive {
		return 0, nil, newErr("product_not_available", "the pobo line needs an active upstream subaccount")
	}
	if c.member.KYCLevel < line.KYC {
		return 0, nil, newErr("kyc_required", fmt.Sprintf("the %s line needs KYC level %d", line.Name, line.KYC))
	}
	if c.member.Status == "banned" || riskListed(req.Payee.Holder) {
		return 0, nil, newErr("request_rejected", "request rejected")
	}
	pr, err := s.price(req.Corridor, req.Payout, line, req.Asset, bps)
	if err != nil {
		return 0, nil, err
	}
	if aerr := s.remitLimits(c.member, line, pr, c.now); aerr != nil {
		return 0, nil, aerr
	}
	ref := in.Reference
	if utf8.RuneCountInString(ref) > 200 {
		ref = string([]rune(ref)[:200])
	}
	o := &remitOrder{
		ID: "rmt_" + s.newUUID(), Member: c.member, Payee: req.Payee, Line: line.Name, Funding: funding,
		Asset: pr.Asset, Scale: pr.Scale, Slippage: bps,
		Principal: pr.Principal, Fee: pr.Fee, CustomerTotal: pr.CustomerTotal, Locked: pr.Locked, Settled: money.Zero(pr.Scale),
		PayoutCurrency: req.Corridor.Currency, PayoutAmount: *in.PayoutAmount, Rate: pr.Rate,
		Purpose: purpose, Reference: ref, CreatedAt: c.now, UpdatedAt: c.now, Version: 1,
	}
	from, held := o.accounts()
	if s.ledger.Balance(from, o.Asset).Cmp(o.Locked) < 0 {
		switch {
		case funding == "member":
			return 0, nil, newErr("insufficient_balance", "member available balance insufficient")
		case !line.Queues:
			return 0, nil, newErr("service_unavailable", "line temporarily unavailable")
		}
		o.Status = "pending_merchant_funds" // no funds moved, no limits reserved, no upstream order
	} else {
		if err := s.ledger.Transfer(c.now, "remittance hold "+o.ID, o.Asset, o.Locked, from, held); err != nil {
			return 0, nil, newErr("insufficient_balance", "balance insufficient")
		}
		o.Held, o.HeldAt = true, c.now
		o.Status = s.remitFirstStatus(o)
	}
	s.remit.byID[o.ID] = o
	s.remit.orders = insertByKey(s.remit.orders, o, remitKey)
	s.remit.byIdem[c.idemKey] = &remitIdem{hash: hash, orderID: o.ID, at: c.now}
	if o.Held {
		s.remitInFlight(o)
	}
	return http.StatusCreated, map[string]any{
		"id":     o.ID,
		"status": o.publicStatus(),
		"quote": map[string]any{
			"source_asset":    o.Asset,
			"customer_total":  o.CustomerTotal.String(),
			"fee":             o.Fee.String(),
			"locked_amount":   o.Locked.String(),
			"indicative_rate": o.Rate,
			"applied_rate":    o.Rate,
		},
		"duplicated": false,
	}, nil
}

// slippageOf reads slippage_bps: a JSON integer from 50 to 1000. Missing,
// strings, fractions and out-of-range values are refused.
func slippageOf(raw json.RawMessage) (int, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '"' || bytes.ContainsAny(raw, ".eE") {
		return 0, false
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 50 || n > 1000 {
		return 0, false
	}
	return n, true
}

// fundingSource applies the common funding_source rule: merchant_hosted must
// send merchant; member (or nothing) only on platform_hosted.
func (s *Simulator) fundingSource(v *string) (string, *apiError) {
	fs := ""
	if v != nil {
		fs = *v
	}
	if s.merchant.Model == MerchantHosted {
		if fs != "merchant" {
			return "", errInvalidFields("merchant_hosted accounts must send funding_source merchant", "funding_source")
		}
		return "merchant", nil
	}
	if fs != "" && fs != "member" {
		return "", errInvalidFields("funding_source must be member on platform_hosted accounts", "funding_source")
	}
	return "member", nil
}

// remitFirstStatus is the status of a newly held order: merchant-funded
// orders always pass platform review; member-funded ones at or above the
// review threshold go to review; others dispatch.
func (s *Simulator) remitFirstStatus(o *remitOrder) string {
	if o.Funding == "merchant" {
		return "platform_reviewing"
	}
	th, _ := s.amount(o.Asset, remitReviewThreshold)
	if o.CustomerTotal.Cmp(th) >= 0 {
		return "reviewing"
	}
	return "dispatching"
}

// remitLimits checks the line minimum, the per-order maximum and the member's
// daily line limit against customer_total. Orders waiting for merchant funds
// and failed orders reserve nothing.
func (s *Simulator) remitLimits(m *member, line remitLine, pr remitPrice, now time.Time) *apiError {
	minA, _ := s.amount(pr.Asset, line.Min)
	maxA, _ := s.amount(pr.Asset, line.Max)
	daily, _ := s.amount(pr.Asset, line.Daily)
	if pr.CustomerTotal.Cmp(minA) < 0 {
		return newErr("amount_out_of_range", "amount below the line minimum")
	}
	if pr.CustomerTotal.Cmp(maxA) > 0 {
		return newErr("limit_exceeded", "per-transaction limit exceeded").with("limit_type", "single").with("limit_scope", "member")
	}
	used := pr.CustomerTotal
	day := now.UTC().Format(time.DateOnly)
	for _, o := range s.remit.orders {
		if o.Member == m && o.Line == line.Name && o.Held && o.Status != "failed" && o.HeldAt.UTC().Format(time.DateOnly) == day {
			if v, err := o.CustomerTotal.Rescale(pr.Scale); err == nil {
				used, _ = used.Add(v)
			}
		}
	}
	if used.Cmp(daily) > 0 {
		return newErr("limit_exceeded", "daily limit exceeded").with("limit_type", "daily").with("limit_scope", "member")
	}
	return nil
}

// remitInFlight registers the upstream's success path (all the way to
// completed) under the remittances outcome mode.
func (s *Simulator) remitInFlight(o *remitOrder) {
	s.inFlight(CollectionRemittances, o.ID, func() {
		for !isRemitFinal(o.Status) && o.Status != "needs_reconfirm" {
			if _, err := s.remitMoveLocked(o, "advance", nil); err != nil {
				return
			}
		}
	})
}

func isRemitFinal(st string) bool { return st == "completed" || st == "failed" || st == "refunded" }

// --- state machine ---

// remitTransitions is the remittance state machine as data: action, then
// from-status, then to-status. It reads like the contract's table plus the
// simulator's natural path (advance).
var remitTransitions = map[string]map[string]string{
	"advance": {
		"pending_merchant_funds": "platform_reviewing", // prepaid covers it now
		"reviewing":              "dispatching",
		"platform_reviewing":     "dispatching",
		"needs_reconfirm":        "dispatching",
		"dispatching":            "processing",
		"processing":             "completed",
	},
	"dispatch": {
		"reviewing": "processing", "platform_reviewing": "processing", "dispatching": "processing", "needs_reconfirm": "processing",
	},
	"complete": {"processing": "completed"},
	"fail": {
		"pending_merchant_funds": "failed", "reviewing": "failed", "platform_reviewing": "failed",
		"dispatching": "failed", "processing": "failed", "needs_reconfirm": "failed",
	},
	"refund": {"completed": "refunded"},
	"needs_reconfirm": {
		"reviewing": "needs_reconfirm", "platform_reviewing": "needs_reconfirm", "dispatching": "needs_reconfirm", "processing": "needs_reconfirm",
	},
}

// remitEvents names the event emitted on entering a status.
var remitEvents = map[string]string{
	"completed":       "remittance.order.completed",
	"failed":          "remittance.order.failed",
	"refunded":        "remittance.order.refunded",
	"needs_reconfirm": "remittance.order.action_required",
}

// remitActionBody is the optional body of the control actions.
type remitActionBody struct {
	// FailureCode (fail): the stable public failure code (default payout_rejected).
	FailureCode string `json:"failure_code"`
	// SettledAmount (complete): the real cost in the source asset, between the
	// fee and locked_amount (default customer_total).
	SettledAmount string `json:"settled_amount"`
}

func (s *Simulator) remitActionLocked(id, action string, body []byte) (*remitOrder, error) {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "rmt_") {
		id = "rmt_" + id
	}
	o := s.remit.byID[id]
	if o == nil {
		return nil, errNotFound("remittance")
	}
	var in remitActionBody
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, errInvalidRequest("body: " + err.Error())
		}
	}
	return s.remitMoveLocked(o, action, &in)
}

// remitMoveLocked applies action to o: money first (one balanced entry, or
// nothing), then status, status_version, event and outcome bookkeeping.
func (s *Simulator) remitMoveLocked(o *remitOrder, action string, in *remitActionBody) (*remitOrder, error) {
	if in == nil {
		in = &remitActionBody{}
	}
	to, ok := remitTransitions[action][o.Status]
	if !ok {
		if _, known := remitTransitions[action]; !known {
			return nil, errInvalidRequest("unknown remittance action " + action)
		}
		return nil, newErr("state_invalid", fmt.Sprintf("cannot %s a remittance in status %s", action, o.publicStatus()))
	}
	now := s.clock.Now()
	from, held := o.accounts()
	switch to {
	case "platform_reviewing":
		if !o.Held {
			if err := s.ledger.Transfer(now, "remittance hold "+o.ID, o.Asset, o.Locked, from, held); err != nil {
				return nil, newErr("state_invalid", "merchant funds still insufficient")
			}
			o.Held, o.HeldAt = true, now
		}
	case "processing":
		o.PayoutDate = now.UTC().Format(time.DateOnly)
		o.RateDealt = true
	case "completed":
		cost := o.CustomerTotal
		if in.SettledAmount != "" {
			v, err := s.amount(o.Asset, in.SettledAmount)
			if err != nil || v.Cmp(o.Fee) < 0 || v.Cmp(o.Locked) > 0 {
				return nil, errInvalidRequest("settled_amount must be between the fee and locked_amount")
			}
			cost = v
		}
		principal, _ := cost.Sub(o.Fee)
		excess, _ := o.Locked.Sub(cost)
		posts := []Posting{
			{Account: held, Asset: o.Asset, Amount: o.Locked.Neg()},
			{Account: UpstreamAccount("remit"), Asset: o.Asset, Amount: principal},
			{Account: AccountRevenueFees, Asset: o.Asset, Amount: o.Fee},
		}
		if !excess.IsZero() {
			posts = append(posts, Posting{Account: from, Asset: o.Asset, Amount: excess})
		}
		if err := s.ledger.Post(now, "remittance settled "+o.ID, posts...); err != nil {
			return nil, err
		}
		o.Settled = cost
	case "failed":
		if o.Held {
			if err := s.ledger.Transfer(now, "remittance failed "+o.ID, o.Asset, o.Locked, held, from); err != nil {
				return nil, err
			}
		}
		o.FailureCode = in.FailureCode
		if o.FailureCode == "" {
			o.FailureCode = "payout_rejected"
		}
	case "refunded":
		principal, _ := o.Settled.Sub(o.Fee)
		if err := s.ledger.Post(now, "remittance returned "+o.ID,
			Posting{Account: UpstreamAccount("remit"), Asset: o.Asset, Amount: principal.Neg()},
			Posting{Account: AccountRevenueFees, Asset: o.Asset, Amount: o.Fee.Neg()},
			Posting{Account: from, Asset: o.Asset, Amount: o.Settled},
		); err != nil {
			return nil, err
		}
	}
	prev := o.Status
	o.Status = to
	o.Version++
	o.UpdatedAt = now
	if ev, ok := remitEvents[to]; ok {
		s.emit(ev, "remittance", strings.TrimPrefix(o.ID, "rmt_"), o.Member, o.publicStatus(), o.Version, nil)
	}
	switch {
	case isRemitFinal(to) || to == "needs_reconfirm":
		s.settled(o.ID)
	case prev == "pending_merchant_funds" || prev == "needs_reconfirm":
		s.remitInFlight(o)
	}
	return o, nil
}

// onPrepaidTopUp advances orders waiting for merchant funds, oldest first,
// while the prepaid account covers them. The merchant control calls it after
// every prepaid top-up.
func (s *Simulator) onPrepaidTopUp() {
	for _, o := range s.remit.orders {
		if o.Status != "pending_merchant_funds" {
			continue
		}
		if _, err := s.remitMoveLocked(o, "advance", nil); err != nil {
			return
		}
	}
}

// topUpPrepaidLocked credits the merchant prepaid account from outside money
// and advances the orders waiting for it.
func (s *Simulator) topUpPrepaidLocked(asset, amount string) error {
	asset = strings.ToUpper(strings.TrimSpace(asset))
	amt, err := s.amount(asset, amount)
	if err != nil || amt.Sign() <= 0 {
		return errInvalidRequest("asset and a positive amount at its ledger scale are required")
	}
	if err := s.ledger.Transfer(s.clock.Now(), "merchant prepaid top-up", asset, amt, AccountWorld, AccountMerchantPrepaid); err != nil {
		return err
	}
	s.onPrepaidTopUp()
	return nil
}

// --- reads ---

func (s *Simulator) remitOrderJSON(o *remitOrder) map[string]any {
	return map[string]any{
		"id": o.ID, "line": o.Line, "status": o.publicStatus(), "status_version": o.Version,
		"source_asset": o.Asset, "ledger_scale": o.Scale,
		"locked_amount": o.Locked.String(), "settled_amount": o.Settled.String(), "fee": o.Fee.String(),
		"payout_currency": o.PayoutCurrency, "payout_amount": o.PayoutAmount,
		"rate": o.Rate, "rate_is_dealt": o.RateDealt, "purpose_code": o.Purpose, "reference": o.Reference,
		"failure_code": o.FailureCode, "payout_date": o.PayoutDate,
		"payee":      map[string]any{"summary": o.Payee.summary(), "holder": o.Payee.Holder},
		"created_at": o.CreatedAt.UTC().Format(time.RFC3339), "updated_at": o.UpdatedAt.UTC().Format(time.RFC3339),
	}
}

// listRemittances answers GET /v1/remittances: the member's orders, newest
// first (limit invalid falls back to 20).
func (s *Simulator) listRemittances(c *rc) (int, any, error) {
	mine := func(o *remitOrder) bool { return o.Member == c.member }
	env := paginateMatching(s.remit.orders, remitKey, c.r.URL.Query(), mine)
	page := env.Data.([]*remitOrder)
	out := make([]map[string]any, 0, len(page))
	for _, o := range page {
		out = append(out, s.remitOrderJSON(o))
	}
	env.Data = out
	return http.StatusOK, env, nil
}

// getRemittance answers GET /v1/remittances/{id} (rmt_ optional) with the
// list item. The response shape is inferred: the specification names this
// endpoint without showing its fields.
func (s *Simulator) getRemittance(c *rc) (int, any, error) {
	id := c.pathID()
	if !strings.HasPrefix(id, "rmt_") {
		id = "rmt_" + id
	}
	o := s.remit.byID[id]
	if o == nil || o.Member != c.member {
		return 0, nil, errNotFound("remittance")
	}
	return http.StatusOK, s.remitOrderJSON(o), nil
}

// remitQuote answers GET /v1/remit/quotes?payee_id&payout_amount[&line&asset&slippage_bps].
// The response shape is inferred: the specification names this endpoint
// without showing its fields. Nothing is held.
func (s *Simulator) remitQuote(c *rc) (int, any, error) {
	q := c.r.URL.Query()
	payeeID, aerr := checkPayeeID(q.Get("payee_id"))
	if aerr != nil {
		return 0, nil, aerr
	}
	payout := q.Get("payout_amount")
	if aerr := checkPayoutSyntax(payout); aerr != nil {
		return 0, nil, aerr
	}
	bps := 0
	if v := q.Get("slippage_bps"); v != "" {
		n, ok := slippageOf(json.RawMessage(v))
		if !ok {
			return 0, nil, errInvalidFields("slippage_bps must be an integer from 50 to 1000", "slippage_bps")
		}
		bps = n
	}
	req, aerr := s.resolveRemit(c.member, payeeID, payout, q.Get("line"), q.Get("asset"))
	if aerr != nil {
		return 0, nil, aerr
	}
	pr, err := s.price(req.Corridor, req.Payout, req.Line, req.Asset, bps)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{
		"payee_id": req.Payee.ID, "line": req.Line.Name, "source_asset": pr.Asset, "ledger_scale": pr.Scale,
		"customer_total": pr.CustomerTotal.String(), "fee": pr.Fee.String(), "locked_amount": pr.Locked.String(),
		"slippage_bps": bps, "indicative_rate": pr.Rate, "payout_currency": req.Corridor.Currency, "payout_amount": payout,
	}, nil
}

// remitProducts answers GET /v1/remit/products: one item per served corridor
// and line. The response shape is inferred: the specification names this
// endpoint without showing its fields.
func (s *Simulator) remitProducts(c *rc) (int, any, error) {
	var out []map[string]any
	for _, cor := range remitCorridors {
		if !cor.Supported {
			continue
		}
		for _, name := range []string{"express", "pobo"} {
			l := remitLines[name]
			if name == "pobo" && s.remit.poboInactive {
				continue
			}
			sc, _ := s.assetScale("USDT")
			amt := func(v string) string { a, _ := money.Parse(v, sc); return a.String() }
			out = append(out, map[string]any{
				"line": l.Name, "corridor": cor.Country + "-" + cor.Currency, "country": cor.Country, "payout_currency": cor.Currency,
				"required_kyc_level": l.KYC, "source_assets": remitSourceAssets, "purpose_codes": l.Purposes,
				"min_amount": amt(l.Min), "max_amount": amt(l.Max), "daily_limit": amt(l.Daily), "queues": l.Queues,
			})
		}
	}
	return http.StatusOK, listEnvelope{Data: out}, nil
}

// remitConversionDates answers GET /v1/remit/conversion-dates?payout_currency=:
// the next five weekdays with a 14:00 UTC cut-off. The response shape is
// inferred: the specification names this endpoint without showing its fields.
func (s *Simulator) remitConversionDates(c *rc) (int, any, error) {
	cur := strings.ToUpper(strings.TrimSpace(c.r.URL.Query().Get("payout_currency")))
	if cur == "" {
		return 0, nil, errInvalidRequest("payout_currency is required")
	}
	served := false
	for _, cor := range remitCorridors {
		served = served || (cor.Currency == cur && cor.Supported)
	}
	if !served {
		return 0, nil, newErr("corridor_not_supported", "no corridor pays out in "+cur)
	}
	var out []map[string]any
	d := c.now.UTC().Truncate(24 * time.Hour)
	if c.now.UTC().Hour() >= 14 {
		d = d.AddDate(0, 0, 1)
	}
	for len(out) < 5 {
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
			out = append(out, map[string]any{
				"payout_currency": cur, "date": d.Format(time.DateOnly), "cutoff_at": d.Add(14 * time.Hour).Format(time.RFC3339),
			})
		}
		d = d.AddDate(0, 0, 1)
	}
	return http.StatusOK, listEnvelope{Data: out}, nil
}

// --- VP applications ---

// vpApplication is a member's VP application. The simulator derives it from
// the member's KYC profile: approved when the member holds level 1 or more,
// in review otherwise; none without a profile.
type vpApplication struct {
	ID        string
	CreatedAt time.Time
}

// queryVPApplications answers POST /v1/remit/vp/applications/query.
func (s *Simulator) queryVPApplications(c *rc) (int, any, error) {
	var in struct {
		Members []string `json:"members"`
	}
	if err := c.decode(&in); err != nil {
		return 0, nil, err
	}
	if len(in.Members) < 1 || len(in.Members) > 100 {
		return 0, nil, errInvalidRequest("members must hold 1 to 100 identifiers")
	}
	for _, q := range in.Members {
		if strings.TrimSpace(q) == "" {
			return 0, nil, errInvalidRequest("members must be non-empty strings")
		}
	}
	items := make([]map[string]any, 0, len(in.Members))
	for _, q := range in.Members {
		v := strings.TrimSpace(q)
		var m *member
		if strings.HasPrefix(v, "mem_") {
			m = s.members[v]
		} else {
			m = s.membersByExt[v]
		}
		if m == nil || (m.MerchantID != "" && m.MerchantID != s.merchant.ID) {
			// Unknown and foreign members get the same answer.
			items = append(items, map[string]any{"query": q, "error": "member_not_found", "application": nil})
			continue
		}
		item := map[string]any{"query": q, "member_id": m.ID, "external_member_id": m.ExternalID, "application": nil, "stage": "not_applied"}
		if s.profileOf(m) != nil {
			app := s.remit.vpApps[m.ID]
			if app == nil {
				app = &vpApplication{ID: "vpa_" + s.newUUID(), CreatedAt: m.CreatedAt}
				s.remit.vpApps[m.ID] = app
			}
			status, stage, reviewed := "pending_review", "review", ""
			if m.KYCLevel >= 1 {
				status, stage, reviewed = "approved", "active", app.CreatedAt.UTC().Format(time.RFC3339)
			}
			item["application"] = map[string]any{"id": app.ID, "status": status, "reviewed_at": reviewed, "created_at": app.CreatedAt.UTC().Format(time.RFC3339)}
			item["stage"] = stage
		}
		items = append(items, item)
	}
	return http.StatusOK, map[string]any{"items": items}, nil
}

// --- Go methods mirroring the control actions ---

// remitAction runs a control action on a remittance (id with or without
// rmt_) and returns its public status.
func (s *Simulator) remitAction(id, action string, in *remitActionBody) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var body []byte
	if in != nil {
		body, _ = json.Marshal(in)
	}
	o, err := s.remitActionLocked(id, action, body)
	if err != nil {
		return "", err
	}
	return o.publicStatus(), nil
}

// DispatchRemittance sends an order upstream (status processing, payout_date
// set, rate dealt). Control action remittances/{id}/dispatch.
func (s *Simulator) DispatchRemittance(id string) error {
	_, err := s.remitAction(id, "dispatch", nil)
	return err
}

// CompleteRemittance completes a processing order at its customer_total
// (the slippage excess returns to where the funds came from); settledAmount,
// when non-empty, is the real cost instead (between the fee and
// locked_amount). Control action remittances/{id}/complete, body
// {"settled_amount": ...}.
func (s *Simulator) CompleteRemittance(id, settledAmount string) error {
	_, err := s.remitAction(id, "complete", &remitActionBody{SettledAmount: settledAmount})
	return err
}

// FailRemittance fails an order that is not final; every held fund returns.
// failureCode defaults to payout_rejected. Control action
// remittances/{id}/fail, body {"failure_code": ...}.
func (s *Simulator) FailRemittance(id, failureCode string) error {
	_, err := s.remitAction(id, "fail", &remitActionBody{FailureCode: failureCode})
	return err
}

// RefundRemittance plays the receiving bank returning a completed order's
// funds. Control action remittances/{id}/refund.
func (s *Simulator) RefundRemittance(id string) error {
	_, err := s.remitAction(id, "refund", nil)
	return err
}

// RemittanceNeedsReconfirm plays the execution cost rising above the slippage
// ceiling (status needs_reconfirm, event remittance.order.action_required).
// Control action remittances/{id}/needs_reconfirm.
func (s *Simulator) RemittanceNeedsReconfirm(id string) error {
	_, err := s.remitAction(id, "needs_reconfirm", nil)
	return err
}

// AdvanceRemittance moves an order one natural step (pending to
// platform_reviewing when prepaid covers it, reviewing to dispatching,
// dispatching to processing, processing to completed) and returns the new
// public status. Control action remittances/{id}/advance.
func (s *Simulator) AdvanceRemittance(id string) (string, error) {
	return s.remitAction(id, "advance", nil)
}

// TopUpMerchantPrepaid credits the merchant prepaid account with amount of
// asset and advances the remittances waiting for merchant funds. Control
// action merchant/prepaid/topup, body {"asset", "amount"}.
func (s *Simulator) TopUpMerchantPrepaid(asset, amount string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.topUpPrepaidLocked(asset, amount)
}

// SetPOBOSubaccount sets whether the merchant has an active upstream
// subaccount, which the pobo line needs.
func (s *Simulator) SetPOBOSubaccount(active bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remit.poboInactive = !active
}

// WithdrawMerchantPrepaid takes amount of asset out of the merchant prepaid
// account ("" takes the whole available prepaid balance), for example to
// play a merchant whose prepaid cannot fund a remittance.
func (s *Simulator) WithdrawMerchantPrepaid(asset, amount string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	asset = strings.ToUpper(strings.TrimSpace(asset))
	if _, ok := s.assetScale(asset); !ok {
		return errInvalidRequest("unknown asset " + asset)
	}
	amt := s.ledger.Balance(AccountMerchantPrepaid, asset)
	if amount != "" {
		v, err := s.amount(asset, amount)
		if err != nil || v.Sign() <= 0 {
			return errInvalidRequest("a positive amount at the asset's ledger scale is required")
		}
		amt = v
	}
	return s.ledger.Transfer(s.clock.Now(), "merchant prepaid withdrawal", asset, amt, AccountMerchantPrepaid, AccountWorld)
}
