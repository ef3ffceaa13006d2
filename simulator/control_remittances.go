package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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
	_, err := r.run(remitOps.Dispatch, &remittances.ActionIn{ID: id})
	return err
}

// Complete completes a processing order at its customer_total
// (the slippage excess returns to where the funds came from); settledAmount,
// when non-empty, is the real cost instead (between the fee and
// locked_amount). Control action remittances/{id}/complete, body
// {"settled_amount": ...}.
func (r *RemittancesControl) Complete(id, settledAmount string) error {
	_, err := r.run(remitOps.Complete, &remittances.ActionIn{ID: id, SettledAmount: settledAmount})
	return err
}

// Fail fails an order that is not final; every held fund returns.
// failureCode (lower snake case) defaults to payout_rejected. Control
// action remittances/{id}/fail, body {"failure_code": ...}.
func (r *RemittancesControl) Fail(id, failureCode string) error {
	_, err := r.run(remitOps.Fail, &remittances.ActionIn{ID: id, FailureCode: failureCode})
	return err
}

// Refund plays the receiving bank returning a completed order's
// funds. Control action remittances/{id}/refund.
func (r *RemittancesControl) Refund(id string) error {
	_, err := r.run(remitOps.Refund, &remittances.ActionIn{ID: id})
	return err
}

// NeedsReconfirm plays the execution cost rising above the slippage
// ceiling (status needs_reconfirm, event remittance.order.action_required).
// Control action remittances/{id}/needs_reconfirm.
func (r *RemittancesControl) NeedsReconfirm(id string) error {
	_, err := r.run(remitOps.NeedsReconfirm, &remittances.ActionIn{ID: id})
	return err
}

// Advance moves an order one natural step (pending to
// platform_reviewing when prepaid covers it, reviewing to dispatching,
// dispatching to processing, processing to completed) and returns the new
// public status. Control action remittances/{id}/advance.
func (r *RemittancesControl) Advance(id string) (string, error) {
	out, err := r.run(remitOps.Advance, &remittances.ActionIn{ID: id})
	st, _ := out["status"].(string)
	return st, err
}

func (r *RemittancesControl) run(o *op, in *remittances.ActionIn) (map[string]any, error) {
	return invoke[map[string]any](r.s, o, in)
}

// remitOps are the payout partner's actions, declared in the line
// (internal/remittances): their transitions need only the remittance line
// and the transaction.
var remitOps = remittances.NewControlOps(remitAt)

// remittancesOps declares the payout partner's actions.
var remittancesOps = []*op{remitOps.Dispatch, remitOps.Complete, remitOps.Fail, remitOps.Refund, remitOps.NeedsReconfirm, remitOps.Advance}

// remitAt is the remittance line and the transaction of a run.
func remitAt(x *opRun) (*remittances.Line, *kernel.Tx) { return x.Sim.st.remit, x.Tx }
