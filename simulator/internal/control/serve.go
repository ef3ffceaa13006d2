package control

import (
	"io"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// The HTTP side of the runner: a route's handler reads the body, hands out
// the request id, applies the guard, decodes the input, logs a write as an
// input (a call of the op's Go method when the input says only what the
// method takes, otherwise the request) and writes the answer in the
// business API's envelope.

// Raw is an answer that is not JSON (a document, a file, a redirect, the
// recording): it writes itself once the run is over.
type Raw func(w http.ResponseWriter, r *http.Request)

// HTTPHost is what serving a route needs of the declaring package, besides
// the run's Host.
type HTTPHost[X any] interface {
	Host[X]
	// NewRun is a run of an op over HTTP for the request r.
	NewRun(r *http.Request) X
	// RequestID is the id of a control answer (X-Request-Id).
	RequestID() string
	// Guard checks r against the guard of the route of o (hasBody: r has
	// a body); nil lets it through.
	Guard(r *http.Request, o *Op[X], hasBody bool) *api.Error
	// Replayed reports an http input of a recording being replayed, which
	// logs itself again.
	Replayed(r *http.Request) bool
	// LogRoute logs a call of the Go method name entered through route
	// with args as an input, and runs run in its place of the input order
	// under the argument rules of the recording's build.
	LogRoute(x X, name, route string, args []any, run func()) error
	// LogRequest logs x's request as an input in a transaction it begins
	// for x, runs run in it under the recording's argument rules, ends it
	// and waits for the input to be durable. Its refusal (the input was
	// not logged, so run did not run, or it is not durable) is the answer.
	LogRequest(x X, run func()) *api.Error
	// Error maps an op's error to its envelope.
	Error(err error) *api.Error
}

// HTTP serves the routes of ops over Host.
type HTTP[X any] struct {
	Host HTTPHost[X]
	// ActionCall is the Go method an object action is logged as a call of
	// when its own Go method cannot say its input (Action).
	ActionCall string
	// MaxBody bounds a request body, in bytes.
	MaxBody int
}

// Serve is the handler of the route of o.
func (s *HTTP[X]) Serve(o *Op[X]) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := s.Host
		var body []byte
		var rerr error
		if gateway.IsWrite(r.Method) {
			body, rerr = io.ReadAll(io.LimitReader(r.Body, int64(s.MaxBody)+1))
		}
		id := h.RequestID()
		w.Header().Set("X-Request-Id", id)
		if ae := h.Guard(r, o, len(body) > 0); ae != nil {
			Write(w, r, gateway.ErrorResponse(ae, id), nil)
			return
		}
		x := h.NewRun(r)
		var in any
		derr := error(api.InvalidRequest("request body unreadable or larger than 1 MiB"))
		if rerr == nil && len(body) <= s.MaxBody {
			in, derr = o.Decode(r.PathValue, r.URL.Query(), body)
		}
		var resp gateway.Response
		var raw Raw
		switch {
		case !gateway.IsWrite(r.Method) || o.Unlocked || (o.NotFound && r.Method != http.MethodPost):
			// A read, an op that logs its own inputs (the flush), or the
			// router's answer to a method other than POST (every control
			// POST is an input): nothing to log here.
			resp, raw = s.runHTTP(x, r, o, in, derr, id)
		default:
			resp, raw = s.write(x, r, o, in, derr, body, id)
		}
		Write(w, r, resp, raw)
	}
}

// write runs a control write over HTTP: logged as a call of the op's Go
// method when the input decodes into its arguments (not for an http input
// being replayed, which logs itself again), otherwise as the request.
func (s *HTTP[X]) write(x X, r *http.Request, o *Op[X], in any, derr error, body []byte, id string) (resp gateway.Response, raw Raw) {
	h := s.Host
	if derr == nil && (o.Call != nil || o.Action != "") && o.Complete(in) && !h.Replayed(r) {
		var name string
		var args []any
		ok := false
		if o.Call != nil {
			name, args, ok = o.Call(in)
		}
		if !ok && o.Action != "" {
			// An object action its Go method cannot say (or one without
			// a Go method) is a call of ActionCall.
			name, args, ok = s.ActionCall, []any{o.Action, r.PathValue("id"), body}, true
		}
		if ok {
			err := h.LogRoute(x, name, o.Route, args, func() {
				resp, raw = s.runHTTP(x, r, o, in, nil, id)
			})
			if err != nil {
				resp = gateway.ErrorResponse(h.Error(err), id)
			}
			return resp, raw
		}
	}
	if ae := h.LogRequest(x, func() { resp, raw = s.answer(x, r, o, in, derr, id) }); ae != nil {
		resp = gateway.ErrorResponse(ae, id)
	}
	return resp, raw
}

// runHTTP runs o over HTTP in a transaction of its own (none for an
// unlocked op).
func (s *HTTP[X]) runHTTP(x X, r *http.Request, o *Op[X], in any, derr error, id string) (resp gateway.Response, raw Raw) {
	InTx(s.Host, x, o, func() { resp, raw = s.answer(x, r, o, in, derr, id) })
	return resp, raw
}

// answer checks the input, runs the transition and encodes the answer
// (under the lock, as the answer may show live state): Reply, in the
// business API's envelope; the timers due run before the answer of a
// write.
func (s *HTTP[X]) answer(x X, r *http.Request, o *Op[X], in any, derr error, id string) (gateway.Response, Raw) {
	status, v, err := Reply(s.Host, x, o, in, derr, gateway.IsWrite(r.Method))
	if err != nil {
		return gateway.ErrorResponse(s.Host.Error(err), id), nil
	}
	if raw, ok := v.(Raw); ok {
		return gateway.Response{}, raw
	}
	if v == nil {
		return gateway.Response{Status: status}, nil
	}
	return gateway.JSONResponse(status, v), nil
}

// Write writes the answer of a control route: a raw answer, a status alone
// when there is no body, or the JSON.
func Write(w http.ResponseWriter, r *http.Request, resp gateway.Response, raw Raw) {
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
