package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The object actions over HTTP (POST /_sim/{collection...}/{id}/{action})
// are the HTTP entry of Go methods too (control_call.go): an action that a
// Go method of its line runs exactly as the route does, with the id as its
// only argument, is logged as a call of that method (actionMethods); any
// other action as a call of Action, which runs the same action function
// with the same key, id and body. A path that names no action changes
// nothing and is logged as the request.

// actionMethods maps an action key to the Go method that runs it: the
// method takes the object id alone and runs the line transition the action
// runs, in a transaction of its own. The action takes no body.
var actionMethods = map[string]string{
	"qrpay/orders/complete": ctlQRPayComplete,
	"qrpay/orders/fail":     ctlQRPayFail,
	"qrpay/orders/refund":   ctlQRPayRefund,
	"qrpay/orders/timeout":  ctlQRPayTimeout,
	"cards/ship":            ctlCardsShip,
	"cards/close_complete":  ctlCardsCompleteClose,
	"cards/unlock":          ctlCardsUnlockActivation,
	// The route looks the object up first (appAction, topUpAction); the
	// method's line transition does the same lookup first.
	"cards/applications/approve": ctlCardsApproveApplication,
	"cards/applications/reject":  ctlCardsRejectApplication,
	"cards/topups/credit":        ctlCardsCreditTopUp,
	"cards/topups/reject":        ctlCardsRejectTopUp,
	"cards/topups/timeout":       ctlCardsTimeoutTopUp,
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
	name, ok := actionMethods[key]
	if !ok {
		return ctlAction, []any{key, id, body}, run, nil
	}
	// The method takes no body: one the action refuses is refused before
	// the call, as the request.
	if err := decodeControl(body, &struct{}{}); err != nil {
		return "", nil, nil, err
	}
	return name, []any{id}, run, nil
}
