package remittances

import (
	"encoding/json"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The payout partner's control operations (the actions under
// POST /_sim/remittances/{id}/...), in the control engine's form
// (internal/control), over the declaring package's run of one op X. Their
// transitions need only the line and the transaction. The domains the
// input names ("remittance", "snake_code", "decimal") are the simulator's
// registry's.

// ActionIn is the input of a remittance action: the order and the body the
// line reads for every action (failure_code for fail, settled_amount for
// complete).
type ActionIn struct {
	ID            string `path:"id" json:"-" dom:"remittance"`
	FailureCode   string `json:"failure_code" dom:"snake_code"`
	SettledAmount string `json:"settled_amount" dom:"decimal"`
}

// ControlOps are the payout partner's actions, by Go method.
type ControlOps[X any] struct {
	Dispatch, Complete, Fail, Refund, NeedsReconfirm, Advance *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run.
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx)) *ControlOps[X] {
	// action declares a remittance action: the Go method takes the fields
	// the action reads (Complete the settled amount, Fail the failure
	// code, the others neither); a body that sets another is recorded as a
	// call of Action.
	action := func(name, action string) *control.Op[X] {
		return control.Def[X, ActionIn]{
			Route: "POST /_sim/remittances/{id}/" + action, Action: "remittances/" + action, Name: name,
			ArgsIf: func(in *ActionIn) ([]any, bool) {
				switch action {
				case "complete":
					return []any{in.ID, in.SettledAmount}, in.FailureCode == ""
				case "fail":
					return []any{in.ID, in.FailureCode}, in.SettledAmount == ""
				}
				return []any{in.ID}, in.FailureCode == "" && in.SettledAmount == ""
			},
			Run: func(x X, in *ActionIn) (any, error) {
				l, tx := at(x)
				body, _ := json.Marshal(ActionBody{FailureCode: in.FailureCode, SettledAmount: in.SettledAmount})
				return l.Act(tx, in.ID, action, body)
			},
		}.Op()
	}
	return &ControlOps[X]{
		Dispatch:       action("Remittances.Dispatch", "dispatch"),
		Complete:       action("Remittances.Complete", "complete"),
		Fail:           action("Remittances.Fail", "fail"),
		Refund:         action("Remittances.Refund", "refund"),
		NeedsReconfirm: action("Remittances.NeedsReconfirm", "needs_reconfirm"),
		Advance:        action("Remittances.Advance", "advance"),
	}
}
