package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
)

// RemittancesControl plays the payout partner of the remittance line
// (sim.Remittances): it dispatches, completes, fails, refunds and
// re-prices orders. Its methods mirror the control actions under
// POST /_sim/remittances/{id}/....
type RemittancesControl struct{ s *Simulator }

// Dispatch sends an order upstream (status processing, payout_date
// set, rate dealt). Control action remittances/{id}/dispatch.
func (r *RemittancesControl) Dispatch(id string) error {
	return call1(r.s, ctlRemittancesDispatch, func() error { return unknownID("remittance", id, errOnly(r.run(id, "dispatch", nil))) }, id)
}

// Complete completes a processing order at its customer_total
// (the slippage excess returns to where the funds came from); settledAmount,
// when non-empty, is the real cost instead (between the fee and
// locked_amount). Control action remittances/{id}/complete, body
// {"settled_amount": ...}.
func (r *RemittancesControl) Complete(id, settledAmount string) error {
	return call1(r.s, ctlRemittancesComplete, func() error {
		return unknownID("remittance", id, errOnly(r.run(id, "complete", &remittances.ActionBody{SettledAmount: settledAmount})))
	}, id, settledAmount)
}

// Fail fails an order that is not final; every held fund returns.
// failureCode defaults to payout_rejected. Control action
// remittances/{id}/fail, body {"failure_code": ...}.
func (r *RemittancesControl) Fail(id, failureCode string) error {
	return call1(r.s, ctlRemittancesFail, func() error {
		return unknownID("remittance", id, errOnly(r.run(id, "fail", &remittances.ActionBody{FailureCode: failureCode})))
	}, id, failureCode)
}

// Refund plays the receiving bank returning a completed order's
// funds. Control action remittances/{id}/refund.
func (r *RemittancesControl) Refund(id string) error {
	return call1(r.s, ctlRemittancesRefund, func() error { return unknownID("remittance", id, errOnly(r.run(id, "refund", nil))) }, id)
}

// NeedsReconfirm plays the execution cost rising above the slippage
// ceiling (status needs_reconfirm, event remittance.order.action_required).
// Control action remittances/{id}/needs_reconfirm.
func (r *RemittancesControl) NeedsReconfirm(id string) error {
	return call1(r.s, ctlRemittancesNeedsReconfirm, func() error { return unknownID("remittance", id, errOnly(r.run(id, "needs_reconfirm", nil))) }, id)
}

// Advance moves an order one natural step (pending to
// platform_reviewing when prepaid covers it, reviewing to dispatching,
// dispatching to processing, processing to completed) and returns the new
// public status. Control action remittances/{id}/advance.
func (r *RemittancesControl) Advance(id string) (string, error) {
	return call2(r.s, ctlRemittancesAdvance, func() (string, error) { return unknownID2[string]("remittance", id)(r.run(id, "advance", nil)) }, id)
}

// run runs a control action on a remittance (id with or without rmt_) in
// its own transaction and returns the order's public status.
func (r *RemittancesControl) run(id, action string, in *remittances.ActionBody) (string, error) {
	tx := r.s.k.Begin()
	defer tx.End()
	return r.s.st.remit.Control(tx, id, action, in)
}

// errOnly drops the status of a control action's answer.
func errOnly(_ string, err error) error { return err }

// The names the Remittances control methods record their calls under, each declared
// once and used by its method and by remittancesControls.
const (
	ctlRemittancesDispatch       = "Remittances.Dispatch"
	ctlRemittancesComplete       = "Remittances.Complete"
	ctlRemittancesFail           = "Remittances.Fail"
	ctlRemittancesRefund         = "Remittances.Refund"
	ctlRemittancesNeedsReconfirm = "Remittances.NeedsReconfirm"
	ctlRemittancesAdvance        = "Remittances.Advance"
)

// remittancesControls declares the remittances control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var remittancesControls = []controlDecl{
	{name: ctlRemittancesDispatch, bind: func(s *Simulator) any { return s.Remittances.Dispatch }},
	{name: ctlRemittancesComplete, bind: func(s *Simulator) any { return s.Remittances.Complete }},
	{name: ctlRemittancesFail, bind: func(s *Simulator) any { return s.Remittances.Fail }},
	{name: ctlRemittancesRefund, bind: func(s *Simulator) any { return s.Remittances.Refund }},
	{name: ctlRemittancesNeedsReconfirm, bind: func(s *Simulator) any { return s.Remittances.NeedsReconfirm }},
	{name: ctlRemittancesAdvance, bind: func(s *Simulator) any { return s.Remittances.Advance }},
}
