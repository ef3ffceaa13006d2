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
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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

type remitIdem struct {
	hash    [32]byte
	orderID string
	at      time.Time
}

// remitOrder is one remittance order. Status is internal: the public form of
// pending_merchant_funds is pending.
type remitOrder struct {
	seq      int64  // creation sequence, the tie-break of lists (paginate.go)
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

func remitKey(o *remitOrder) pageKey { return pageKey{At: o.CreatedAt, Seq: o.seq} }

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
	s.onOutcome(CollectionRemittances, s.remitSucceed)
	// The contract names remittances:read only: the writes (an order holds
	// the member's funds, a payee is where they go) need remittances:write,
	// which includes the read (see serviceScopes).
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/remittances", Scope: "remittances:write", Member: true, Idempotent: true, OwnReplay: true, Handle: s.createRemittance})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/remittances", Scope: "remittances:read", Member: true, Handle: s.listRemittances})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/remittances/{id}", Scope: "remittances:read", Member: true, Handle: s.getRemittance})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/remit/payees", Scope: "remittances:read", Member: true, Handle: s.listPayees})
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/remit/payees", Scope: "remittances:write", Member: true, Idempotent: true, Handle: s.createPayee})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/remit/quotes", Scope: "remittances:read", Member: true, Handle: s.remitQuote})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/remit/products", Scope: "remittances:read", Handle: s.remitProducts})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/remit/conversion-dates", Scope: "remittances:read", Handle: s.remitConversionDates})
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/remit/vp/applications/query", Scope: "remittances:read", Handle: s.queryVPApplications})
	for _, a := range []string{"dispatch", "complete", "fail", "refund", "needs_reconfirm", "advance"} {
		action := a
		s.actions["remittances/"+action] = func(tx *kernel.Tx, id string, body []byte) (any, error) {
			o, err := s.remitAction(tx, id, action, body)
			if err != nil {
				return nil, err
			}
			return s.remitOrderJSON(o), nil
		}
	}
	s.actions["merchant/prepaid/topup"] = func(tx *kernel.Tx, _ string, body []byte) (any, error) {
		var in struct {
			Asset  string `json:"asset"`
			Amount string `json:"amount"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, err
		}
		if err := s.topUpPrepaid(tx, in.Asset, in.Amount); err != nil {
			return nil, err
		}
		asset := strings.ToUpper(in.Asset)
		return map[string]any{"asset": asset, "prepaid": s.ledger.Balance(AccountMerchantPrepaid, asset).String()}, nil
	}
}

// --- payees ---

// --- pricing ---

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
	if utf8.RuneCountInString(v) > 32 { // "at most 32 chars": characters, not bytes
		return errInvalidRequest("payout_amount is longer than 32 characters")
	}
	dec := 0
	if i := strings.IndexByte(v, '.'); i >= 0 {
		dec = len(v) - i - 1
	}
	a, err := parseAmount(v, dec, decimalNonNegative)
	if err != nil || a.IsZero() {
		return errInvalidRequest("payout_amount must be a positive plain decimal")
	}
	return nil
}

// resolveRemit runs the checks that need the payee: ownership, corridor, then
// payout precision (exactly the currency's minor units).
func (s *Simulator) resolveRemit(tx *kernel.Tx, m *member, payeeID, payout, lineName, asset string) (remitRequest, *apiError) {
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
	if !supported || !s.cat.allowed(asset, s.merchant.AssetAllowlist) {
		return remitRequest{}, newErr("product_not_available", "the debit asset is not available for remittances")
	}
	p := s.payeeOf(tx, m, payeeID)
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
	amt, err := parseAmount(payout, cor.Units, decimalNonNegative)
	if err != nil {
		return remitRequest{}, errInvalidRequest("payout_amount is not a valid amount")
	}
	return remitRequest{Payee: p, Corridor: cor, Payout: amt, Line: line, Asset: asset}, nil
}

// --- create ---

// createRemittance answers POST /v1/remittances. The checks run in this
// order, and any failure changes nothing:
//
//  1. JSON body on the wire format; source_amount refused (invalid_request)
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
//  13. member KYC level: express 1, pobo 2, with an approved profile (kyc_required)
//  14. member banned or frozen, or payee risk-listed (request_rejected)
//  15. customer_total at least the line minimum (amount_out_of_range), at most
//     the per-order maximum (limit_exceeded single/member) and within the
//     member's daily line limit (limit_exceeded daily/member)
//  16. funds: member available covers locked_amount (insufficient_balance);
//     merchant-funded: prepaid covers it, else express queues (201 pending,
//     nothing moved) and pobo answers service_unavailable.
func (s *Simulator) createRemittance(c *rc) (int, any, error) {
	hash := sha256.Sum256(c.Body)
	if rec := s.remit.byIdem[c.IdemKey]; rec != nil && c.Now.Sub(rec.at) < remitIdemWindow {
		if rec.hash != hash {
			return 0, nil, newErr("idempotency_key_reused", "idempotency key reused with a different body")
		}
		o := s.remit.byID[rec.orderID]
		c.Header.Set("X-Idempotent-Replay", "true")
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
		// SourceAmount is the other pricing direction, which the service
		// does not accept (only the recipient amount is supported).
		SourceAmount json.RawMessage `json:"source_amount"`
	}
	if err := c.Decode(&in); err != nil {
		return 0, nil, err
	}
	if in.SourceAmount != nil {
		return 0, nil, errInvalidRequest("source_amount is not accepted: only the recipient-amount direction is supported (send payout_amount)")
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
	req, aerr := s.resolveRemit(c.Tx, c.Member, payeeID, *in.PayoutAmount, in.Line, in.Asset)
	if aerr != nil {
		return 0, nil, aerr
	}
	line := req.Line
	if !line.permits(purpose) {
		return 0, nil, errInvalidFields("purpose_code is not permitted for the "+line.Name+" line", "purpose_code")
	}
	if aerr := s.remitEligibility(c.Member, line, req.Payee); aerr != nil {
		return 0, nil, aerr
	}
	pr, err := s.price(req.Corridor, req.Payout, line, req.Asset, bps)
	if err != nil {
		return 0, nil, err
	}
	if aerr := s.remitLimits(c.Member, line, pr, c.Now); aerr != nil {
		return 0, nil, aerr
	}
	ref := in.Reference
	if utf8.RuneCountInString(ref) > 200 {
		ref = string([]rune(ref)[:200])
	}
	o := &remitOrder{
		seq: s.nextSeq(c.Tx), ID: "rmt_" + s.newUUID(), Member: c.Member, Payee: req.Payee, Line: line.Name, Funding: funding,
		Asset: pr.Asset, Scale: pr.Scale, Slippage: bps,
		Principal: pr.Principal, Fee: pr.Fee, CustomerTotal: pr.CustomerTotal, Locked: pr.Locked, Settled: money.Zero(pr.Scale),
		PayoutCurrency: req.Corridor.Currency, PayoutAmount: *in.PayoutAmount, Rate: pr.Rate,
		Purpose: purpose, Reference: ref, CreatedAt: c.Now, UpdatedAt: c.Now, Version: 1,
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
		if err := s.ledger.Transfer(c.Now, "remittance hold "+o.ID, o.Asset, o.Locked, from, held); err != nil {
			return 0, nil, newErr("insufficient_balance", "balance insufficient")
		}
		o.Held, o.HeldAt = true, c.Now
		o.Status = s.remitFirstStatus(o)
	}
	s.remit.byID[o.ID] = o
	s.remit.orders = insertByKey(s.remit.orders, o, remitKey)
	s.remit.byIdem[c.IdemKey] = &remitIdem{hash: hash, orderID: o.ID, at: c.Now}
	if o.Held {
		s.remitInFlight(c.Tx, o)
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
	th, _ := s.cat.amount(o.Asset, remitReviewThreshold, decimalSigned)
	if o.CustomerTotal.Cmp(th) >= 0 {
		return "reviewing"
	}
	return "dispatching"
}

// remitLimits checks the line minimum, the per-order maximum and the member's
// daily line limit against customer_total. Orders waiting for merchant funds
// and failed orders reserve nothing.
func (s *Simulator) remitLimits(m *member, line remitLine, pr remitPrice, now time.Time) *apiError {
	minA, _ := s.cat.amount(pr.Asset, line.Min, decimalSigned)
	maxA, _ := s.cat.amount(pr.Asset, line.Max, decimalSigned)
	daily, _ := s.cat.amount(pr.Asset, line.Daily, decimalSigned)
	if pr.CustomerTotal.Cmp(minA) < 0 {
		return newErr("amount_out_of_range", "amount below the line minimum")
	}
	if pr.CustomerTotal.Cmp(maxA) > 0 {
		return newErr("limit_exceeded", "per-transaction limit exceeded").With("limit_type", "single").With("limit_scope", "member")
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
		return newErr("limit_exceeded", "daily limit exceeded").With("limit_type", "daily").With("limit_scope", "member")
	}
	return nil
}

// --- state machine ---

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
	mine := func(o *remitOrder) bool { return o.Member == c.Member }
	env := paginateMatching(s.remit.orders, remitKey, c.Req.URL.Query(), mine)
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
	id := c.PathID()
	if !strings.HasPrefix(id, "rmt_") {
		id = "rmt_" + id
	}
	o := s.remit.byID[id]
	if o == nil || o.Member != c.Member {
		return 0, nil, errNotFound("remittance")
	}
	return http.StatusOK, s.remitOrderJSON(o), nil
}

// --- VP applications ---

// --- Go methods mirroring the control actions ---
