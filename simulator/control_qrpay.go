package simulator

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// QRPayControl plays the QR acquirer upstream of the QR-payment line
// (sim.QRPay): it completes, fails, refunds or times out payment orders,
// sets per-code scenarios, rates and the merchant fee, switches the line,
// and reports what the upstream saw. Its methods mirror the control
// actions under POST /_sim/qrpay/orders/{id}/....
type QRPayControl struct{ s *Simulator }

// Complete is the upstream reporting success for a processing order:
// the held funds go to the upstream (and the fee to revenue), and
// qrpay.order.completed is emitted. Control action
// qrpay/orders/{id}/complete.
func (q *QRPayControl) Complete(id string) error {
	return call1(q.s, ctlQRPayComplete, func() error { return unknownID("QR payment order", id, q.action(id, "complete")) }, id)
}

// Fail is the upstream reporting failure for a processing order: the
// full debit is returned to where it was held from, and qrpay.order.failed is
// emitted. Control action qrpay/orders/{id}/fail.
func (q *QRPayControl) Fail(id string) error {
	return call1(q.s, ctlQRPayFail, func() error { return unknownID("QR payment order", id, q.action(id, "fail")) }, id)
}

// Refund is the upstream refunding a completed order: the full debit
// (principal and fee) returns to the available balance it came from, and
// qrpay.order.refunded is emitted. Control action qrpay/orders/{id}/refund.
func (q *QRPayControl) Refund(id string) error {
	return call1(q.s, ctlQRPayRefund, func() error { return unknownID("QR payment order", id, q.action(id, "refund")) }, id)
}

// Timeout records that the upstream notice of a processing order timed
// out: the order stays processing with its funds held (recorded for
// reconciliation) until an outcome arrives. Control action
// qrpay/orders/{id}/timeout.
func (q *QRPayControl) Timeout(id string) error {
	return call1(q.s, ctlQRPayTimeout, func() error { return unknownID("QR payment order", id, q.action(id, "timeout")) }, id)
}

// SetScenario makes the simulated upstream behave as scenarios for the code
// value (see the QRScenario constants); no scenarios clears them. Scenarios
// written into the payload itself ("SIM:<scenario>" in template 62) apply
// too.
func (q *QRPayControl) SetScenario(codeValue string, scenarios ...string) error {
	return call1(q.s, ctlQRPaySetScenario, func() error {
		err := q.tx(func(tx *kernel.Tx) error { return q.s.st.qr.SetScenario(tx, codeValue, scenarios...) })
		if sc, bad := firstUnknownScenario(scenarios); bad {
			return badName("QR scenario", sc, qrScenarioNames(), err)
		}
		return err
	}, codeValue, scenarios)
}

// SetEnabled switches the QR line on or off. Off, decode, quotes and payments
// answer service_unavailable (no upstream, line not enabled).
func (q *QRPayControl) SetEnabled(enabled bool) error {
	return call0(q.s, ctlQRPaySetEnabled, func() {
		_ = q.tx(func(tx *kernel.Tx) error { q.s.st.qr.SetEnabled(tx, enabled); return nil })
	}, enabled)
}

// SetMerchantFeeRate sets the merchant fee rate of merchant-funded QR
// payments in basis points (0 charges no fee).
func (q *QRPayControl) SetMerchantFeeRate(bps int64) error {
	return call1(q.s, ctlQRPaySetMerchantFeeRate, func() error {
		if bps < 0 || bps > 10000 {
			return fmt.Errorf("fee rate %d bps out of 0..10000", bps)
		}
		return q.tx(func(tx *kernel.Tx) error { q.s.st.merchant.SetFeeRateBps(tx, bps); return nil })
	}, bps)
}

// SetFiatRate changes the upstream's USD value of one unit of an acquiring
// currency ("THB", "0.0291"). Upstream orders already memoised keep their
// prices; payments re-quote at the new rate.
func (q *QRPayControl) SetFiatRate(currency, usdPerUnit string) error {
	return call1(q.s, ctlQRPaySetFiatRate, func() error {
		return q.tx(func(tx *kernel.Tx) error { return q.s.st.qr.SetFiatRate(tx, currency, usdPerUnit) })
	}, currency, usdPerUnit)
}

// UpstreamCalls returns how many calls the simulated upstream received.
func (q *QRPayControl) UpstreamCalls() QRUpstreamStats {
	var st QRUpstreamStats
	_ = q.tx(func(tx *kernel.Tx) error {
		u := q.s.st.qr.UpstreamCalls(tx)
		st = QRUpstreamStats{Quotes: u.Quotes, Notices: u.Notices}
		return nil
	})
	return st
}

// QRUpstreamStats counts the simulated upstream's outbound calls.
type QRUpstreamStats struct {
	// Quotes counts upstream quote calls: one per quote not served from the
	// 60-second memo, and one per payment (payments always re-quote).
	Quotes int
	// Notices counts payment notices sent upstream (timed-out ones included).
	Notices int
}

// Trace returns the steps a payment went through, in order: step_up,
// quote, hold, notice (or notice_timeout), then its outcomes (complete,
// fail, refund, timeout). id is accepted with or without qrp_.
func (q *QRPayControl) Trace(id string) []string {
	var steps []string
	_ = q.tx(func(tx *kernel.Tx) error { steps = q.s.st.qr.Trace(tx, id); return nil })
	return steps
}

// tx runs fn in a transaction of the simulator's kernel.
func (q *QRPayControl) tx(fn func(tx *kernel.Tx) error) error {
	tx := q.s.k.Begin()
	defer tx.End()
	return fn(tx)
}

// action applies an upstream action to an order.
func (q *QRPayControl) action(id, action string) error {
	return q.tx(func(tx *kernel.Tx) error {
		_, err := q.s.st.qr.Action(tx, id, action)
		return err
	})
}

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

// The names the QRPay control methods record their calls under, each declared
// once and used by its method and by qrpayControls.
const (
	ctlQRPayComplete           = "QRPay.Complete"
	ctlQRPayFail               = "QRPay.Fail"
	ctlQRPayRefund             = "QRPay.Refund"
	ctlQRPayTimeout            = "QRPay.Timeout"
	ctlQRPaySetScenario        = "QRPay.SetScenario"
	ctlQRPaySetEnabled         = "QRPay.SetEnabled"
	ctlQRPaySetMerchantFeeRate = "QRPay.SetMerchantFeeRate"
	ctlQRPaySetFiatRate        = "QRPay.SetFiatRate"
)

// qrpayControls declares the qrpay control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var qrpayControls = []controlDecl{
	{
		name: ctlQRPaySetEnabled, bind: func(s *Simulator) any { return s.QRPay.SetEnabled },
		route: "POST /_sim/qrpay/line",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			on, err := decodeBool(body, "enabled")
			if err != nil {
				return 0, nil, err
			}
			if err := s.QRPay.SetEnabled(on); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"enabled": on}, nil
		},
	},
	{
		name: ctlQRPaySetScenario, bind: func(s *Simulator) any { return s.QRPay.SetScenario },
		route: "POST /_sim/qrpay/scenarios",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				CodeValue string   `json:"code_value"`
				Scenarios []string `json:"scenarios"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			if in.CodeValue == "" {
				return 0, nil, errInvalidRequest("code_value is required")
			}
			if err := s.QRPay.SetScenario(in.CodeValue, in.Scenarios...); err != nil {
				return 0, nil, err
			}
			if in.Scenarios == nil {
				in.Scenarios = []string{}
			}
			return http.StatusOK, map[string]any{"scenarios": in.Scenarios}, nil
		},
	},
	{
		name: ctlQRPaySetFiatRate, bind: func(s *Simulator) any { return s.QRPay.SetFiatRate },
		route: "POST /_sim/qrpay/fiat_rates",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				Currency   string `json:"currency"`
				USDPerUnit string `json:"usd_per_unit"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			cur := strings.ToUpper(strings.TrimSpace(in.Currency))
			if !api.IsAlpha(cur, 3) {
				return 0, nil, errInvalidRequest("currency must be an ISO 4217 alphabetic code")
			}
			if err := s.QRPay.SetFiatRate(cur, in.USDPerUnit); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"currency": cur, "usd_per_unit": in.USDPerUnit}, nil
		},
	},
	{
		name: "QRPay.UpstreamCalls", bind: func(s *Simulator) any { return s.QRPay.UpstreamCalls },
		noCall: true,
		route:  "GET /_sim/qrpay/upstream",
		call: func(s *Simulator, _ *http.Request, _ []byte) (int, any, error) {
			st := s.QRPay.UpstreamCalls()
			return http.StatusOK, map[string]any{"quotes": st.Quotes, "notices": st.Notices}, nil
		},
	},
	{
		name: "QRPay.Trace", bind: func(s *Simulator) any { return s.QRPay.Trace },
		noCall: true,
		route:  "GET /_sim/qrpay/orders/{id}/trace",
		call: func(s *Simulator, r *http.Request, _ []byte) (int, any, error) {
			steps := s.QRPay.Trace(r.PathValue("id"))
			if steps == nil {
				return 0, nil, errNotFound("QR payment order")
			}
			return http.StatusOK, map[string]any{"id": qrpay.OrderID(r.PathValue("id")), "steps": steps}, nil
		},
	},
	{name: ctlQRPayComplete, bind: func(s *Simulator) any { return s.QRPay.Complete }},
	{name: ctlQRPayFail, bind: func(s *Simulator) any { return s.QRPay.Fail }},
	{name: ctlQRPayRefund, bind: func(s *Simulator) any { return s.QRPay.Refund }},
	{name: ctlQRPayTimeout, bind: func(s *Simulator) any { return s.QRPay.Timeout }},
	{name: ctlQRPaySetMerchantFeeRate, bind: func(s *Simulator) any { return s.QRPay.SetMerchantFeeRate }},
}
