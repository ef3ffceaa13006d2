package simulator

import (
	"encoding/json"
	"errors"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The control API lives under /_sim: the HTTP face of the Go control API
// (sim.Cards, sim.QRPay, ...). Every route and every Go control method is
// a declared op (control_decl.go) and runs one way, through
// internal/control's runner over its Runner: over HTTP the guard of the
// route (control_guard.go) first, then the input decoded (the Go method
// builds the same input), a write logged as an input (record.go), every
// argument checked against its domain (control_domains.go) before the
// transition writes anything, in one transaction, the timers due, and the
// answer or the refusal as the controlAPI's Error maps it. Control
// requests are not recorded in the request journal, so the journal shows
// exactly the traffic of the client under test.

// controlAPI serves the control routes and runs the control ops. It is the
// HTTP face of the public Go control API, whose methods run the same ops,
// so it holds the *Simulator: sim is the simulator it serves.
type controlAPI struct {
	sim *Simulator
}

// opRun is one run of an op (internal/control's Exec): the simulator, the
// transaction, the request of a run over HTTP, the argument rules of a
// replayed input of an earlier build (control_domains.go).
type opRun = control.Exec[*Simulator]

// rawAnswer is an answer that is not JSON (a document, a file, a
// redirect, the recording): it writes itself once the run is over.
type rawAnswer = control.Raw

// serve is the handler of the route of o: internal/control's HTTP side,
// over the runner as its HTTPHost.
func (ctl *controlAPI) serve(o *op) http.HandlerFunc {
	return (&control.HTTP[*opRun]{Host: ctl.runner(), ActionCall: ctlAction, MaxBody: maxBodyBytes}).Serve(o)
}

// runner is internal/control's Runner over the simulator: the kernel, the
// input log and recorder, the capture of the state, the timers; the
// controlAPI gives the rest (the guard, the public refusal, Error).
func (ctl *controlAPI) runner() *control.Runner[*Simulator] {
	s := ctl.sim
	return &control.Runner[*Simulator]{
		Own: ctl, Sim: s, Kernel: &s.k, Log: s.wiring.inputs, Rec: s.wiring.rec, Timers: s.wiring.timers,
		LogInput: func(tx *kernel.Tx, r *http.Request) (int64, error) {
			_, end, err := s.wiring.inputs.LogRequest(tx, r)
			return end, err
		},
		NotPersisted: inputlog.NotPersisted, NotDurable: inputlog.NotDurable,
		Capture: func(at func()) *kernel.Tx {
			return s.wiring.image.read(s.wiring.image.captureWith(false, func(*kernel.Tx) { at() }))
		},
	}
}

// runDue runs the timers due now, in a transaction of its own: a replayed
// call that was entered over HTTP ran them before its answer.
func (ctl *controlAPI) runDue() { ctl.runner().RunDueNow() }

// invoke runs o for a Go method with input in (control.Invoke): logged as
// a call of the method (a write), checked and run in a transaction of its
// own.
func (ctl *controlAPI) invoke(o *op, in any) (any, error) {
	return control.Invoke(ctl.runner(), &opRun{Sim: ctl.sim}, o, in)
}

// perform runs an op as its Go method does, for its error.
func (ctl *controlAPI) perform(o *op, in any) error {
	_, err := ctl.invoke(o, in)
	return err
}

// invoke runs o for a Go method and returns its result as a T.
func invoke[T any](s *Simulator, o *op, in any) (T, error) {
	out, err := s.wiring.ctl.invoke(o, in)
	v, _ := out.(T)
	return v, err
}

// The control API is the Own part of internal/control's Runner: the
// guard (control_guard.go), the public refusal, the http inputs of a
// replay, the error envelopes.

// Refused is the public *NameError of a refusal (nameError).
func (ctl *controlAPI) Refused(r *control.Refusal) error { return nameError(r) }

// nameError is the public *NameError of a refusal.
func nameError(r *control.Refusal) error {
	return &NameError{Kind: r.Kind, Name: r.Name, Valid: r.Valid, NotFound: r.NotFound, Field: r.Field, Want: r.Want}
}

// Replayed reports an http input of a recording being replayed.
func (ctl *controlAPI) Replayed(r *http.Request) bool {
	_, _, ok := inputlog.Replayed(r)
	return ok
}

// Error maps an op's error to an envelope (control.ErrorAnswer): an
// *apiError as is, a refusal the data directory gave as its answer, a
// *NameError as its answer, a ledger shortfall as insufficient_balance, an
// unknown object as not_found, anything else 400 invalid_request.
func (ctl *controlAPI) Error(err error) *apiError {
	return control.ErrorAnswer(err, func(err error) *apiError {
		var pe *persistError
		if errors.As(err, &pe) {
			return pe.Answer()
		}
		var ne *NameError
		if errors.As(err, &ne) {
			return ne.answer()
		}
		var ins *InsufficientFundsError
		if errors.As(err, &ins) {
			return api.NewErr("insufficient_balance", err.Error())
		}
		return nil
	})
}

// Actions lists the object actions ("qrpay/orders/complete", ...), sorted.
// Each is reachable at POST /_sim/<collection>/<id>/<action> (POST
// /_sim/<key> for one that takes no object id) and through Action.
func (s *Simulator) Actions() []string { return controlOps.ActionKeys() }

// Action runs the object action key ("qrpay/orders/complete") on object id
// with a JSON body (nil for none), as POST /_sim/<collection>/<id>/<action>
// would, and returns its JSON answer ({"ok": true} when it has none).
func (s *Simulator) Action(key, id string, body []byte) (json.RawMessage, error) {
	return invoke[json.RawMessage](s, opAction, &control.ActionIn{Key: key, ID: id, Body: body})
}

// ctlAction is the name Action records its calls under.
const ctlAction = "Action"

// opAction runs an object action as its route does, with the id and body
// given (control.ActionOp, over the runner).
var opAction = control.ActionOp(ctlAction,
	func(x *opRun) control.Host[*opRun] { return x.Sim.wiring.ctl.runner() },
	func(key string) *op { return opByAction[key] })
