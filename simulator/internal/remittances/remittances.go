// Package remittances is the remittance line of the simulator: payees,
// quotes, products, conversion dates, orders and their state machine
// (POST /v1/remittances and the /v1/remit/... endpoints), and the VP
// applications query. It owns its state and its handlers; what it needs
// from the merchant, the members, KYC, the asset catalogue, the ledger,
// outcomes and events it reaches through Host, which it declares.
package remittances

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
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// remitIdemWindow is the idempotency window of POST /v1/remittances.
const remitIdemWindow = 24 * time.Hour

// IdempotencyWindow is the expiry window of the remittances' idempotency
// records (kernel.Tx.ExpireAt): the simulator drops a record once its
// window has passed (ExpireIdempotencyKey).
const IdempotencyWindow = "remittances/idempotency"

// state is the remittance line's state: payees, orders and the handler's
// own replay records.
type state struct {
	payees    *kernel.Table[string, payee] // by pye_ id
	payeesOf  *kernel.Index[string, payee, memberKey]
	nextPayee *kernel.Cell[int64]
	// historyPayees are the payees of seeded history (SeedHistory), which
	// no member lists.
	historyPayees *kernel.Table[string, payee]

	orders *kernel.Table[string, order] // by rmt_ id
	list   *kernel.Index[string, order, api.PageKey]
	byIdem *kernel.Table[string, idem] // x-idempotency-key -> first success

	vpApps *kernel.Table[string, vpApplication] // by member id

	poboInactive *kernel.Cell[bool] // no active upstream subaccount for pobo
}

// memberKey orders a member's payees oldest first.
type memberKey struct {
	member string
	key    api.PageKey
}

func compareMemberKey(a, b memberKey) int {
	if c := strings.Compare(a.member, b.member); c != 0 {
		return c
	}
	return api.ComparePageKey(a.key, b.key)
}

type idem struct {
	Hash    [32]byte
	OrderID string
	At      time.Time
}

// order is one remittance order. Status is internal: the public form of
// pending_merchant_funds is pending.
type order struct {
	Seq      int64  // creation sequence, the tie-break of lists (api.PageKey)
	ID       string // rmt_<uuid>
	MemberID string
	PayeeID  string
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

func (o order) key() api.PageKey { return api.PageKey{At: o.CreatedAt, Seq: o.Seq} }

func (o *order) publicStatus() string {
	if o.Status == "pending_merchant_funds" {
		return "pending"
	}
	return o.Status
}

// accounts returns the account funds come from and the account they are held
// in while the order is in flight: the member's (funding member) or the
// merchant prepaid (funding merchant).
func (l *Line) accounts(o *order) (from, held string) {
	if o.Funding == "merchant" {
		return kernel.AccountMerchantPrepaid, kernel.AccountMerchantPrepaidLocked
	}
	return kernel.MemberAvailable(o.MemberID), kernel.MemberLocked(o.MemberID)
}

// payee is the payee an order pays: a member's, or one of seeded history.
func (l *Line) payee(tx *kernel.Tx, o *order) payee {
	if p, ok := l.st.payees.Get(tx, o.PayeeID); ok {
		return p
	}
	p, _ := l.st.historyPayees.Get(tx, o.PayeeID)
	return p
}

// member is the member of an order (a copy).
func (l *Line) member(tx *kernel.Tx, o *order) *api.Member {
	if m := l.host.Member(tx, o.MemberID); m != nil {
		return m
	}
	return &api.Member{ID: o.MemberID}
}

// Collection is the outcome collection of remittance orders: the payout
// partner's success path runs when its outcome mode says.
const Collection = "remittances"

// Upstream names the payout partner's settlement account in the ledger
// (kernel.UpstreamAccount).
const Upstream = "remit"

// Host is what the remittance line needs of other lines (the merchant's
// status, members, KYC); what every line uses (the clock, ids, amounts,
// the ledger, events, the catalogue, the merchant's custody model and
// allowlist) is the kernel's, through the transaction. Every method runs
// in the caller's transaction.
type Host interface {
	// MerchantStatus is the merchant's status, and whether it is active:
	// queued orders advance only while it is.
	MerchantStatus(tx *kernel.Tx) (status string, active bool)
	// Member finds a member by id (mem_...), nil when unknown.
	Member(tx *kernel.Tx, id string) *api.Member
	// MemberByExternal finds a member by external id, nil when unknown.
	MemberByExternal(tx *kernel.Tx, externalID string) *api.Member
	// HasKYCProfile reports whether m has a KYC profile (derived from its
	// seed on first use).
	HasKYCProfile(tx *kernel.Tx, m *api.Member) bool
	// KYCInReview reports a member whose KYC profile is not approved.
	KYCInReview(tx *kernel.Tx, m *api.Member) bool
}

// Line is the remittance line: its state, and its host. The state is part
// of the simulator's state image; the host is not.
type Line struct {
	st   state
	host Host `image:"-"`
}

// New returns the line with no payees and no orders, its tables in kernel
// k.
func New(k *kernel.Kernel, h Host) *Line {
	payees := kernel.NewTable[string, payee](k, "remittances.payees")
	orders := kernel.NewTable[string, order](k, "remittances.orders")
	return &Line{st: state{
		payees: payees,
		payeesOf: kernel.NewIndex(payees, "by_member",
			func(p payee) (memberKey, bool) { return memberKey{p.MemberID, payeeKey(p)}, true }, compareMemberKey),
		nextPayee:     kernel.NewCell(k, "remittances.next_payee", int64(100000)),
		historyPayees: kernel.NewTable[string, payee](k, "remittances.history_payees"),
		orders:        orders,
		list:          kernel.NewIndex(orders, "by_created", func(o order) (api.PageKey, bool) { return o.key(), true }, api.ComparePageKey),
		byIdem:        kernel.NewTable[string, idem](k, "remittances.idempotency"),
		vpApps:        kernel.NewTable[string, vpApplication](k, "remittances.vp_applications"),
		poboInactive:  kernel.NewCell(k, "remittances.pobo_inactive", false),
	}, host: h}
}

// Endpoints are the line's business endpoints, for the gateway.
func (l *Line) Endpoints() []api.Endpoint {
	// The contract names remittances:read only: the writes (an order holds
	// the member's funds, a payee is where they go) need remittances:write,
	// which includes the read (the gateway's scope table).
	return []api.Endpoint{
		{Method: http.MethodPost, Pattern: "/v1/remittances", Scope: "remittances:write", Member: true, Idempotent: true, OwnReplay: true, Handle: l.createRemittance},
		{Method: http.MethodGet, Pattern: "/v1/remittances", Scope: "remittances:read", Member: true, Handle: l.listRemittances},
		{Method: http.MethodGet, Pattern: "/v1/remittances/{id}", Scope: "remittances:read", Member: true, Handle: l.getRemittance},
		{Method: http.MethodGet, Pattern: "/v1/remit/payees", Scope: "remittances:read", Member: true, Handle: l.listPayees},
		{Method: http.MethodPost, Pattern: "/v1/remit/payees", Scope: "remittances:write", Member: true, Idempotent: true, Handle: l.createPayee},
		{Method: http.MethodGet, Pattern: "/v1/remit/quotes", Scope: "remittances:read", Member: true, Handle: l.remitQuote},
		{Method: http.MethodGet, Pattern: "/v1/remit/products", Scope: "remittances:read", Handle: l.remitProducts},
		{Method: http.MethodGet, Pattern: "/v1/remit/conversion-dates", Scope: "remittances:read", Handle: l.remitConversionDates},
		{Method: http.MethodPost, Pattern: "/v1/remit/vp/applications/query", Scope: "remittances:read", Handle: l.queryVPApplications},
	}
}

// remitRequest is a remittance request after the checks shared by create
// and quote.
type remitRequest struct {
	Payee    payee
	Corridor corridor
	Payout   money.Amount
	Line     lineSpec
	Asset    string
}

// checkPayeeID validates payee_id: optional pye_ prefix, then digits only.
func checkPayeeID(v string) (string, *api.Error) {
	rest := strings.TrimPrefix(v, "pye_")
	if rest == "" {
		return "", api.InvalidRequest("payee_id is required")
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", api.InvalidRequest("payee_id must be digits after the optional pye_ prefix")
		}
	}
	return "pye_" + rest, nil
}

// checkPayoutSyntax validates payout_amount as a positive plain decimal of at
// most 32 characters (its precision is checked once the payee's currency is
// known).
func checkPayoutSyntax(v string) *api.Error {
	if v == "" {
		return api.InvalidRequest("payout_amount is required")
	}
	if utf8.RuneCountInString(v) > 32 { // "at most 32 chars": characters, not bytes
		return api.InvalidRequest("payout_amount is longer than 32 characters")
	}
	dec := 0
	if i := strings.IndexByte(v, '.'); i >= 0 {
		dec = len(v) - i - 1
	}
	a, err := money.ParseNonNegative(v, dec)
	if err != nil || a.IsZero() {
		return api.InvalidRequest("payout_amount must be a positive plain decimal")
	}
	return nil
}

// resolveRemit runs the checks that need the payee: ownership, corridor, then
// payout precision (exactly the currency's minor units).
func (l *Line) resolveRemit(tx *kernel.Tx, m *api.Member, payeeID, payout, lineName, asset string) (remitRequest, *api.Error) {
	line, ok := lineSpecs[lineName]
	if !ok {
		line = lineSpecs["express"] // unrecognised falls back to express
	}
	asset = strings.ToUpper(strings.TrimSpace(asset))
	if asset == "" {
		asset = "USDT"
	}
	supported := false
	for _, a := range remitSourceAssets {
		supported = supported || a == asset
	}
	if !supported || !tx.AssetAllowed(asset) {
		return remitRequest{}, api.NewErr("product_not_available", "the debit asset is not available for remittances")
	}
	p, ok := l.payeeOf(tx, m, payeeID)
	if !ok {
		return remitRequest{}, api.NewErr("resource_not_found", "payee not found")
	}
	cor, ok := corridorOf(p.Country, p.Currency)
	if !ok || !cor.Supported {
		return remitRequest{}, api.NewErr("corridor_not_supported", "the payee's corridor cannot be served")
	}
	dec := 0
	if i := strings.IndexByte(payout, '.'); i >= 0 {
		dec = len(payout) - i - 1
	}
	if dec != cor.Units {
		return remitRequest{}, api.InvalidRequest(fmt.Sprintf("payout_amount must have exactly %d decimals for %s", cor.Units, cor.Currency))
	}
	amt, err := money.ParseNonNegative(payout, cor.Units)
	if err != nil {
		return remitRequest{}, api.InvalidRequest("payout_amount is not a valid amount")
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
func (l *Line) createRemittance(c *api.Request) (int, any, error) {
	hash := sha256.Sum256(c.Body)
	if rec, ok := l.st.byIdem.Get(c.Tx, c.IdemKey); ok && c.Now.Sub(rec.At) < remitIdemWindow {
		if rec.Hash != hash {
			return 0, nil, api.NewErr("idempotency_key_reused", "idempotency key reused with a different body")
		}
		o, _ := l.st.orders.Get(c.Tx, rec.OrderID)
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
		return 0, nil, api.InvalidRequest("source_amount is not accepted: only the recipient-amount direction is supported (send payout_amount)")
	}
	if in.PayeeID == nil {
		return 0, nil, api.InvalidRequest("payee_id is required")
	}
	payeeID, aerr := checkPayeeID(*in.PayeeID)
	if aerr != nil {
		return 0, nil, aerr
	}
	if in.PayoutAmount == nil {
		return 0, nil, api.InvalidRequest("payout_amount is required")
	}
	if aerr := checkPayoutSyntax(*in.PayoutAmount); aerr != nil {
		return 0, nil, aerr
	}
	bps, ok := slippageOf(in.SlippageBps)
	if !ok {
		return 0, nil, api.InvalidFields("slippage_bps must be an integer from 50 to 1000", "slippage_bps")
	}
	if in.PurposeCode == nil || *in.PurposeCode == "" {
		return 0, nil, api.InvalidRequest("purpose_code is required")
	}
	purpose := *in.PurposeCode
	if !knownPurpose(purpose) {
		return 0, nil, api.InvalidRequest("purpose_code is not one of the service's purpose codes")
	}
	funding, aerr := l.fundingSource(c.Tx, in.FundingSource)
	if aerr != nil {
		return 0, nil, aerr
	}
	req, aerr := l.resolveRemit(c.Tx, c.Member, payeeID, *in.PayoutAmount, in.Line, in.Asset)
	if aerr != nil {
		return 0, nil, aerr
	}
	line := req.Line
	if !line.permits(purpose) {
		return 0, nil, api.InvalidFields("purpose_code is not permitted for the "+line.Name+" line", "purpose_code")
	}
	if aerr := l.remitEligibility(c.Tx, c.Member, line, req.Payee); aerr != nil {
		return 0, nil, aerr
	}
	pr, err := l.price(c.Tx, req.Corridor, req.Payout, line, req.Asset, bps)
	if err != nil {
		return 0, nil, err
	}
	if aerr := l.remitLimits(c.Tx, c.Member, line, pr, c.Now); aerr != nil {
		return 0, nil, aerr
	}
	ref := in.Reference
	if utf8.RuneCountInString(ref) > 200 {
		ref = string([]rune(ref)[:200])
	}
	o := &order{
		Seq: c.Tx.NextSeq(), ID: "rmt_" + c.Tx.NewUUID(), MemberID: c.Member.ID, PayeeID: req.Payee.ID, Line: line.Name, Funding: funding,
		Asset: pr.Asset, Scale: pr.Scale, Slippage: bps,
		Principal: pr.Principal, Fee: pr.Fee, CustomerTotal: pr.CustomerTotal, Locked: pr.Locked, Settled: money.Zero(pr.Scale),
		PayoutCurrency: req.Corridor.Currency, PayoutAmount: *in.PayoutAmount, Rate: pr.Rate,
		Purpose: purpose, Reference: ref, CreatedAt: c.Now, UpdatedAt: c.Now, Version: 1,
	}
	from, held := l.accounts(o)
	if c.Tx.Balance(from, o.Asset).Cmp(o.Locked) < 0 {
		switch {
		case funding == "member":
			return 0, nil, api.NewErr("insufficient_balance", "member available balance insufficient")
		case !line.Queues:
			return 0, nil, api.NewErr("service_unavailable", "line temporarily unavailable")
		}
		o.Status = "pending_merchant_funds" // no funds moved, no limits reserved, no upstream order
	} else {
		if err := c.Tx.Transfer(c.Now, "remittance hold "+o.ID, o.Asset, o.Locked, from, held); err != nil {
			return 0, nil, api.NewErr("insufficient_balance", "balance insufficient")
		}
		o.Held, o.HeldAt = true, c.Now
		o.Status = l.remitFirstStatus(c.Tx, o)
	}
	l.st.orders.Put(c.Tx, o.ID, *o)
	l.st.byIdem.Put(c.Tx, c.IdemKey, idem{Hash: hash, OrderID: o.ID, At: c.Now})
	c.Tx.ExpireAt(IdempotencyWindow, c.IdemKey, c.Now.Add(remitIdemWindow))
	if o.Held {
		l.remitInFlight(c.Tx, o)
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
func (l *Line) fundingSource(tx *kernel.Tx, v *string) (string, *api.Error) {
	fs := ""
	if v != nil {
		fs = *v
	}
	if tx.MerchantHosted() {
		if fs != "merchant" {
			return "", api.InvalidFields("merchant_hosted accounts must send funding_source merchant", "funding_source")
		}
		return "merchant", nil
	}
	if fs != "" && fs != "member" {
		return "", api.InvalidFields("funding_source must be member on platform_hosted accounts", "funding_source")
	}
	return "member", nil
}

// remitFirstStatus is the status of a newly held order: merchant-funded
// orders always pass platform review; member-funded ones at or above the
// review threshold go to review; others dispatch.
func (l *Line) remitFirstStatus(tx *kernel.Tx, o *order) string {
	if o.Funding == "merchant" {
		return "platform_reviewing"
	}
	th, _ := tx.Amount(o.Asset, remitReviewThreshold)
	if o.CustomerTotal.Cmp(th) >= 0 {
		return "reviewing"
	}
	return "dispatching"
}

// remitLimits checks the line minimum, the per-order maximum and the member's
// daily line limit against customer_total. Orders waiting for merchant funds
// and failed orders reserve nothing.
func (l *Line) remitLimits(tx *kernel.Tx, m *api.Member, line lineSpec, pr pricing, now time.Time) *api.Error {
	minA, _ := tx.Amount(pr.Asset, line.Min)
	maxA, _ := tx.Amount(pr.Asset, line.Max)
	daily, _ := tx.Amount(pr.Asset, line.Daily)
	if pr.CustomerTotal.Cmp(minA) < 0 {
		return api.NewErr("amount_out_of_range", "amount below the line minimum")
	}
	if pr.CustomerTotal.Cmp(maxA) > 0 {
		return api.NewErr("limit_exceeded", "per-transaction limit exceeded").With("limit_type", "single").With("limit_scope", "member")
	}
	used := pr.CustomerTotal
	day := now.UTC().Format(time.DateOnly)
	for _, o := range l.st.list.All(tx) {
		if o.MemberID == m.ID && o.Line == line.Name && o.Held && o.Status != "failed" && o.HeldAt.UTC().Format(time.DateOnly) == day {
			if v, err := o.CustomerTotal.Rescale(pr.Scale); err == nil {
				used, _ = used.Add(v)
			}
		}
	}
	if used.Cmp(daily) > 0 {
		return api.NewErr("limit_exceeded", "daily limit exceeded").With("limit_type", "daily").With("limit_scope", "member")
	}
	return nil
}

// --- state machine ---

// --- reads ---

func (l *Line) remitOrderJSON(tx *kernel.Tx, o *order) map[string]any {
	p := l.payee(tx, o)
	return map[string]any{
		"id": o.ID, "line": o.Line, "status": o.publicStatus(), "status_version": o.Version,
		"source_asset": o.Asset, "ledger_scale": o.Scale,
		"locked_amount": o.Locked.String(), "settled_amount": o.Settled.String(), "fee": o.Fee.String(),
		"payout_currency": o.PayoutCurrency, "payout_amount": o.PayoutAmount,
		"rate": o.Rate, "rate_is_dealt": o.RateDealt, "purpose_code": o.Purpose, "reference": o.Reference,
		"failure_code": o.FailureCode, "payout_date": o.PayoutDate,
		"payee":      map[string]any{"summary": p.summary(), "holder": p.Holder},
		"created_at": o.CreatedAt.UTC().Format(time.RFC3339), "updated_at": o.UpdatedAt.UTC().Format(time.RFC3339),
	}
}

// listRemittances answers GET /v1/remittances: the member's orders, newest
// first (limit invalid falls back to 20).
func (l *Line) listRemittances(c *api.Request) (int, any, error) {
	mine := func(o order) bool { return o.MemberID == c.Member.ID }
	env := api.PaginateIndexMatching(c.Tx, l.st.list, c.Req.URL.Query(), mine)
	page := env.Data.([]order)
	out := make([]map[string]any, 0, len(page))
	for _, o := range page {
		out = append(out, l.remitOrderJSON(c.Tx, &o))
	}
	env.Data = out
	return http.StatusOK, env, nil
}

// getRemittance answers GET /v1/remittances/{id} (rmt_ optional) with the
// list item. The response shape is inferred: the specification names this
// endpoint without showing its fields.
func (l *Line) getRemittance(c *api.Request) (int, any, error) {
	id := c.PathID()
	if !strings.HasPrefix(id, "rmt_") {
		id = "rmt_" + id
	}
	o, ok := l.st.orders.Get(c.Tx, id)
	if !ok || o.MemberID != c.Member.ID {
		return 0, nil, api.NotFound("remittance")
	}
	return http.StatusOK, l.remitOrderJSON(c.Tx, &o), nil
}

// --- VP applications ---

// --- Go methods mirroring the control actions ---
