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

// state is the state of the QR payment line.
type state struct {
	orders    map[string]*order // by qrp_ id
	list      []*order          // ascending by (CreatedAt, ID)
	memo      map[string]*upstreamQuote
	window    map[string][]time.Time // member id -> quote times in the window
	scenarios map[string][]string    // code digest -> scenarios set by SetScenario
	disabled  bool                   // the line is switched off: service_unavailable
	fiatUSD   map[string]*apd.Decimal
	assetUSD  map[string]*apd.Decimal
	stats     UpstreamStats
	limits    limits
}

type limits struct {
	min, maxPerTx, daily, kyc2 *apd.Decimal
}

// UpstreamStats counts the simulated upstream's outbound calls.
type UpstreamStats struct {
	// Quotes counts upstream quote calls: one per quote not served from the
	// 60-second memo, and one per payment (payments always re-quote).
	Quotes int
	// Notices counts payment notices sent upstream (timed-out ones included).
	Notices int
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

// Asset is a catalogue asset as the line prices it.
type Asset struct {
	Code         string
	LedgerScale  int
	DisplayScale int
}

// Posting is one leg of a ledger entry.
type Posting struct {
	Account string
	Asset   string
	Amount  money.Amount
}

// Collection is the outcome collection of QR orders: the acquirer's
// success path runs when its outcome mode says.
const Collection = "qrpay/orders"

// Host is what the QR line needs of other lines and of the simulator; the
// clock, ids, amounts and events are the transaction's (kernel.Tx).
// Methods taking a *kernel.Tx run in the caller's transaction; the others
// are read in it too (the line is only entered with the state lock held).
type Host interface {
	// Digest names an action by its parts (the step-up action digest).
	Digest(parts ...string) string
	// RequireStepUp consumes a completed step-up challenge for action or
	// issues one and answers step_up_required.
	RequireStepUp(c *api.Request, action string) error
	// MerchantHosted reports the merchant_hosted custody model: payments are
	// merchant-funded.
	MerchantHosted() bool
	// MerchantFeeRateBps is the merchant fee rate of merchant-funded
	// payments.
	MerchantFeeRateBps() int64
	// Restriction names why a member may not move money out, or "".
	Restriction(m *api.Member) string
	// Assets lists the catalogue in its order.
	Assets() []Asset
	// Asset looks up a catalogue asset.
	Asset(code string) (Asset, bool)
	// AssetAllowed reports whether code is enabled and allowed to the
	// merchant.
	AssetAllowed(code string) bool
	// FiatAmount parses a QR payment amount in a currency with minor
	// decimals (the amount parser's QR form): its value and its text with
	// exactly minor decimals, or false.
	FiatAmount(v string, minor int) (*apd.Decimal, string, bool)
	// UpstreamAccount names the QR upstream's settlement account.
	UpstreamAccount() string
	// Balance is the balance of account in asset.
	Balance(account, asset string) money.Amount
	// Post applies one balanced ledger entry, or nothing.
	Post(tx *kernel.Tx, at time.Time, memo string, legs ...Posting) error
	// InsufficientFunds reports a Post refused because an account would go
	// negative.
	InsufficientFunds(err error) bool
	// ExpireMemoAt schedules the quotes memo entry key to be dropped at at
	// (ExpireMemo).
	ExpireMemoAt(key string, at time.Time)
}

// Line is the QR payment line: its state, and its host. The state is part
// of the simulator's state image; the host is not.
type Line struct {
	st   state
	host Host `image:"-"`
}

// New returns the line with no orders, the default rate table and limits.
func New(h Host) *Line {
	l := &Line{host: h, st: state{
		orders:    map[string]*order{},
		memo:      map[string]*upstreamQuote{},
		window:    map[string][]time.Time{},
		scenarios: map[string][]string{},
		fiatUSD:   map[string]*apd.Decimal{},
		assetUSD:  map[string]*apd.Decimal{},
		limits: limits{
			min: decimal(qrMinUSD), maxPerTx: decimal(qrMaxPerTxUSD), daily: decimal(qrDailyUSD), kyc2: decimal(qrKYC2ThresholdUS),
		},
	}}
	for k, v := range qrFiatUSD {
		l.st.fiatUSD[k] = decimal(v)
	}
	for k, v := range qrAssetUSD {
		l.st.assetUSD[k] = decimal(v)
	}
	return l
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
func (l *Line) parseCode(value string) (*code, error) {
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
		if _, _, ok := l.host.FiatAmount(p.Amount, cur.MinorUnits); !ok {
			return nil, api.NewErr("qr_code_invalid", "the QR code cannot be used")
		}
	}
	q := &code{value: value, payload: p, scheme: sch, currency: cur, scenarios: map[string]bool{}}
	for _, f := range p.AdditionalData {
		if name, ok := strings.CutPrefix(f.Value, "SIM:"); ok && qrScenarios[name] {
			q.scenarios[name] = true
		}
	}
	for _, name := range l.st.scenarios[l.host.Digest("qrcode", value)] {
		q.scenarios[name] = true
	}
	return q, nil
}

// SetScenario makes the simulated upstream behave as scenarios for the code
// value; no scenarios clears them. Scenarios written into the payload itself
// ("SIM:<scenario>" in template 62) apply too. An unknown scenario changes
// nothing.
func (l *Line) SetScenario(tx *kernel.Tx, codeValue string, scenarios ...string) error {
	tx.Live()
	for _, sc := range scenarios {
		if !qrScenarios[sc] {
			return fmt.Errorf("unknown QR scenario %q", sc)
		}
	}
	k := l.host.Digest("qrcode", codeValue)
	if len(scenarios) == 0 {
		delete(l.st.scenarios, k)
		return nil
	}
	l.st.scenarios[k] = append([]string(nil), scenarios...)
	return nil
}

// SetEnabled switches the line on or off. Off, decode, quotes and payments
// answer service_unavailable (no upstream, line not enabled).
func (l *Line) SetEnabled(tx *kernel.Tx, enabled bool) {
	tx.Live()
	l.st.disabled = !enabled
}

// SetFiatRate changes the upstream's USD value of one unit of an acquiring
// currency ("THB", "0.0291"). Upstream orders already memoised keep their
// prices; payments re-quote at the new rate.
func (l *Line) SetFiatRate(tx *kernel.Tx, currency, usdPerUnit string) error {
	d, _, err := apd.NewFromString(usdPerUnit)
	if err != nil || d.Sign() <= 0 || d.Form != apd.Finite {
		return fmt.Errorf("rate %q: want a positive decimal", usdPerUnit)
	}
	tx.Live()
	l.st.fiatUSD[currency] = d
	return nil
}

// UpstreamCalls returns how many calls the simulated upstream received.
func (l *Line) UpstreamCalls(tx *kernel.Tx) UpstreamStats {
	tx.Live()
	return l.st.stats
}

// Trace returns the steps a payment went through, in order: step_up,
// quote, hold, notice (or notice_timeout), then its outcomes (complete,
// fail, refund, timeout); nil for no such order. id is accepted with or
// without qrp_.
func (l *Line) Trace(tx *kernel.Tx, id string) []string {
	tx.Live()
	o := l.st.orders[OrderID(id)]
	if o == nil {
		return nil
	}
	return append([]string(nil), o.Trace...)
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
// completes the order of the exact id, and does nothing when there is none
// or it is no longer processing.
func (l *Line) OutcomeSuccess(tx *kernel.Tx, id string) {
	if o := l.st.orders[id]; o != nil {
		_ = l.transition(tx, o, "complete")
	}
}

func (l *Line) schemes(c *api.Request) (int, any, error) {
	items := []map[string]any{}
	for _, sc := range emvqr.Schemes() {
		items = append(items, map[string]any{"scheme": sc.ID, "name": sc.Name, "country": sc.Country, "currency": sc.Currency})
	}
	sort.Slice(items, func(i, j int) bool { return items[i]["scheme"].(string) < items[j]["scheme"].(string) })
	return http.StatusOK, api.ListEnvelope{Data: items, NextCursor: nil, HasMore: false}, nil
}
