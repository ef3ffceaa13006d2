package simulator

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The control API lives under /_sim. It answers only callers that pass
// control_guard.go (Host, optional token, JSON writes from no other site),
// takes and answers JSON, and answers errors with the same
// envelope as the business API. Every control endpoint mirrors a Go method on
// *Simulator. The control API is not recorded in the request journal, so the
// journal shows exactly the traffic of the client under test.

// controlAPI is the control API under /_sim: it registers and serves the
// control routes and object actions, guards them, and resolves the recorded
// names of the Go control methods. It is the HTTP face of the public Go
// control API (sim.Cards, sim.QRPay, ...), whose methods its routes call, so
// it holds the *Simulator: sim is the simulator it serves.
type controlAPI struct {
	sim *Simulator
}

// controlFunc serves one control endpoint. It runs in a transaction and returns
// the status and the JSON body, or an error (an *apiError is answered as is;
// any other error is a 400 invalid_request carrying its text).
type controlFunc func(tx *kernel.Tx, r *http.Request, body []byte) (int, any, error)

// control registers a control endpoint on pattern ("METHOD /_sim/...").
// Product files may use it for control endpoints that are not object actions.
// An endpoint that reads a body decodes it with decodeControl; a DELETE, and
// a POST named in controlWithoutBody, takes none: its body must be empty or
// {}. GET and HEAD bodies are not read.
func (ctl *controlAPI) control(pattern string, fn controlFunc) {
	s := ctl.sim
	method, _, _ := strings.Cut(pattern, " ")
	if method == http.MethodDelete || controlWithoutBody[pattern] {
		inner := fn
		fn = func(tx *kernel.Tx, r *http.Request, body []byte) (int, any, error) {
			if err := decodeControl(body, &struct{}{}); err != nil {
				return 0, nil, err
			}
			return inner(tx, r, body)
		}
	}
	s.st.controlRoutes = append(s.st.controlRoutes, pattern)
	s.wiring.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		ctl.serveControl(w, r, fn)
	})
}

// controlWithoutBody names the POST control endpoints that take no body.
var controlWithoutBody = map[string]bool{
	"POST /_sim/step-up/{challenge_id}/complete":    true,
	"POST /_sim/webhooks/endpoints/{id}/disable":    true,
	"POST /_sim/webhooks/endpoints/{id}/enable":     true,
	"POST /_sim/webhooks/deliveries/{id}/redeliver": true,
}

// serveControl serves a control endpoint. A write (any method but GET and
// HEAD) is an input of the log (record.go), answered once it is durable; a
// read changes nothing and is not logged.
func (ctl *controlAPI) serveControl(w http.ResponseWriter, r *http.Request, fn controlFunc) {
	body, rerr := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	ctl.serveRequest(w, r, fn, body, rerr)
}

// serveRequest serves a control endpoint whose body was read (body, rerr)
// as serveControl does.
func (ctl *controlAPI) serveRequest(w http.ResponseWriter, r *http.Request, fn controlFunc, body []byte, rerr error) {
	s := ctl.sim
	id := s.wiring.rec.controlID()
	w.Header().Set("X-Request-Id", id)
	write := isWrite(r.Method)
	var end int64
	var tx *kernel.Tx
	if write {
		tx = s.k.BeginInput()
		_, e, err := s.wiring.inputs.logRequest(tx, r)
		tx.Ordered()
		if err != nil {
			tx.End()
			errorResponse(notPersisted(err), id).write(w, id)
			return
		}
		end = e
	} else {
		tx = s.k.Begin()
	}
	resp := ctl.controlAnswer(tx, r, fn, body, rerr, id)
	tx.End()
	if write {
		if err := s.wiring.rec.durable(end); err != nil {
			resp = errorResponse(notDurable(err), id)
		}
	}
	writeControl(w, resp, id)
}

// writeControl writes the answer of a control endpoint: a status alone when
// it has no body.
func writeControl(w http.ResponseWriter, resp response, id string) {
	if resp.body == nil {
		w.WriteHeader(resp.status)
		return
	}
	resp.write(w, id)
}

// controlAnswer runs a control endpoint in a transaction and encodes its
// answer (under the lock, as the answer may show live state).
func (ctl *controlAPI) controlAnswer(tx *kernel.Tx, r *http.Request, fn controlFunc, body []byte, rerr error, id string) response {
	if rerr != nil || len(body) > maxBodyBytes {
		return errorResponse(errInvalidRequest("request body unreadable or larger than 1 MiB"), id)
	}
	status, out, err := fn(tx, r, body)
	return ctl.answer(tx, status, out, err, id)
}

// answer encodes the answer of a control endpoint that ran in tx: an error
// as controlError maps it; otherwise the timers due now run first (an
// outcome set to happen immediately), then the answer shows the state.
func (ctl *controlAPI) answer(tx *kernel.Tx, status int, out any, err error, id string) response {
	if err != nil {
		return errorResponse(controlError(err), id)
	}
	ctl.sim.wiring.timers.runDue(tx)
	if out == nil {
		return response{status: status}
	}
	return jsonResponse(status, out)
}

// controlError maps an action's error to an envelope: an *apiError as is, a
// ledger shortfall as insufficient_balance, anything else 400 invalid_request.
func controlError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var pe *persistError
	if errors.As(err, &pe) {
		return pe.answer()
	}
	var ne *NameError
	if errors.As(err, &ne) {
		return ne.answer()
	}
	var ins *InsufficientFundsError
	if errors.As(err, &ins) {
		return newErr("insufficient_balance", err.Error())
	}
	if errors.Is(err, errControlNotFound) {
		return newErr("not_found", err.Error())
	}
	return errInvalidRequest(err.Error())
}

// errControlNotFound marks Go-API errors about an object that does not exist.
var errControlNotFound = errors.New("not found")

// decodeControl decodes a control body into v through the strict decoder of
// every request body (decodeStrict): an empty body is {}; anything but one
// JSON object with exactly the field names of v (unknown fields refused) is
// invalid_request.
func decodeControl(body []byte, v any) error {
	if ae := decodeStrict(body, v, refuseUnknown); ae != nil {
		return ae
	}
	return nil
}

// coreControls declares the control routes that no Go control method
// mirrors line by line: the credentials, stats, clock, members, merchant,
// Keys, faults, journal, events, ledger, outcome modes, step-up screen and
// the object actions (POST /_sim/{rest...}), each answered in a
// transaction of the control API (control_decl.go). They register first,
// in this order (the order is part of the state image).
var coreControls = []controlDecl{
	{route: "GET /_sim/credentials", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, s.st.creds, nil
	}},
	{route: "GET /_sim/stats", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, s.wiring.view.stats(tx), nil
	}},
	{route: "GET /_sim/clock", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, s.wiring.ctl.clockJSON(), nil
	}},
	{route: "POST /_sim/clock", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, body []byte) (int, any, error) {
		var in struct {
			AdvanceSeconds *float64 `json:"advance_seconds"`
			Advance        string   `json:"advance"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		var d time.Duration
		switch {
		case in.AdvanceSeconds != nil:
			if *in.AdvanceSeconds < 0 || *in.AdvanceSeconds > 10*365*24*3600 {
				return 0, nil, errInvalidRequest("advance_seconds must be between 0 and ten years")
			}
			d = time.Duration(*in.AdvanceSeconds * float64(time.Second))
		case in.Advance != "":
			var err error
			if d, err = time.ParseDuration(in.Advance); err != nil || d < 0 {
				return 0, nil, errInvalidRequest("advance must be a non-negative Go duration such as 90s or 24h")
			}
		}
		s.wiring.timers.advance(tx, d)
		return http.StatusOK, s.wiring.ctl.clockJSON(), nil
	}},
	{name: ctlMembersCreate, bind: func(s *Simulator) any { return s.Members.Create }, route: "POST /_sim/members", asCall: createMemberCall},
	{route: "GET /_sim/members", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		out := make([]map[string]any, 0, len(s.st.members.All()))
		for _, m := range s.st.members.All() {
			out = append(out, s.wiring.view.memberJSON(m))
		}
		return http.StatusOK, map[string]any{"data": out}, nil
	}},
	{route: "GET /_sim/members/{id}", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		m := s.st.members.ByAny(r.PathValue("id"))
		if m == nil {
			return 0, nil, errNotFound("member")
		}
		return http.StatusOK, s.wiring.view.memberJSON(m), nil
	}},
	{route: "GET /_sim/merchant", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, s.st.merchant.JSON(tx), nil
	}},
	{name: ctlMerchantSet, bind: func(s *Simulator) any { return s.Merchant.Set }, route: "POST /_sim/merchant", asCall: setMerchantCall},
	{route: "GET /_sim/keys", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		ids := make([]string, 0, len(s.st.keys))
		for id := range s.st.keys {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		out := make([]any, 0, len(ids))
		for _, id := range ids {
			out = append(out, keyJSON(s.st.keys[id], false))
		}
		return http.StatusOK, map[string]any{"data": out}, nil
	}},
	{name: ctlKeysAdd, bind: func(s *Simulator) any { return s.Keys.Add }, route: "POST /_sim/keys", asCall: addKeyCall},
	{route: "GET /_sim/keys/{client_id}", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		k := s.st.keys[r.PathValue("client_id")]
		if k == nil {
			return 0, nil, errNotFound("key")
		}
		return http.StatusOK, keyJSON(k, false), nil
	}},
	{name: ctlKeysSet, bind: func(s *Simulator) any { return s.Keys.Set }, route: "POST /_sim/keys/{client_id}", asCall: setKeyCall},
	{route: "GET /_sim/faults", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"data": s.wiring.gw.faults(tx)}, nil
	}},
	{name: ctlFaultsInject, bind: func(s *Simulator) any { return s.Faults.Inject }, route: "POST /_sim/faults", asCall: injectFaultCall},
	{name: ctlFaultsClear, bind: func(s *Simulator) any { return s.Faults.Clear }, route: "DELETE /_sim/faults", asCall: clearFaultsCall},
	{route: "GET /_sim/requests", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		out := s.st.gw.journal.list()
		if v := r.URL.Query().Get("limit"); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < len(out) {
				out = out[len(out)-n:]
			}
		}
		return http.StatusOK, map[string]any{"data": out}, nil
	}},
	{name: ctlRequestsReset, bind: func(s *Simulator) any { return s.Requests.Reset }, route: "DELETE /_sim/requests", asCall: resetRequestsCall},
	{route: "GET /_sim/events", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		out := make([]Event, len(s.st.events))
		for i, e := range s.st.events {
			out[i] = Event(*e)
		}
		return http.StatusOK, map[string]any{"data": out}, nil
	}},
	{route: "GET /_sim/ledger", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		out := map[string]any{"balanced": true, "entries": s.st.ledger.Entries()}
		if err := s.st.ledger.Check(); err != nil {
			out["balanced"] = false
			out["error"] = err.Error()
		}
		return http.StatusOK, out, nil
	}},
	{name: ctlOutcomesSet, bind: func(s *Simulator) any { return s.Outcomes.Set }, route: "POST /_sim/outcomes", asCall: setOutcomeCall},
	{route: "GET /_sim/step-up/{challenge_id}", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		ch, ok := s.st.stepUp.Get(r.PathValue("challenge_id"))
		if !ok {
			return 0, nil, errNotFound("step-up challenge")
		}
		return http.StatusOK, map[string]any{
			"challenge_id": ch.ID, "completed": ch.Completed, "used": ch.Used,
			"expires_at": ch.ExpiresAt.Unix(),
			"complete":   "POST /_sim/step-up/" + ch.ID + "/complete",
		}, nil
	}},
	{name: ctlStepUpComplete, bind: func(s *Simulator) any { return s.StepUp.Complete }, route: "POST /_sim/step-up/{challenge_id}/complete", asCall: completeStepUpCall},
	{name: ctlAction, bind: func(s *Simulator) any { return s.Action }, route: "POST /_sim/{rest...}", asCall: actionCall},
}

// registerControl registers the declared control routes (control_decl.go)
// and answers every other path under /_sim as the router does.
func (ctl *controlAPI) registerControl() {
	s := ctl.sim
	ctl.registerDeclared()
	s.wiring.mux.HandleFunc("/_sim/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		s.wiring.gw.controlNotFound(w, r, "")
	})
}

// lookupAction resolves "a/b/<id>/<action>" to s.wiring.actions["a/b/<action>"]
// with the id, or, when no such action exists, the whole path as an action
// that takes no id ("merchant/prepaid/topup").
func (ctl *controlAPI) lookupAction(rest string) (string, actionFunc, string, bool) {
	s := ctl.sim
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if n := len(segs); n >= 3 {
		key := strings.Join(segs[:n-2], "/") + "/" + segs[n-1]
		if fn, ok := s.wiring.actions[key]; ok {
			return key, fn, segs[n-2], true
		}
	}
	key := strings.Join(segs, "/")
	if fn, ok := s.wiring.actions[key]; ok && len(segs) >= 2 {
		return key, fn, "", true
	}
	return "", nil, "", false
}

// Actions lists the registered control actions ("qrpay/orders/complete",
// ...), sorted. Each is reachable at POST /_sim/<collection>/<id>/<action>.
func (s *Simulator) Actions() []string { return s.wiring.ctl.actionKeys() }

// actionKeys lists the registered control actions, sorted (Actions).
func (ctl *controlAPI) actionKeys() []string {
	s := ctl.sim
	tx := s.k.Begin()
	defer tx.End()
	out := make([]string, 0, len(s.wiring.actions))
	for k := range s.wiring.actions {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Action runs the control action key ("qrpay/orders/complete") on object id
// with a JSON body (nil for none), as POST /_sim/<collection>/<id>/<action>
// would, and returns its JSON answer.
func (s *Simulator) Action(key, id string, body []byte) (json.RawMessage, error) {
	return call2(s, ctlAction, func() (json.RawMessage, error) { return s.wiring.ctl.action(key, id, body) }, key, id, body)
}

// ctlAction is the name Action records its calls under.
const ctlAction = "Action"

// action runs the control action key on id (Action).
func (ctl *controlAPI) action(key, id string, body []byte) (json.RawMessage, error) {
	s := ctl.sim
	tx := s.k.Begin()
	defer tx.End()
	fn, ok := s.wiring.actions[key]
	if !ok {
		return nil, ctl.unknownAction(key)
	}
	out, err := fn(tx, id, body)
	if err != nil {
		return nil, unknownID("object", id, err)
	}
	s.wiring.timers.runDue(tx)
	if out == nil {
		out = map[string]any{"ok": true}
	}
	return json.Marshal(out)
}

func (ctl *controlAPI) clockJSON() map[string]any {
	s := ctl.sim
	now := s.st.clock.Now()
	return map[string]any{"now": now.UTC().Format(time.RFC3339), "unix": now.Unix(), "pending_timers": s.st.clock.pending()}
}
