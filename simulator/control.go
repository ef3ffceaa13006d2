package simulator

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The control API lives under /_sim: the HTTP face of the Go control API
// (sim.Cards, sim.QRPay, ...). Every route and every Go control method is
// a declared op (control_decl.go) and runs one way (internal/control's
// runner: Invoke, Reply, Run, over the controlAPI as its Host; a route's
// handler is its HTTP side, control.HTTP, over it as its HTTPHost):
//
//  1. over HTTP, the guard of the op (control_guard.go) before anything
//     else; then the input is decoded from the path, query and body (the
//     strict decoder, unknown fields refused); the Go method builds the
//     same input from its arguments;
//  2. a write is logged as an input (record.go): as a call of the op's Go
//     method when it has one and the input says only what the method
//     takes, otherwise as the request; a read is not logged;
//  3. in one transaction: every argument is checked against its domain
//     (control_domains.go), object lookups included, and only then does
//     the transition (the op's Run) write anything; over HTTP the timers
//     due run before the answer of a write;
//  4. the answer: the op's reply, or the refusal as controlError maps it.
//
// Answers are JSON with the business API's error envelope and
// X-Request-Id; control requests are not recorded in the request journal,
// so the journal shows exactly the traffic of the client under test.

// controlAPI serves the control routes and runs the control ops. It is the
// HTTP face of the public Go control API, whose methods run the same ops,
// so it holds the *Simulator: sim is the simulator it serves.
type controlAPI struct {
	sim *Simulator
}

// opRun is one run of an op.
type opRun struct {
	s  *Simulator
	tx *kernel.Tx // nil for an unlocked op; a capture's for a captured one
	// inputs is the number of inputs logged when the state of a captured
	// op was captured.
	inputs int64
	// r is the request of a run over HTTP (nil for a Go call).
	r *http.Request
	// legacy: the op's input is a replayed one of an earlier build, which
	// runs under the argument rules of that build (control_domains.go).
	legacy bool
}

// st is the state the op runs on.
func (x *opRun) st() *simState { return &x.s.st }

// rawAnswer is an answer that is not JSON (a document, a file, a
// redirect, the recording): it writes itself once the run is over.
type rawAnswer = control.Raw

// serve is the handler of the route of o: internal/control's HTTP side,
// over the controlAPI as its HTTPHost.
func (ctl *controlAPI) serve(o *op) http.HandlerFunc {
	return (&control.HTTP[*opRun]{Host: ctl, ActionCall: ctlAction, MaxBody: maxBodyBytes}).Serve(o)
}

// runDue runs the timers due now, in a transaction of its own: a replayed
// call that was entered over HTTP ran them before its answer.
func (ctl *controlAPI) runDue() {
	tx := ctl.sim.k.Begin()
	defer tx.End()
	ctl.sim.wiring.timers.RunDue(tx)
}

// invoke runs o for a Go method with input in (control.Invoke): logged as
// a call of the method (a write), checked and run in a transaction of its
// own.
func (ctl *controlAPI) invoke(o *op, in any) (any, error) {
	return control.Invoke(ctl, &opRun{s: ctl.sim}, o, in)
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

// The control API is the Host of internal/control's runner: the run's
// transaction, the recorder's log and rules, the timers, the public
// refusal.

// Tx is the transaction x runs in.
func (ctl *controlAPI) Tx(x *opRun) *kernel.Tx { return x.tx }

// Begin begins the transaction o runs in: the state lock, or for a
// captured op a capture of the state taken under it and read without it.
func (ctl *controlAPI) Begin(x *opRun, o *op) {
	s := x.s
	if !o.Captured {
		x.tx = s.k.Begin()
		return
	}
	c := s.wiring.image.captureWith(false, func(*kernel.Tx) {
		x.inputs = s.wiring.rec.Seq()
	})
	x.tx = s.wiring.image.read(c)
}

// Legacy reports a replayed input of an earlier build.
func (ctl *controlAPI) Legacy(x *opRun) bool { return x.legacy }

// Refused is the public *NameError of a refusal (nameError).
func (ctl *controlAPI) Refused(r *control.Refusal) error { return nameError(r) }

// nameError is the public *NameError of a refusal.
func nameError(r *control.Refusal) error {
	return &NameError{Kind: r.Kind, Name: r.Name, Valid: r.Valid, NotFound: r.NotFound, Field: r.Field, Want: r.Want}
}

// InputRules checks the rules of an input of this package (inputRules).
func (ctl *controlAPI) InputRules(x *opRun, in any) error {
	if r, ok := in.(inputRules); ok {
		return r.rules(x)
	}
	return nil
}

// LogCall logs a Go control call through the input log and runs it under
// the argument rules of the recording's build.
func (ctl *controlAPI) LogCall(x *opRun, name string, args []any, run func() error) error {
	return ctl.sim.wiring.inputs.GoCall(name, args, func() error {
		x.legacy = ctl.sim.wiring.rec.LegacyRules()
		return run()
	})
}

// RunDue runs the timers due now in x's transaction.
func (ctl *controlAPI) RunDue(x *opRun) { ctl.sim.wiring.timers.RunDue(x.tx) }

// The control API is the HTTPHost of its routes: the run of a request, the
// control answers' request ids, the guard, the input log.

// NewRun is a run of an op over HTTP for r.
func (ctl *controlAPI) NewRun(r *http.Request) *opRun { return &opRun{s: ctl.sim, r: r} }

// RequestID is the id of a control answer.
func (ctl *controlAPI) RequestID() string { return ctl.sim.wiring.rec.ControlID() }

// Replayed reports an http input of a recording being replayed.
func (ctl *controlAPI) Replayed(r *http.Request) bool { return replayedRequest(r) }

// LogRoute logs a call of the Go method name entered through route and
// runs it under the argument rules of the recording's build.
func (ctl *controlAPI) LogRoute(x *opRun, name, route string, args []any, run func()) error {
	s := ctl.sim
	return s.wiring.inputs.RouteCall(name, route, args, func() error {
		x.legacy = s.wiring.rec.LegacyRules()
		run()
		return nil
	})
}

// LogRequest logs x's request as an input in a transaction of its own and
// runs run in it; the refusal of a request not logged or not durable.
func (ctl *controlAPI) LogRequest(x *opRun, run func()) *apiError {
	s := ctl.sim
	tx := s.k.BeginInput()
	_, end, err := s.wiring.inputs.LogRequest(tx, x.r)
	tx.Ordered()
	if err != nil {
		tx.End()
		return notPersisted(err)
	}
	x.tx, x.legacy = tx, s.wiring.rec.LegacyRules()
	run()
	tx.End()
	if err := s.wiring.rec.Durable(end); err != nil {
		return notDurable(err)
	}
	return nil
}

// Error maps an op's error to its envelope (controlError).
func (ctl *controlAPI) Error(err error) *apiError { return controlError(err) }

// controlError maps an op's error to an envelope (control.ErrorAnswer):
// an *apiError as is, a refusal the data directory gave as its answer, a
// *NameError as its answer, a ledger shortfall as insufficient_balance, an
// unknown object as not_found, anything else 400 invalid_request.
func controlError(err error) *apiError {
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
			return newErr("insufficient_balance", err.Error())
		}
		return nil
	})
}

// replayedRequest reports whether r is an http input of a recording being
// replayed.
func replayedRequest(r *http.Request) bool {
	_, _, ok := inputlog.Replayed(r)
	return ok
}

// Actions lists the object actions ("qrpay/orders/complete", ...), sorted.
// Each is reachable at POST /_sim/<collection>/<id>/<action> (POST
// /_sim/<key> for one that takes no object id) and through Action.
func (s *Simulator) Actions() []string { return controlOps.ActionKeys() }

// Action runs the object action key ("qrpay/orders/complete") on object id
// with a JSON body (nil for none), as POST /_sim/<collection>/<id>/<action>
// would, and returns its JSON answer ({"ok": true} when it has none).
func (s *Simulator) Action(key, id string, body []byte) (json.RawMessage, error) {
	return invoke[json.RawMessage](s, opAction, &actionIn{Key: key, ID: id, Body: body})
}

// ctlAction is the name Action records its calls under.
const ctlAction = "Action"

// actionIn is the input of Action.
type actionIn struct {
	Key  string `json:"key" dom:"action,req"`
	ID   string `json:"id" dom:"text"`
	Body []byte `json:"body" dom:"body_text"`
}

// opAction runs an object action as its route does, with the id and body
// given: the action's own input, checks and transition, then the timers
// due.
var opAction = def[actionIn]{
	Name: ctlAction,
	Args: func(in *actionIn) []any { return []any{in.Key, in.ID, in.Body} },
	Run: func(x *opRun, in *actionIn) (any, error) {
		out, err := control.RunAction(x.s.wiring.ctl, x, opByAction[in.Key], in.ID, in.Body)
		if err != nil {
			return nil, err
		}
		// As Action returns it: invoke's type assertion wants this type.
		return json.RawMessage(out), nil
	},
}.Op()
