package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
)

// The object actions over HTTP (POST /_sim/{collection...}/{id}/{action})
// are the HTTP entry of Go methods too (control_call.go): an action that a
// Go method of its line runs as the route does is logged as a call of that
// method (actionMethods), with the arguments the body and the id give; any
// other action as a call of Action, which runs the same action function
// with the same key, id and body. A path that names no action changes
// nothing and is logged as the request.

// actionMethod is the Go method an object action is logged as a call of:
// its declared name, and args, which gives the method's arguments for the
// object id and the action's body (an error: the body is refused, as the
// action refuses it; ok false: the body asks for what the method cannot
// say, and the action is logged as Action).
type actionMethod struct {
	name string
	args func(id string, body []byte) (args []any, ok bool, err error)
}

// idOnly is the arguments of a method that takes the object id alone, for
// an action that takes no body.
func idOnly(id string, body []byte) ([]any, bool, error) {
	if err := decodeControl(body, &struct{}{}); err != nil {
		return nil, false, err
	}
	return []any{id}, true, nil
}

// actionMethods maps an action key to the Go method that runs it: the
// method runs, in a transaction of its own, the line transition the action
// runs, with the same object looked up the same way.
var actionMethods = map[string]actionMethod{
	"qrpay/orders/complete": {ctlQRPayComplete, idOnly},
	"qrpay/orders/fail":     {ctlQRPayFail, idOnly},
	"qrpay/orders/refund":   {ctlQRPayRefund, idOnly},
	"qrpay/orders/timeout":  {ctlQRPayTimeout, idOnly},
	"cards/ship":            {ctlCardsShip, idOnly},
	"cards/close_complete":  {ctlCardsCompleteClose, idOnly},
	"cards/unlock":          {ctlCardsUnlockActivation, idOnly},
	// The route looks the object up first (appAction, topUpAction); the
	// method's line transition does the same lookup first.
	"cards/applications/approve": {ctlCardsApproveApplication, idOnly},
	"cards/applications/reject":  {ctlCardsRejectApplication, idOnly},
	"cards/topups/credit":        {ctlCardsCreditTopUp, idOnly},
	"cards/topups/reject":        {ctlCardsRejectTopUp, idOnly},
	"cards/topups/timeout":       {ctlCardsTimeoutTopUp, idOnly},
	"cards/transactions": {ctlCardsAddTransaction, func(id string, body []byte) ([]any, bool, error) {
		var in CardTransaction
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		return []any{id, in}, true, nil
	}},
	"cards/set_status": {ctlCardsSetStatus, func(id string, body []byte) ([]any, bool, error) {
		var in struct {
			Status string `json:"status"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		return []any{id, in.Status}, true, nil
	}},
	"cards/upstream_balance": {ctlCardsSetUpstreamBalanceReadable, func(id string, body []byte) ([]any, bool, error) {
		var in struct {
			Readable *bool `json:"readable"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		// Without readable the action refuses the body; the method has
		// no such call.
		if in.Readable == nil {
			return nil, false, nil
		}
		return []any{id, *in.Readable}, true, nil
	}},
	"remittances/dispatch":        {ctlRemittancesDispatch, remitArgs("dispatch")},
	"remittances/complete":        {ctlRemittancesComplete, remitArgs("complete")},
	"remittances/fail":            {ctlRemittancesFail, remitArgs("fail")},
	"remittances/refund":          {ctlRemittancesRefund, remitArgs("refund")},
	"remittances/needs_reconfirm": {ctlRemittancesNeedsReconfirm, remitArgs("needs_reconfirm")},
	"remittances/advance":         {ctlRemittancesAdvance, remitArgs("advance")},
	"kyc/update":                  {ctlKYCUpdate, idOnly},
	"kyc/reject":                  {ctlKYCReject, idOnly},
	"kyc/sessions/complete":       {ctlKYCCompleteSession, idOnly},
	"kyc/approve": {ctlKYCApprove, func(id string, body []byte) ([]any, bool, error) {
		var in struct {
			Level *int `json:"level"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		if in.Level == nil {
			return []any{id, 0}, true, nil
		}
		// Approve(id, 0) keeps the member's level: an explicit level 0
		// has no Go call.
		return []any{id, *in.Level}, *in.Level != 0, nil
	}},
	"kyc/quick/compensate": {ctlKYCCompensateQuickBinding, func(id string, body []byte) ([]any, bool, error) {
		var in struct {
			Source        string `json:"compensation_source"`
			ApplicationID string `json:"application_id"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		return []any{id, in.Source, in.ApplicationID}, true, nil
	}},
	"members/status": {ctlMembersSetStatus, func(id string, body []byte) ([]any, bool, error) {
		var in struct {
			Status string `json:"status"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		return []any{id, in.Status}, true, nil
	}},
	"merchant/prepaid/topup": {ctlMerchantTopUpPrepaid, func(_ string, body []byte) ([]any, bool, error) {
		var in struct {
			Asset  string `json:"asset"`
			Amount string `json:"amount"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		return []any{in.Asset, in.Amount}, true, nil
	}},
}

// actionCall is POST /_sim/{rest...}, the HTTP entry of the object actions:
// it answers the action's result, {"ok": true} when it has none.
func actionCall(s *Simulator, r *http.Request, body []byte) (string, []any, controlRun, error) {
	// The actions are registered before the simulator serves, and only
	// read after: no transaction is needed to look one up.
	key, fn, id, ok := s.wiring.ctl.lookupAction(r.PathValue("rest"))
	if !ok {
		// A path served with other methods (POST /_sim/stats) answers
		// as the router does, with Allow.
		if ae := s.wiring.gw.notFoundAnswer(r, ""); ae.Header != nil {
			return "", nil, nil, ae
		}
		return "", nil, nil, errNotFound("control action " + r.URL.Path)
	}
	run := func(tx *kernel.Tx) (int, any, error) {
		out, err := fn(tx, id, body)
		if err != nil {
			return 0, nil, err
		}
		if out == nil {
			out = map[string]any{"ok": true}
		}
		return http.StatusOK, out, nil
	}
	m, ok := actionMethods[key]
	if !ok {
		return ctlAction, []any{key, id, body}, run, nil
	}
	// A body the action refuses is refused before the call, as the
	// request.
	args, ok, err := m.args(id, body)
	if err != nil {
		return "", nil, nil, err
	}
	if !ok {
		return ctlAction, []any{key, id, body}, run, nil
	}
	return m.name, args, run, nil
}

// remitArgs gives the arguments of the Remittances method of action: the
// action's body carries failure_code and settled_amount, which the line
// reads for every action; Complete takes the settled amount, Fail the
// failure code, the others neither. A body that sets a field its method
// does not take has no call of it (an advance that completes an order
// with a settled amount).
func remitArgs(action string) func(id string, body []byte) ([]any, bool, error) {
	return func(id string, body []byte) ([]any, bool, error) {
		var in remittances.ActionBody
		if err := decodeControl(body, &in); err != nil {
			return nil, false, err
		}
		switch action {
		case "complete":
			return []any{id, in.SettledAmount}, in.FailureCode == "", nil
		case "fail":
			return []any{id, in.FailureCode}, in.SettledAmount == "", nil
		}
		return []any{id}, in == remittances.ActionBody{}, nil
	}
}
