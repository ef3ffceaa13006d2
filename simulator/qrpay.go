package simulator

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// QR payment line of the simulator: POST /v1/qrpay/decode, /quotes,
// /payments, GET /v1/qrpay/orders/{id} and /v1/qrpay/schemes.
//
// The upstream (the acquiring network) is played in-process: it decodes real
// EMVCo payloads (package emvqr), prices them from a fixed rate table, keeps
// one upstream order per member, code, currency and amount for 60 seconds,
// and reaches an outcome through the outcome modes (outcome.go) or the
// control actions qrpay/orders/{id}/complete, fail, refund and timeout.

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
	qrUpstreamLine     = "qrpay"          // UpstreamAccount(qrUpstreamLine)
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

// QR scenarios: an upstream behaviour selected by a value "SIM:<scenario>" in
// any sub-object of the payload's additional data template (ID 62), or set
// with QRPayControl.SetScenario.
const (
	// QRScenarioPayerFields makes the upstream ask for payer data: decode
	// lists custName, custNationCode and mobile in required_payer_fields;
	// quotes refuse the code (product_not_available); payments need a payer
	// with those keys (invalid_fields payer.<key> otherwise).
	QRScenarioPayerFields = "payer_fields"
	// QRScenarioBlocked makes the upstream's risk check block the member for
	// this code: quotes carry blocked_reason member_blocked, payments fail
	// with 500 api_error.
	QRScenarioBlocked = "blocked"
	// QRScenarioCorridor makes the corridor unavailable: quotes answer
	// corridor_not_supported, payments 500 api_error.
	QRScenarioCorridor = "corridor"
	// QRScenarioRange gives a custom-amount code the range 10.00 to 500.00:
	// decode shows it, quotes outside it answer amount_out_of_range, payments
	// 500 api_error.
	QRScenarioRange = "range"
	// QRScenarioUpstreamError makes the upstream unreachable for this code:
	// decode answers service_unavailable, quotes 502 upstream_error,
	// payments service_unavailable (nothing held).
	QRScenarioUpstreamError = "upstream_error"
	// QRScenarioReject makes the upstream reject the code: qr_code_invalid
	// on decode, quotes and payments.
	QRScenarioReject = "reject"
	// QRScenarioTimeout makes the payment's upstream notice time out: the
	// order is answered processing with funds held, and stays so until an
	// outcome arrives.
	QRScenarioTimeout = "timeout"
)

var qrScenarios = map[string]bool{
	QRScenarioPayerFields: true, QRScenarioBlocked: true, QRScenarioCorridor: true, QRScenarioRange: true,
	QRScenarioUpstreamError: true, QRScenarioReject: true, QRScenarioTimeout: true,
}

// qrPayerFields are the payer keys the payer_fields scenario requires.
var qrPayerFields = []string{"custName", "custNationCode", "mobile"}

// qrPayerKeys are the documented payer object keys; others are dropped.
var qrPayerKeys = map[string]bool{
	"custName": true, "custFirstName": true, "custLastName": true, "custNationCode": true, "gender": true,
	"mobile": true, "email": true, "legalNationCode": true, "legalType": true, "legalId": true,
}

// qrState is the state of the QR payment line.
type qrState struct {
	orders    map[string]*qrOrder // by qrp_ id
	list      []*qrOrder          // ascending by (CreatedAt, ID)
	memo      map[string]*qrUpstreamQuote
	window    map[string][]time.Time // member id -> quote times in the window
	scenarios map[string][]string    // code digest -> scenarios set by SetQRScenario
	disabled  bool                   // the line is switched off: service_unavailable
	fiatUSD   map[string]*apd.Decimal
	assetUSD  map[string]*apd.Decimal
	stats     QRUpstreamStats
	limits    qrLimits
}

type qrLimits struct {
	min, maxPerTx, daily, kyc2 *apd.Decimal
}

// QRUpstreamStats counts the simulated upstream's outbound calls.
type QRUpstreamStats struct {
	// Quotes counts upstream quote calls: one per quote not served from the
	// 60-second memo, and one per payment (payments always re-quote).
	Quotes int
	// Notices counts payment notices sent upstream (timed-out ones included).
	Notices int
}

// qrUpstreamQuote is one upstream order: what the upstream quoted for a
// code, currency and amount.
type qrUpstreamQuote struct {
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

func (s *Simulator) registerQRPay() {
	s.qr = &qrState{
		orders:    map[string]*qrOrder{},
		memo:      map[string]*qrUpstreamQuote{},
		window:    map[string][]time.Time{},
		scenarios: map[string][]string{},
		fiatUSD:   map[string]*apd.Decimal{},
		assetUSD:  map[string]*apd.Decimal{},
		limits: qrLimits{
			min: decimal(qrMinUSD), maxPerTx: decimal(qrMaxPerTxUSD), daily: decimal(qrDailyUSD), kyc2: decimal(qrKYC2ThresholdUS),
		},
	}
	for k, v := range qrFiatUSD {
		s.qr.fiatUSD[k] = decimal(v)
	}
	for k, v := range qrAssetUSD {
		s.qr.assetUSD[k] = decimal(v)
	}
	// The acquirer's success path of an order in flight (outcome.go).
	s.onOutcome(CollectionQROrders, func(tx *kernel.Tx, id string) {
		if o := s.qr.orders[id]; o != nil {
			_ = s.qrTransition(tx, o, "complete")
		}
	})
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/qrpay/decode", Scope: "qrpay:write", Member: true, Handle: s.qrDecode})
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/qrpay/quotes", Scope: "qrpay:write", Member: true, Handle: s.qrQuote})
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/qrpay/payments", Scope: "qrpay:write", Member: true, Idempotent: true, Handle: s.qrPay})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/qrpay/orders/{id}", Scope: "qrpay:write", Member: true, Handle: s.qrGetOrder})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/qrpay/schemes", Scope: "qrpay:write", Handle: s.qrSchemes})
	for _, a := range []string{"complete", "fail", "refund", "timeout"} {
		action := a
		s.actions[string(CollectionQROrders)+"/"+action] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
			o, err := s.qrAction(tx, id, action)
			if err != nil {
				return nil, err
			}
			return o.json(), nil
		}
	}
}

// qrCode is a decoded, supported code with its scenarios.
type qrCode struct {
	value     string
	payload   *emvqr.Payload
	scheme    emvqr.Scheme
	currency  emvqr.Currency
	scenarios map[string]bool
}

func (q *qrCode) has(scenario string) bool { return q.scenarios[scenario] }

// payee is the merchant name, or, for codes that carry none (person-to-person
// codes, an empty name field), the account the scheme's template names, read
// by the scheme's published layout (emvqr.Payload.Account): never a raw
// sub-object. A template this package cannot read gives the scheme's name.
func (q *qrCode) payee() string {
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
func (q *qrCode) rangeLimits() (lo, hi *apd.Decimal) {
	if q.has(QRScenarioRange) && q.payload.AmountEditable() {
		return decimal("10.00"), decimal("500.00")
	}
	return nil, nil
}

// parseCode decodes a code value. Undecodable codes, codes of an unsupported
// scheme and codes whose currency has no ISO 4217 entry are qr_code_invalid
// (one response for all).
func (s *Simulator) parseCode(value string) (*qrCode, error) {
	p, err := emvqr.Decode(value)
	if err != nil {
		return nil, newErr("qr_code_invalid", "the QR code cannot be used")
	}
	sch, ok := p.Scheme()
	if !ok {
		return nil, newErr("qr_code_invalid", "the QR code cannot be used")
	}
	cur, ok := emvqr.CurrencyByNumeric(p.Currency)
	if !ok {
		return nil, newErr("qr_code_invalid", "the QR code cannot be used")
	}
	// A fixed amount must be payable exactly in the currency: more decimals
	// than its minor units are refused unless they are zeros ("12.500" THB is
	// 12.50; "12.505" cannot be paid). The same check serves decode, quotes and
	// payments, so all three answer alike.
	if !p.AmountEditable() {
		if _, _, ok := fiatAmount(p.Amount, cur.MinorUnits); !ok {
			return nil, newErr("qr_code_invalid", "the QR code cannot be used")
		}
	}
	q := &qrCode{value: value, payload: p, scheme: sch, currency: cur, scenarios: map[string]bool{}}
	for _, f := range p.AdditionalData {
		if name, ok := strings.CutPrefix(f.Value, "SIM:"); ok && qrScenarios[name] {
			q.scenarios[name] = true
		}
	}
	for _, name := range s.qr.scenarios[actionDigest("qrcode", value)] {
		q.scenarios[name] = true
	}
	return q, nil
}

// setQRScenario makes the simulated upstream behave as scenarios for the code
// value (see the QRScenario constants); no scenarios clears them. Scenarios
// written into the payload itself ("SIM:<scenario>" in template 62) apply
// too.
func (s *Simulator) setQRScenario(codeValue string, scenarios ...string) error {
	for _, sc := range scenarios {
		if !qrScenarios[sc] {
			return fmt.Errorf("unknown QR scenario %q", sc)
		}
	}
	tx := s.k.Begin()
	defer tx.End()
	k := actionDigest("qrcode", codeValue)
	if len(scenarios) == 0 {
		delete(s.qr.scenarios, k)
		return nil
	}
	s.qr.scenarios[k] = append([]string(nil), scenarios...)
	return nil
}

// setQRLine switches the QR line on or off. Off, decode, quotes and payments
// answer service_unavailable (no upstream, line not enabled).
func (s *Simulator) setQRLine(enabled bool) {
	tx := s.k.Begin()
	defer tx.End()
	s.qr.disabled = !enabled
}

// setQRMerchantFeeRate sets the merchant fee rate of merchant-funded QR
// payments in basis points (0 charges no fee).
func (s *Simulator) setQRMerchantFeeRate(bps int64) error {
	if bps < 0 || bps > 10000 {
		return fmt.Errorf("fee rate %d bps out of 0..10000", bps)
	}
	tx := s.k.Begin()
	defer tx.End()
	s.merchant.FeeRateBps = bps
	return nil
}

// setQRFiatRate changes the upstream's USD value of one unit of an acquiring
// currency ("THB", "0.0291"). Upstream orders already memoised keep their
// prices; payments re-quote at the new rate.
func (s *Simulator) setQRFiatRate(currency, usdPerUnit string) error {
	d, _, err := apd.NewFromString(usdPerUnit)
	if err != nil || d.Sign() <= 0 || d.Form != apd.Finite {
		return fmt.Errorf("rate %q: want a positive decimal", usdPerUnit)
	}
	tx := s.k.Begin()
	defer tx.End()
	s.qr.fiatUSD[currency] = d
	return nil
}

// qrUpstreamCalls returns how many calls the simulated upstream received.
func (s *Simulator) qrUpstreamCalls() QRUpstreamStats {
	tx := s.k.Begin()
	defer tx.End()
	return s.qr.stats
}

// qrOrderTrace returns the steps a payment went through, in order: step_up,
// quote, hold, notice (or notice_timeout), then its outcomes (complete,
// fail, refund, timeout). id is accepted with or without qrp_.
func (s *Simulator) qrOrderTrace(id string) []string {
	tx := s.k.Begin()
	defer tx.End()
	o := s.qr.orders[qrOrderID(id)]
	if o == nil {
		return nil
	}
	return append([]string(nil), o.Trace...)
}

// qrOrderID returns the REST form qrp_<id> of an order id given with or
// without its prefix.
func qrOrderID(id string) string {
	id = strings.TrimSpace(id)
	if strings.HasPrefix(id, "qrp_") {
		return id
	}
	return "qrp_" + id
}

// completeQROrder is the upstream reporting success for a processing order:
// the held funds go to the upstream (and the fee to revenue), and
// qrpay.order.completed is emitted.
func (s *Simulator) completeQROrder(id string) error { return s.runQrAction(id, "complete") }

// failQROrder is the upstream reporting failure for a processing order: the
// full debit is returned to where it was held from, and qrpay.order.failed is
// emitted.
func (s *Simulator) failQROrder(id string) error { return s.runQrAction(id, "fail") }

// refundQROrder is the upstream refunding a completed order: the full debit
// (principal and fee) returns to the available balance it came from, and
// qrpay.order.refunded is emitted.
func (s *Simulator) refundQROrder(id string) error { return s.runQrAction(id, "refund") }

// timeoutQROrder records that the upstream notice of a processing order timed
// out: the order stays processing with its funds held (recorded for
// reconciliation) until an outcome arrives.
func (s *Simulator) timeoutQROrder(id string) error { return s.runQrAction(id, "timeout") }

func (s *Simulator) runQrAction(id, action string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.qrAction(tx, id, action)
	return err
}

func (s *Simulator) qrSchemes(c *rc) (int, any, error) {
	items := []map[string]any{}
	for _, sc := range emvqr.Schemes() {
		items = append(items, map[string]any{"scheme": sc.ID, "name": sc.Name, "country": sc.Country, "currency": sc.Currency})
	}
	sort.Slice(items, func(i, j int) bool { return items[i]["scheme"].(string) < items[j]["scheme"].(string) })
	return http.StatusOK, listEnvelope{Data: items, NextCursor: nil, HasMore: false}, nil
}
