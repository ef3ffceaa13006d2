// Package qrpay is the QR payment line of the simulator: POST
// /v1/qrpay/decode, /quotes, /payments, GET /v1/qrpay/orders/{id} and
// /v1/qrpay/schemes.
//
// The upstream (the acquiring network) is played in-process: it decodes real
// EMVCo payloads (package emvqr), prices them from a fixed rate table, keeps
// one upstream order per member, code, currency and amount for 60 seconds,
// and reaches an outcome through the simulator's outcome modes or the
// control actions qrpay/orders/{id}/complete, fail, refund and timeout.
//
// The line owns its state (orders, the quotes memo and rate-limit windows,
// scenarios, rates, upstream counters) and its transitions; what it needs
// from the merchant, the members, the asset catalogue, the ledger, step-up,
// outcomes and events it reaches through Host, which it declares.
package qrpay

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// QR line constants. Amounts are USD values of the principal (the asset
// amount the upstream receives, cost protection included); fees never count.
const (
	qrQuoteMemo        = 60 * time.Second // upstream order reuse
	qrQuoteWindow      = 60 * time.Second // rate-limit window
	qrQuotesPerWindow  = 30               // quotes per member per window
	qrUpstreamQuoteTTL = 60 * time.Second // expires_at of an upstream order
	qrPremiumBps       = 30               // cost protection, inside the principal
	qrMemberFeeBps     = 50               // member-funded service fee
	qrLineKYCLevel     = 1                // KYC level the line requires
)

// QR line limits in USD of principal.
var (
	qrMinUSD          = "1.00"
	qrMaxPerTxUSD     = "2000.00"
	qrDailyUSD        = "3000.00"
	qrKYC2ThresholdUS = "1000.00" // above this per payment, KYC level 2 is needed
)

// qrFiatUSD is the upstream's rate table: USD value of one unit of each
// acquiring-side currency. Exact decimals.
var qrFiatUSD = map[string]string{
	"THB": "0.029", "SGD": "0.74", "IDR": "0.000063", "KHR": "0.00025", "USD": "1",
	"MYR": "0.22", "CNY": "0.14", "VND": "0.00004", "PHP": "0.0175", "HKD": "0.128",
	"INR": "0.012", "EUR": "1.08", "GBP": "1.27", "JPY": "0.0067", "AUD": "0.66",
	"KRW": "0.00072", "LAK": "0.000046", "MMK": "0.00048", "TWD": "0.031",
}

// qrAssetUSD is the USD price of one unit of each asset the upstream quotes.
var qrAssetUSD = map[string]string{"USDT": "1", "USDC": "1", "BTC": "100000", "ETH": "2500"}

// qrNoETH lists the currencies for which the upstream quotes no ETH.
var qrNoETH = map[string]bool{"IDR": true, "KHR": true, "VND": true, "LAK": true, "MMK": true}

// The upstream scenarios (the simulator's QRScenario constants document
// each): a behaviour selected by a value "SIM:<scenario>" in any sub-object
// of the payload's additional data template (ID 62), or set with
// SetScenario.
const (
	ScenarioPayerFields   = "payer_fields"
	ScenarioBlocked       = "blocked"
	ScenarioCorridor      = "corridor"
	ScenarioRange         = "range"
	ScenarioUpstreamError = "upstream_error"
	ScenarioReject        = "reject"
	ScenarioTimeout       = "timeout"
)

var qrScenarios = map[string]bool{
	ScenarioPayerFields: true, ScenarioBlocked: true, ScenarioCorridor: true, ScenarioRange: true,
	ScenarioUpstreamError: true, ScenarioReject: true, ScenarioTimeout: true,
}

// Scenarios returns the scenario names, sorted.
func Scenarios() []string {
	out := make([]string, 0, len(qrScenarios))
	for k := range qrScenarios {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// IsScenario reports whether name is a scenario.
func IsScenario(name string) bool { return qrScenarios[name] }

// qrPayerFields are the payer keys the payer_fields scenario requires.
var qrPayerFields = []string{"custName", "custNationCode", "mobile"}

// qrPayerKeys are the documented payer object keys; others are dropped.
var qrPayerKeys = map[string]bool{
	"custName": true, "custFirstName": true, "custLastName": true, "custNationCode": true, "gender": true,
	"mobile": true, "email": true, "legalNationCode": true, "legalType": true, "legalId": true,
}

// state is the state of the QR payment line. Decimals (rates, USD values)
// are kept as their text (apd.Decimal.String) and parsed where computed.
type state struct {
	orders    *kernel.Table[string, order] // by qrp_ id
	list      *kernel.Index[string, order, api.PageKey]
	memo      *kernel.Table[string, memoRow]                // the upstream orders of the last 60 seconds
	window    *kernel.Table[string, kernel.List[time.Time]] // member id -> quote times in the window
	scenarios *kernel.Table[string, kernel.List[string]]    // code digest -> scenarios set by SetScenario
	disabled  *kernel.Cell[bool]                            // the line is switched off: service_unavailable
	fiatUSD   *kernel.Table[string, string]                 // currency -> USD value of one unit
	assetUSD  *kernel.Table[string, string]                 // asset -> USD price of one unit
	stats     *kernel.Cell[UpstreamStats]
}

// limits are the line's limits in USD of principal.
type limits struct {
	min, maxPerTx, daily, kyc2 *apd.Decimal
}

// legacyLimits are the line's limits as the state image of recordings of
// versions 1 and 2 held them.
type legacyLimits struct {
	Min, MaxPerTx, Daily, Kyc2 *apd.Decimal
}

func (l limits) legacy() legacyLimits {
	return legacyLimits{Min: l.min, MaxPerTx: l.maxPerTx, Daily: l.daily, Kyc2: l.kyc2}
}

func lineLimits() limits {
	return limits{min: decimal(qrMinUSD), maxPerTx: decimal(qrMaxPerTxUSD), daily: decimal(qrDailyUSD), kyc2: decimal(qrKYC2ThresholdUS)}
}

// UpstreamStats counts the simulated upstream's outbound calls.
type UpstreamStats struct {
	// Quotes counts upstream quote calls: one per quote not served from the
	// 60-second memo, and one per payment (payments always re-quote).
	Quotes int
	// Notices counts payment notices sent upstream (timed-out ones included).
	Notices int
}

// memoRow is an upstream order kept in the quotes memo: upstreamQuote as
// a row.
type memoRow struct {
	ID          string
	CreatedAt   time.Time
	ExpiresAt   time.Time
	Payee       string
	Currency    string
	Amount      string
	AmountValue string
	Upstream    kernel.List[quoted] // by asset
}

// quoted is the upstream amount of one asset.
type quoted struct {
	Asset  string
	Amount money.Amount
}

func (uq *upstreamQuote) row() memoRow {
	r := memoRow{ID: uq.ID, CreatedAt: uq.CreatedAt, ExpiresAt: uq.ExpiresAt, Payee: uq.Payee, Currency: uq.Currency,
		Amount: uq.Amount, AmountValue: uq.AmountValue.String()}
	assets := make([]string, 0, len(uq.Upstream))
	for a := range uq.Upstream {
		assets = append(assets, a)
	}
	sort.Strings(assets)
	for _, a := range assets {
		r.Upstream = r.Upstream.Append(quoted{a, uq.Upstream[a]})
	}
	return r
}

func (r memoRow) quote() *upstreamQuote {
	uq := &upstreamQuote{ID: r.ID, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, Payee: r.Payee, Currency: r.Currency,
		Amount: r.Amount, AmountValue: decimal(r.AmountValue), Upstream: map[string]money.Amount{}}
	for q := range r.Upstream.Values() {
		uq.Upstream[q.Asset] = q.Amount
	}
	return uq
}

// upstreamQuote is one upstream order: what the upstream quoted for a
// code, currency and amount.
type upstreamQuote struct {
	ID          string
	CreatedAt   time.Time
	ExpiresAt   time.Time
	Payee       string
	Currency    string
	Amount      string                  // acquirer_amount, as the upstream prints it
	AmountValue *apd.Decimal            // the same, parsed
	Upstream    map[string]money.Amount // asset -> upstream amount (before premium)
}

func decimal(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		// Only the constant tables above reach this.
		return apd.New(0, 0)
	}
	return d
}

// Collection is the outcome collection of QR orders: the acquirer's
// success path runs when its outcome mode says.
const Collection = "qrpay/orders"

// MemoWindow is the expiry window of the quotes memo (kernel.Tx.ExpireAt):
// the simulator drops an entry past its expiry (ExpireMemo).
const MemoWindow = "qrpay/quote_memo"

// Upstream names the acquirer's settlement account in the ledger
// (kernel.UpstreamAccount).
const Upstream = "qrpay"

// Host is what the QR line needs of other lines (members, step-up, the
// merchant's fee rate); what every line uses (the clock, ids, amounts, the
// ledger, events, the catalogue, the merchant's custody model and
// allowlist, the expiry of the quotes memo) is the kernel's, through the
// transaction. Every method runs in the caller's transaction.
type Host interface {
	// Member is the member of the exact mem_ id (the members line).
	Member(tx *kernel.Tx, id string) *api.Member
	// RequireStepUp consumes a completed step-up challenge for action or
	// issues one and answers step_up_required.
	RequireStepUp(c *api.Request, action string) error
	// MerchantFeeRateBps is the merchant fee rate of merchant-funded
	// payments.
	MerchantFeeRateBps(tx *kernel.Tx) int64
}

// Line is the QR payment line: its state, and its host. The state is part
// of the simulator's state image; the host is not.
type Line struct {
	st   state
	host Host `image:"-"`
}

// New returns the line with no orders, the default rate table and limits,
// its tables in kernel k; tx is the setup transaction that fills the rate
// tables.
func New(k *kernel.Kernel, tx *kernel.Tx, h Host) *Line {
	orders := kernel.NewTable[string, order](k, "qrpay.orders")
	l := &Line{host: h, st: state{
		orders:    orders,
		list:      kernel.NewIndex(orders, "by_created", func(o order) (api.PageKey, bool) { return o.key(), true }, api.ComparePageKey),
		memo:      kernel.NewTable[string, memoRow](k, "qrpay.memo"),
		window:    kernel.NewTable[string, kernel.List[time.Time]](k, "qrpay.quote_window"),
		scenarios: kernel.NewTable[string, kernel.List[string]](k, "qrpay.scenarios"),
		disabled:  kernel.NewCell(k, "qrpay.disabled", false),
		fiatUSD:   kernel.NewTable[string, string](k, "qrpay.fiat_usd"),
		assetUSD:  kernel.NewTable[string, string](k, "qrpay.asset_usd"),
		stats:     kernel.NewCell(k, "qrpay.upstream_calls", UpstreamStats{}),
	}}
	for k, v := range qrFiatUSD {
		l.st.fiatUSD.Put(tx, k, decimal(v).String())
	}
	for k, v := range qrAssetUSD {
		l.st.assetUSD.Put(tx, k, decimal(v).String())
	}
	return l
}

// rate is the USD value in t of key, or nil.
func rate(tx *kernel.Tx, t *kernel.Table[string, string], key string) *apd.Decimal {
	if v, ok := t.Get(tx, key); ok {
		return decimal(v)
	}
	return nil
}

// Endpoints are the line's business endpoints, for the gateway.
func (l *Line) Endpoints() []api.Endpoint {
	return []api.Endpoint{
		{Method: http.MethodPost, Pattern: "/v1/qrpay/decode", Scope: "qrpay:write", Member: true, Handle: l.decode},
		{Method: http.MethodPost, Pattern: "/v1/qrpay/quotes", Scope: "qrpay:write", Member: true, Handle: l.quote},
		{Method: http.MethodPost, Pattern: "/v1/qrpay/payments", Scope: "qrpay:write", Member: true, Idempotent: true, Handle: l.pay},
		{Method: http.MethodGet, Pattern: "/v1/qrpay/orders/{id}", Scope: "qrpay:write", Member: true, Handle: l.getOrder},
		{Method: http.MethodGet, Pattern: "/v1/qrpay/schemes", Scope: "qrpay:write", Handle: l.schemes},
	}
}

// Actions are the upstream's actions on an order, in the order the control
// API registers them.
var Actions = []string{"complete", "fail", "refund", "timeout"}

// code is a decoded, supported code with its scenarios.
type code struct {
	value     string
	payload   *emvqr.Payload
	scheme    emvqr.Scheme
	currency  emvqr.Currency
	scenarios map[string]bool
}

func (q *code) has(scenario string) bool { return q.scenarios[scenario] }

// payee is the merchant name, or, for codes that carry none (person-to-person
// codes, an empty name field), the account the scheme's template names, read
// by the scheme's published layout (emvqr.Payload.Account): never a raw
// sub-object. A template this package cannot read gives the scheme's name.
func (q *code) payee() string {
	if q.payload.MerchantName != "" {
		return q.payload.MerchantName
	}
	if a, ok := q.payload.Account(); ok {
		return a.String()
	}
	return q.scheme.Name
}

// rangeLimits returns the code's amount range (custom-amount codes of the
// range scenario), or nils.
func (q *code) rangeLimits() (lo, hi *apd.Decimal) {
	if q.has(ScenarioRange) && q.payload.AmountEditable() {
		return decimal("10.00"), decimal("500.00")
	}
	return nil, nil
}

// parseCode decodes a code value. Undecodable codes, codes of an unsupported
// scheme and codes whose currency has no ISO 4217 entry are qr_code_invalid
// (one response for all).
func (l *Line) parseCode(tx *kernel.Tx, value string) (*code, error) {
	p, err := emvqr.Decode(value)
	if err != nil {
		return nil, api.NewErr("qr_code_invalid", "the QR code cannot be used")
	}
	sch, ok := p.Scheme()
	if !ok {
		return nil, api.NewErr("qr_code_invalid", "the QR code cannot be used")
	}
	cur, ok := emvqr.CurrencyByNumeric(p.Currency)
	if !ok {
		return nil, api.NewErr("qr_code_invalid", "the QR code cannot be used")
	}
	// A fixed amount must be payable exactly in the currency: more decimals
	// than its minor units are refused unless they are zeros ("12.500" THB is
	// 12.50; "12.505" cannot be paid). The same check serves decode, quotes and
	// payments, so all three answer alike.
	if !p.AmountEditable() {
		if _, _, ok := api.FiatAmount(p.Amount, cur.MinorUnits); !ok {
			return nil, api.NewErr("qr_code_invalid", "the QR code cannot be used")
		}
	}
	q := &code{value: value, payload: p, scheme: sch, currency: cur, scenarios: map[string]bool{}}
	for _, f := range p.AdditionalData {
		if name, ok := strings.CutPrefix(f.Value, "SIM:"); ok && qrScenarios[name] {
			q.scenarios[name] = true
		}
	}
	if set, ok := l.st.scenarios.Get(tx, api.ActionDigest("qrcode", value)); ok {
		for name := range set.Values() {
			q.scenarios[name] = true
		}
	}
	return q, nil
}

// SetScenario makes the simulated upstream behave as scenarios for the code
// value; no scenarios clears them. Scenarios written into the payload itself
// ("SIM:<scenario>" in template 62) apply too. An unknown scenario changes
// nothing.
func (l *Line) SetScenario(tx *kernel.Tx, codeValue string, scenarios ...string) error {
	for _, sc := range scenarios {
		if !qrScenarios[sc] {
			return fmt.Errorf("unknown QR scenario %q", sc)
		}
	}
	k := api.ActionDigest("qrcode", codeValue)
	if len(scenarios) == 0 {
		l.st.scenarios.Delete(tx, k)
		return nil
	}
	l.st.scenarios.Put(tx, k, kernel.ListOf(scenarios...))
	return nil
}

// SetEnabled switches the line on or off. Off, decode, quotes and payments
// answer service_unavailable (no upstream, line not enabled).
func (l *Line) SetEnabled(tx *kernel.Tx, enabled bool) { l.st.disabled.Set(tx, !enabled) }

// SetFiatRate changes the upstream's USD value of one unit of an acquiring
// currency ("THB", "0.0291"). Upstream orders already memoised keep their
// prices; payments re-quote at the new rate.
func (l *Line) SetFiatRate(tx *kernel.Tx, currency, usdPerUnit string) error {
	d, _, err := apd.NewFromString(usdPerUnit)
	if err != nil || d.Sign() <= 0 || d.Form != apd.Finite {
		return fmt.Errorf("rate %q: want a positive decimal", usdPerUnit)
	}
	l.st.fiatUSD.Put(tx, currency, d.String())
	return nil
}

// UpstreamCalls returns how many calls the simulated upstream received.
func (l *Line) UpstreamCalls(tx *kernel.Tx) UpstreamStats { return l.st.stats.Get(tx) }

// Trace returns the steps a payment went through, in order: step_up,
// quote, hold, notice (or notice_timeout), then its outcomes (complete,
// fail, refund, timeout); nil for no such order. id is accepted with or
// without qrp_.
func (l *Line) Trace(tx *kernel.Tx, id string) []string {
	o, ok := l.st.orders.Get(tx, OrderID(id))
	if !ok {
		return nil
	}
	return append([]string(nil), o.Trace.Slice()...)
}

// OrderID returns the REST form qrp_<id> of an order id given with or
// without its prefix.
func OrderID(id string) string {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(id, "qrp_") {
		return id
	}
	return "qrp_" + id
}

// Action applies an upstream action (one of Actions) to an order and
// returns the order's JSON; not_found for no such order, state_invalid for
// an action its status does not allow.
func (l *Line) Action(tx *kernel.Tx, id, action string) (map[string]any, error) {
	o, err := l.action(tx, id, action)
	if err != nil {
		return nil, err
	}
	return o.json(), nil
}

// OutcomeSuccess is the acquirer's success path of an order in flight: it
// completes the order of the exact id, and does nothing when there is none;
// an order no longer processing is its error.
func (l *Line) OutcomeSuccess(tx *kernel.Tx, id string) error {
	if o, ok := l.st.orders.Get(tx, id); ok {
		return l.transition(tx, o, "complete")
	}
	return nil
}

func (l *Line) schemes(c *api.Request) (int, any, error) {
	items := []map[string]any{}
	for _, sc := range emvqr.Schemes() {
		items = append(items, map[string]any{"scheme": sc.ID, "name": sc.Name, "country": sc.Country, "currency": sc.Currency})
	}
	sort.Slice(items, func(i, j int) bool { return items[i]["scheme"].(string) < items[j]["scheme"].(string) })
	return http.StatusOK, api.ListEnvelope{Data: items, NextCursor: nil, HasMore: false}, nil
}

// Legacy is the QR payment line as the state image of recordings of
// versions 1 and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	Orders    map[string]*legacyOrder
	List      []*legacyOrder
	Memo      map[string]*upstreamQuote
	Window    map[string][]time.Time
	Scenarios map[string][]string
	Disabled  bool
	FiatUSD   map[string]*apd.Decimal
	AssetUSD  map[string]*apd.Decimal
	Stats     UpstreamStats
	Limits    legacyLimits
}

type legacyOrder struct {
	Seq             int64
	ID              string
	MemberID        string
	Member          *api.LegacyMember
	Status          string
	Version         int64
	CreatedAt       time.Time
	Plan            legacyPlan
	Payee           string
	Currency        string
	Amount          string
	PrincipalUSD    *apd.Decimal
	UpstreamQuoteID string
	Payer           map[string]string
	NoticeTimedOut  bool
	Trace           []string
	From, Locked    string
}

type legacyPlan struct {
	Asset          string
	Scale          int
	DisplayScale   int
	Principal      money.Amount
	Fee            money.Amount
	CustomerTotal  money.Amount
	MerchantFunded bool
	FeeAsset       string
	FeeAmount      money.Amount
	FeeScale       int
	Sufficient     bool
	PrincipalUSD   *apd.Decimal
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it; its orders share members with the members line's image
// (members, by mem_ id).
func (l *Line) Legacy(tx *kernel.Tx, members map[string]*api.LegacyMember) *Legacy {
	st := legacyState{
		Orders: map[string]*legacyOrder{}, Memo: map[string]*upstreamQuote{}, Window: map[string][]time.Time{},
		Scenarios: map[string][]string{}, Disabled: l.st.disabled.Get(tx), FiatUSD: map[string]*apd.Decimal{},
		AssetUSD: map[string]*apd.Decimal{}, Stats: l.st.stats.Get(tx), Limits: lineLimits().legacy(),
	}
	for _, o := range l.st.list.All(tx) {
		p := o.Plan
		usd := decimal(p.PrincipalUSD)
		lo := &legacyOrder{
			Seq: o.Seq, ID: o.ID, MemberID: o.MemberID, Member: members[o.MemberID], Status: o.Status, Version: o.Version,
			CreatedAt: o.CreatedAt, Plan: legacyPlan{
				Asset: p.Asset, Scale: p.Scale, DisplayScale: p.DisplayScale, Principal: p.Principal, Fee: p.Fee,
				CustomerTotal: p.CustomerTotal, MerchantFunded: p.MerchantFunded, FeeAsset: p.FeeAsset, FeeAmount: p.FeeAmount,
				FeeScale: p.FeeScale, Sufficient: p.Sufficient, PrincipalUSD: usd,
			},
			Payee: o.Payee, Currency: o.Currency, Amount: o.Amount, PrincipalUSD: usd, UpstreamQuoteID: o.UpstreamQuoteID,
			NoticeTimedOut: o.NoticeTimedOut, Trace: o.Trace.Slice(), From: o.From, Locked: o.Locked,
		}
		if o.PayerSet {
			lo.Payer = map[string]string{}
			for f := range o.Payer.Values() {
				lo.Payer[f.Key] = f.Value
			}
		}
		st.Orders[o.ID] = lo
		st.List = append(st.List, lo)
	}
	for k, r := range l.st.memo.All(tx) {
		st.Memo[k] = r.quote()
	}
	for k, w := range l.st.window.All(tx) {
		st.Window[k] = w.Slice()
	}
	for k, s := range l.st.scenarios.All(tx) {
		st.Scenarios[k] = s.Slice()
	}
	for k, v := range l.st.fiatUSD.All(tx) {
		st.FiatUSD[k] = decimal(v)
	}
	for k, v := range l.st.assetUSD.All(tx) {
		st.AssetUSD[k] = decimal(v)
	}
	return &Legacy{St: st}
}
