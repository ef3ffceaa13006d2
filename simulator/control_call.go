package simulator

import (
	"io"
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// A control route that does what a Go control method does is that method's
// HTTP entry: declared with the method's name and asCall (control_decl.go),
// it is logged as a call of the method (op "call", under its declared name,
// with the arguments the method takes), however the transition was
// entered. A replay runs the Go method with the recorded arguments, then
// the timers due, as the route did (recordedInput.Route).
//
// What the route answers does not change with it: the request is decoded
// into the method's arguments before it is logged, and the transition runs
// in a transaction with the route's own errors and answer (controlAnswer's
// rules: an error as controlError maps it, the timers due run before the
// answer). A request the route cannot decode changes nothing and is logged
// as a request, as before; so is a request replayed from a recording made
// when the route was logged as a request (an http input): it runs the same
// decode and transition inside that input, without logging a call.

// controlRun is the transition of a control route entered as a call: it
// runs in tx and returns the status and the JSON body (nil for none), or an
// error (answered as controlError maps it).
type controlRun func(tx *kernel.Tx) (int, any, error)

// routeCallFunc decodes a control request into the arguments of the Go
// method it calls (as the method records them) and the transition that runs
// them and builds the route's answer. It reads no state. name is the
// declared name of the method when the route calls another than the one it
// is declared with (POST /_sim/outcomes: Outcomes.Set or
// Outcomes.SetObject, by the body), "" otherwise.
type routeCallFunc func(s *Simulator, r *http.Request, body []byte) (name string, args []any, run controlRun, err error)

// controlCall registers the route of d, a Go control method's HTTP entry
// (d.asCall).
func (ctl *controlAPI) controlCall(d *controlDecl) {
	s := ctl.sim
	method, _, _ := strings.Cut(d.route, " ")
	noBody := method == http.MethodDelete || controlWithoutBody[d.route]
	decode := func(r *http.Request, body []byte) (string, []any, controlRun, error) {
		if noBody {
			if err := decodeControl(body, &struct{}{}); err != nil {
				return "", nil, nil, err
			}
		}
		name, args, run, err := d.asCall(s, r, body)
		if name == "" {
			name = d.name
		}
		return name, args, run, err
	}
	asRequest := func(tx *kernel.Tx, r *http.Request, body []byte) (int, any, error) {
		_, _, run, err := decode(r, body)
		if err != nil {
			return 0, nil, err
		}
		return run(tx)
	}
	s.st.controlRoutes = append(s.st.controlRoutes, d.route)
	s.wiring.mux.HandleFunc(d.route, func(w http.ResponseWriter, r *http.Request) {
		body, rerr := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		var name string
		var args []any
		var run controlRun
		var derr error
		if rerr == nil && len(body) <= maxBodyBytes {
			name, args, run, derr = decode(r, body)
		}
		if run == nil || derr != nil || replayedRequest(r) {
			ctl.serveRequest(w, r, asRequest, body, rerr)
			return
		}
		id := s.wiring.rec.controlID()
		w.Header().Set("X-Request-Id", id)
		var resp response
		err := s.wiring.inputs.routeCall(name, d.route, args, func() error {
			return inTx(s, func(tx *kernel.Tx) error {
				status, out, err := run(tx)
				resp = ctl.answer(tx, status, out, err, id)
				return nil
			})
		})
		if err != nil {
			resp = errorResponse(controlError(err), id)
		}
		writeControl(w, resp, id)
	})
}

// replayedRequest reports whether r is an http input of a recording being
// replayed.
func replayedRequest(r *http.Request) bool {
	c := captureOf(r)
	return c != nil && c.replay != nil
}
