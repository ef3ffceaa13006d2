package simulator

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
	return call1(q.s, "QRPay.Complete", func() error { return unknownID("QR payment order", id, q.s.completeQROrder(id)) }, id)
}

// Fail is the upstream reporting failure for a processing order: the
// full debit is returned to where it was held from, and qrpay.order.failed is
// emitted. Control action qrpay/orders/{id}/fail.
func (q *QRPayControl) Fail(id string) error {
	return call1(q.s, "QRPay.Fail", func() error { return unknownID("QR payment order", id, q.s.failQROrder(id)) }, id)
}

// Refund is the upstream refunding a completed order: the full debit
// (principal and fee) returns to the available balance it came from, and
// qrpay.order.refunded is emitted. Control action qrpay/orders/{id}/refund.
func (q *QRPayControl) Refund(id string) error {
	return call1(q.s, "QRPay.Refund", func() error { return unknownID("QR payment order", id, q.s.refundQROrder(id)) }, id)
}

// Timeout records that the upstream notice of a processing order timed
// out: the order stays processing with its funds held (recorded for
// reconciliation) until an outcome arrives. Control action
// qrpay/orders/{id}/timeout.
func (q *QRPayControl) Timeout(id string) error {
	return call1(q.s, "QRPay.Timeout", func() error { return unknownID("QR payment order", id, q.s.timeoutQROrder(id)) }, id)
}

// SetScenario makes the simulated upstream behave as scenarios for the code
// value (see the QRScenario constants); no scenarios clears them. Scenarios
// written into the payload itself ("SIM:<scenario>" in template 62) apply
// too.
func (q *QRPayControl) SetScenario(codeValue string, scenarios ...string) error {
	return call1(q.s, "QRPay.SetScenario", func() error {
		err := q.s.setQRScenario(codeValue, scenarios...)
		if sc, bad := firstUnknownScenario(scenarios); bad {
			return badName("QR scenario", sc, qrScenarioNames(), err)
		}
		return err
	}, codeValue, scenarios)
}

// SetEnabled switches the QR line on or off. Off, decode, quotes and payments
// answer service_unavailable (no upstream, line not enabled).
func (q *QRPayControl) SetEnabled(enabled bool) error {
	return call0(q.s, "QRPay.SetEnabled", func() { q.s.setQRLine(enabled) }, enabled)
}

// SetMerchantFeeRate sets the merchant fee rate of merchant-funded QR
// payments in basis points (0 charges no fee).
func (q *QRPayControl) SetMerchantFeeRate(bps int64) error {
	return call1(q.s, "QRPay.SetMerchantFeeRate", func() error { return q.s.setQRMerchantFeeRate(bps) }, bps)
}

// SetFiatRate changes the upstream's USD value of one unit of an acquiring
// currency ("THB", "0.0291"). Upstream orders already memoised keep their
// prices; payments re-quote at the new rate.
func (q *QRPayControl) SetFiatRate(currency, usdPerUnit string) error {
	return call1(q.s, "QRPay.SetFiatRate", func() error { return q.s.setQRFiatRate(currency, usdPerUnit) }, currency, usdPerUnit)
}

// UpstreamCalls returns how many calls the simulated upstream received.
func (q *QRPayControl) UpstreamCalls() QRUpstreamStats {
	return q.s.qrUpstreamCalls()
}

// Trace returns the steps a payment went through, in order: step_up,
// quote, hold, notice (or notice_timeout), then its outcomes (complete,
// fail, refund, timeout). id is accepted with or without qrp_.
func (q *QRPayControl) Trace(id string) []string {
	return q.s.qrOrderTrace(id)
}
