package simulator

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The control API lives under /_sim: the HTTP face of the Go control API
// (sim.Cards, sim.QRPay, ...). Every route and every Go control method is
// a declared op (control_decl.go) and runs one way (internal/control's
// runner: Invoke, Reply, Run, over the controlAPI as its Host):
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
type rawAnswer func(w http.ResponseWriter, r *http.Request)

// serve is the handler of the route of o.
func (ctl *controlAPI) serve(o *op) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := ctl.sim
		var body []byte
		var rerr error
		if pipeline.IsWrite(r.Method) {
			body, rerr = io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		}
		id := s.wiring.rec.ControlID()
		w.Header().Set("X-Request-Id", id)
		if ae := ctl.guard(r, o, len(body) > 0); ae != nil {
			writeControl(w, r, pipeline.ErrorResponse(ae, id), nil)
			return
		}
		x := &opRun{s: s, r: r}
		var in any
		derr := error(errInvalidRequest("request body unreadable or larger than 1 MiB"))
		if rerr == nil && len(body) <= maxBodyBytes {
			in, derr = o.Decode(r.PathValue, r.URL.Query(), body)
		}
		var resp response
		var raw rawAnswer
		switch {
		case !pipeline.IsWrite(r.Method) || o.Unlocked || (o.NotFound && r.Method != http.MethodPost):
			// A read, an op that logs its own inputs (the flush), or the
			// router's answer to a method other than POST (every control
			// POST is an input): nothing to log here.
			resp, raw = ctl.runHTTP(x, o, in, derr, id)
		default:
			resp, raw = ctl.write(x, o, in, derr, body, id)
		}
		writeControl(w, r, resp, raw)
	}
}

// write runs a control write over HTTP: logged as a call of the op's Go
// method when the input decodes into its arguments (not for an http input
// being replayed, which logs itself again), otherwise as the request.
func (ctl *controlAPI) write(x *opRun, o *op, in any, derr error, body []byte, id string) (resp response, raw rawAnswer) {
	s := ctl.sim
	if derr == nil && (o.Call != nil || o.Action != "") && o.Complete(in) && !replayedRequest(x.r) {
		var name string
		var args []any
		ok := false
		if o.Call != nil {
			name, args, ok = o.Call(in)
		}
		if !ok && o.Action != "" {
			// An object action its Go method cannot say (or one without
			// a Go method) is a call of Action.
			name, args, ok = ctlAction, []any{o.Action, x.r.PathValue("id"), body}, true
		}
		if ok {
			err := s.wiring.inputs.routeCall(name, o.Route, args, func() error {
				x.legacy = s.wiring.rec.LegacyRules()
				resp, raw = ctl.runHTTP(x, o, in, nil, id)
				return nil
			})
			if err != nil {
				resp = pipeline.ErrorResponse(controlError(err), id)
			}
			return resp, raw
		}
	}
	tx := s.k.BeginInput()
	_, end, err := s.wiring.inputs.logRequest(tx, x.r)
	tx.Ordered()
	if err != nil {
		tx.End()
		return pipeline.ErrorResponse(notPersisted(err), id), nil
	}
	x.tx, x.legacy = tx, s.wiring.rec.LegacyRules()
	resp, raw = ctl.answer(x, o, in, derr, id)
	tx.End()
	if err := s.wiring.rec.Durable(end); err != nil {
		resp = pipeline.ErrorResponse(notDurable(err), id)
	}
	return resp, raw
}

// runDue runs the timers due now, in a transaction of its own: a replayed
// call that was entered over HTTP ran them before its answer.
func (ctl *controlAPI) runDue() {
	tx := ctl.sim.k.Begin()
	defer tx.End()
	ctl.sim.wiring.timers.RunDue(tx)
}

// runHTTP runs o over HTTP in a transaction of its own (none for an
// unlocked op).
func (ctl *controlAPI) runHTTP(x *opRun, o *op, in any, derr error, id string) (resp response, raw rawAnswer) {
	control.InTx(ctl, x, o, func() { resp, raw = ctl.answer(x, o, in, derr, id) })
	return resp, raw
}

// answer checks the input, runs the transition and encodes the answer
// (under the lock, as the answer may show live state): control.Reply, in
// the business API's envelope.
func (ctl *controlAPI) answer(x *opRun, o *op, in any, derr error, id string) (response, rawAnswer) {
	status, v, err := control.Reply(ctl, x, o, in, derr, pipeline.IsWrite(x.r.Method))
	if err != nil {
		return pipeline.ErrorResponse(controlError(err), id), nil
	}
	if raw, ok := v.(rawAnswer); ok {
		return response{}, raw
	}
	if v == nil {
		return response{Status: status}, nil
	}
	return pipeline.JSONResponse(status, v), nil
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

// Refused is the public *NameError of a refusal.
func (ctl *controlAPI) Refused(r *control.Refusal) error {
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
	return ctl.sim.wiring.inputs.goCall(name, args, func() error {
		x.legacy = ctl.sim.wiring.rec.LegacyRules()
		return run()
	})
}

// RunDue runs the timers due now in x's transaction.
func (ctl *controlAPI) RunDue(x *opRun) { ctl.sim.wiring.timers.RunDue(x.tx) }

// writeControl writes the answer of a control route: a raw answer, a status
// alone when there is no body, or the JSON.
func writeControl(w http.ResponseWriter, r *http.Request, resp response, raw rawAnswer) {
	switch {
	case raw != nil:
		raw(w, r)
	case resp.Body == nil:
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.Status)
	default:
		resp.Write(w, w.Header().Get("X-Request-Id"))
	}
}

// controlError maps an op's error to an envelope: an *apiError as is, a
// ledger shortfall as insufficient_balance, an unknown object as not_found,
// anything else 400 invalid_request.
func controlError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
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
	if errors.Is(err, errControlNotFound) || strings.Contains(err.Error(), "not found") {
		return newErr("not_found", err.Error())
	}
	return errInvalidRequest(err.Error())
}

// replayedRequest reports whether r is an http input of a recording being
// replayed.
func replayedRequest(r *http.Request) bool {
	c := captureOf(r)
	return c != nil && c.replay != nil
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

// clockJSON is the clock as GET /_sim/clock shows it.
func (ctl *controlAPI) clockJSON(tx *kernel.Tx) map[string]any {
	s := ctl.sim
	now := s.st.clock.Now()
	return map[string]any{"now": now.UTC().Format(time.RFC3339), "unix": now.Unix(), "pending_timers": s.wiring.timers.Pending(tx)}
}
