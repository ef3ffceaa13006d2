package simulator

import (
	"encoding/json"

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
	_, err := r.run(opRemitDispatch, &remitIn{ID: id})
	return err
}

// Complete completes a processing order at its customer_total
// (the slippage excess returns to where the funds came from); settledAmount,
// when non-empty, is the real cost instead (between the fee and
// locked_amount). Control action remittances/{id}/complete, body
// {"settled_amount": ...}.
func (r *RemittancesControl) Complete(id, settledAmount string) error {
	_, err := r.run(opRemitComplete, &remitIn{ID: id, SettledAmount: settledAmount})
	return err
}

// Fail fails an order that is not final; every held fund returns.
// failureCode (lower snake case) defaults to payout_rejected. Control
// action remittances/{id}/fail, body {"failure_code": ...}.
func (r *RemittancesControl) Fail(id, failureCode string) error {
	_, err := r.run(opRemitFail, &remitIn{ID: id, FailureCode: failureCode})
	return err
}

// Refund plays the receiving bank returning a completed order's
// funds. Control action remittances/{id}/refund.
func (r *RemittancesControl) Refund(id string) error {
	_, err := r.run(opRemitRefund, &remitIn{ID: id})
	return err
}

// NeedsReconfirm plays the execution cost rising above the slippage
// ceiling (status needs_reconfirm, event remittance.order.action_required).
// Control action remittances/{id}/needs_reconfirm.
func (r *RemittancesControl) NeedsReconfirm(id string) error {
	_, err := r.run(opRemitNeedsReconfirm, &remitIn{ID: id})
	return err
}

// Advance moves an order one natural step (pending to
// platform_reviewing when prepaid covers it, reviewing to dispatching,
// dispatching to processing, processing to completed) and returns the new
// public status. Control action remittances/{id}/advance.
func (r *RemittancesControl) Advance(id string) (string, error) {
	out, err := r.run(opRemitAdvance, &remitIn{ID: id})
	st, _ := out["status"].(string)
	return st, err
}

func (r *RemittancesControl) run(o *op, in *remitIn) (map[string]any, error) {
	return invoke[map[string]any](r.s, o, in)
}

// remitIn is the input of a remittance action: the order and the body the
// line reads for every action (failure_code for fail, settled_amount for
// complete).
type remitIn struct {
	ID            string `path:"id" json:"-" dom:"remittance"`
	FailureCode   string `json:"failure_code" dom:"snake_code"`
	SettledAmount string `json:"settled_amount" dom:"decimal"`
}

// remitAction declares the remittance action: the Go method takes the
// fields the action reads (Complete the settled amount, Fail the failure
// code, the others neither); a body that sets another is recorded as a
// call of Action.
func remitAction(name, action string) *op {
	return def[remitIn]{
		Route: "POST /_sim/remittances/{id}/" + action, Action: "remittances/" + action, Name: name,
		ArgsIf: func(in *remitIn) ([]any, bool) {
			switch action {
			case "complete":
				return []any{in.ID, in.SettledAmount}, in.FailureCode == ""
			case "fail":
				return []any{in.ID, in.FailureCode}, in.SettledAmount == ""
			}
			return []any{in.ID}, in.FailureCode == "" && in.SettledAmount == ""
		},
		Run: func(x *opRun, in *remitIn) (any, error) {
			body, _ := json.Marshal(remittances.ActionBody{FailureCode: in.FailureCode, SettledAmount: in.SettledAmount})
			return x.s.st.remit.Act(x.tx, in.ID, action, body)
		},
	}.Op()
}

var (
	opRemitDispatch       = remitAction("Remittances.Dispatch", "dispatch")
	opRemitComplete       = remitAction("Remittances.Complete", "complete")
	opRemitFail           = remitAction("Remittances.Fail", "fail")
	opRemitRefund         = remitAction("Remittances.Refund", "refund")
	opRemitNeedsReconfirm = remitAction("Remittances.NeedsReconfirm", "needs_reconfirm")
	opRemitAdvance        = remitAction("Remittances.Advance", "advance")
)

// remittancesOps declares the payout partner's actions.
var remittancesOps = []*op{opRemitDispatch, opRemitComplete, opRemitFail, opRemitRefund, opRemitNeedsReconfirm, opRemitAdvance}
