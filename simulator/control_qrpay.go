package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	qrline "github.com/mwallet/mwallet-go/simulator/internal/qrpay"
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
func (q *QRPayControl) Complete(id string) error { return q.action(qrOps.Complete, id) }

// Fail is the upstream reporting failure for a processing order: the
// full debit is returned to where it was held from, and qrpay.order.failed is
// emitted. Control action qrpay/orders/{id}/fail.
func (q *QRPayControl) Fail(id string) error { return q.action(qrOps.Fail, id) }

// Refund is the upstream refunding a completed order: the full debit
// (principal and fee) returns to the available balance it came from, and
// qrpay.order.refunded is emitted. Control action qrpay/orders/{id}/refund.
func (q *QRPayControl) Refund(id string) error { return q.action(qrOps.Refund, id) }

// Timeout records that the upstream notice of a processing order timed
// out: the order stays processing with its funds held (recorded for
// reconciliation) until an outcome arrives. Control action
// qrpay/orders/{id}/timeout.
func (q *QRPayControl) Timeout(id string) error { return q.action(qrOps.Timeout, id) }

func (q *QRPayControl) action(o *op, id string) error {
	return q.s.wiring.ctl.perform(o, &qrline.OrderRef{ID: id})
}

// SetScenario makes the simulated upstream behave as scenarios for the code
// value (see the QRScenario constants); no scenarios clears them. Scenarios
// written into the payload itself ("SIM:<scenario>" in template 62) apply
// too.
func (q *QRPayControl) SetScenario(codeValue string, scenarios ...string) error {
	return q.s.wiring.ctl.perform(qrOps.SetScenario, &qrline.ScenarioIn{CodeValue: codeValue, Scenarios: scenarios})
}

// SetEnabled switches the QR line on or off. Off, decode, quotes and payments
// answer service_unavailable (no upstream, line not enabled).
func (q *QRPayControl) SetEnabled(enabled bool) error {
	return q.s.wiring.ctl.perform(qrOps.SetEnabled, &qrline.EnabledIn{Enabled: &enabled})
}

// SetMerchantFeeRate sets the merchant fee rate of merchant-funded QR
// payments in basis points (0 to 10000; 0 charges no fee).
func (q *QRPayControl) SetMerchantFeeRate(bps int64) error {
	return q.s.wiring.ctl.perform(qrOps.SetMerchantFeeRate, &qrline.FeeRateIn{FeeRateBps: bps})
}

// SetFiatRate changes the upstream's USD value of one unit of an acquiring
// currency ("THB", "0.0291"): an ISO 4217 code and a positive decimal.
// Upstream orders already memoised keep their prices; payments re-quote at
// the new rate.
func (q *QRPayControl) SetFiatRate(currency, usdPerUnit string) error {
	return q.s.wiring.ctl.perform(qrOps.SetFiatRate, &qrline.FiatRateIn{Currency: currency, USDPerUnit: usdPerUnit})
}

// UpstreamCalls returns how many calls the simulated upstream received.
func (q *QRPayControl) UpstreamCalls() QRUpstreamStats {
	v, _ := invoke[QRUpstreamStats](q.s, qrOps.UpstreamCalls, &noInput{})
	return v
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
// fail, refund, timeout). id is accepted with or without qrp_; an unknown
// order has none (nil).
func (q *QRPayControl) Trace(id string) []string {
	v, _ := invoke[[]string](q.s, qrOps.Trace, &qrline.OrderRef{ID: id})
	return v
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

// qrOps are the QR line's ops, declared in the line (internal/qrpay): the
// merchant fee rate is set on the merchant line, and the upstream's counters
// answer the public QRUpstreamStats.
var qrOps = qrline.NewControlOps(qrAt,
	func(x *opRun, bps int64) { x.Sim.st.merchant.SetFeeRateBps(x.Tx, bps) },
	func(u qrline.UpstreamStats) any { return QRUpstreamStats(u) },
	func(out any) qrline.UpstreamStats { return qrline.UpstreamStats(out.(QRUpstreamStats)) })

// qrpayOps declares the QR line's routes and methods.
var qrpayOps = []*op{
	qrOps.Complete, qrOps.Fail, qrOps.Refund, qrOps.Timeout, qrOps.SetEnabled, qrOps.SetScenario,
	qrOps.SetMerchantFeeRate, qrOps.SetFiatRate, qrOps.UpstreamCalls, qrOps.Trace,
}

// qrAt is the QR payment line and the transaction of a run.
func qrAt(x *opRun) (*qrline.Line, *kernel.Tx) { return x.Sim.st.qr, x.Tx }
