package simulator

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"

	"github.com/mwallet/mwallet-go/internal/h2serve"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Contract windows and gateway bounds.
const (
	// maxBodyBytes caps request bodies; larger ones get invalid_request.
	maxBodyBytes = 1 << 20
	// tokenTTL is the access token validity.
	tokenTTL = 30 * time.Minute
)

// gatewayState holds the gateway's windows: nonces, idempotency records,
// token-exchange rate, request journal and faults, as kernel tables
// (internal/gateway's State).
type gatewayState = pipeline.State

// gateway is the business API's one pipeline: routing and the router's own
// answers, the token exchange and the API Keys' checks, signatures,
// idempotency, the windows' expiry sweeps, the write quota, faults, staged
// requests, the request journal, and the HTTP server New starts. It holds
// no state of its own: its windows are st.gw, read and written through st.
//
// It holds the kernel (k, which begins the transactions of its reads and
// of each request), the state (st), the input log (rec), the router (mux,
// which the control API registers on too), the business endpoints as
// registered (endpoints) and the server New started (server, or tls with
// WithTLS or WithHTTP2). What it needs from the rest of the simulator comes
// as callbacks:
//
//   - logRequest logs a request as an input, admit any other input
//     (record.go);
//   - runDue runs the timers due at the current time (simulator.go);
//   - controlID draws the request id of a control answer (the recorder's
//     ControlID, internal/inputlog);
//   - controlNotFound answers the router's not_found of a path under /_sim
//     behind the control API's guard (control_guard.go).
type gateway struct {
	k         *kernel.Kernel
	st        *simState
	rec       *recorder
	mux       *http.ServeMux
	endpoints []endpoint
	server    *httptest.Server
	tls       *tlsServer
	// faultChans are the channels of the delay faults injected from Go,
	// by fault seq (guarded by the state lock; not state: a recording
	// cannot keep them).
	faultChans map[int64]faultChans

	// literal maps each path registered without wildcards (business
	// endpoints and control routes) to the methods it serves.
	literal map[string][]string

	logRequest      func(tx *kernel.Tx, r *http.Request) (*recordedInput, int64, error)
	admit           func(tx *kernel.Tx, in *recordedInput) (int64, error)
	runDue          func(tx *kernel.Tx)
	controlID       func() string
	controlNotFound func(w http.ResponseWriter, r *http.Request, message string)
}

// registerGateway registers the token exchange and the catch-all answer of
// paths no endpoint serves.
func (g *gateway) registerGateway() {
	g.mux.HandleFunc("POST /v1/connect/token", g.serveToken)
	g.mux.HandleFunc("/", g.serveNotFound)
}

// response is one answer of the gateway (internal/gateway's Response).
type response = pipeline.Response

// exchange is the gateway's view of one request from arrival to answer.
type exchange struct {
	g     *gateway
	tx    *kernel.Tx // held from begin to finish, released while a delay fault waits
	w     http.ResponseWriter
	r     *http.Request
	id    string
	fault *faultRule
	rec   RequestRecord
	// in is the request's input in the log, end its end offset in the data
	// directory; refused is set when the log could not take it (nothing
	// runs: preFault answers service_unavailable).
	in      *recordedInput
	end     int64
	refused error
}

// begin takes the lock, logs the request as an input, assigns the request
// id, sweeps the windows and takes the first matching fault. The caller
// must call preFault, and finish unless preFault finished the request.
func (g *gateway) begin(w http.ResponseWriter, r *http.Request) *exchange {
	tx := g.k.BeginInput()
	in, end, err := g.logRequest(tx, r)
	tx.Ordered()
	if err != nil {
		tx.End()
		return &exchange{g: g, w: w, r: r, refused: err}
	}
	now := g.st.clock.Now()
	// The answer's Date is the instant the request runs at: on a clock that
	// follows the host's (WithWallClock), later than the reading when it
	// arrived if it waited for the lock.
	w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	g.sweep(tx, now)
	x := &exchange{g: g, tx: tx, w: w, r: r, id: g.st.gw.NextRequestID(tx), in: in, end: end}
	x.rec = RequestRecord{
		RequestID: x.id, Time: now, Method: r.Method, Path: pathOf(r).Sent, Query: r.URL.RawQuery,
		Member:         strings.TrimSpace(r.Header.Get("X-On-Behalf-Of")),
		IdempotencyKey: strings.TrimSpace(r.Header.Get("X-Idempotency-Key")),
	}
	x.fault = g.takeFault(tx, r)
	if x.fault != nil {
		x.rec.Fault = string(x.fault.Kind)
		markFault(r, x.fault.Kind)
	}
	return x
}

// finish records the request, releases the lock and answers (or drops the
// connection, as the fault says).
func (x *exchange) finish(resp response) {
	x.rec.Status = resp.Status
	x.rec.Code = resp.Code
	x.rec.Replay = resp.Replay
	x.rec.ReplayOf = resp.ReplayOf
	if x.fault != nil && (x.fault.Kind == FaultDropBefore || x.fault.Kind == FaultDropAfter) {
		x.rec.Status = 0
		x.rec.Dropped = true
	}
	x.g.st.gw.Journal.Add(x.tx, journalRowOf(x.rec))
	x.tx.End()
	// A write is answered once its input is on stable storage (with a data
	// directory; at once otherwise).
	if pipeline.IsWrite(x.r.Method) {
		if err := x.g.rec.Durable(x.end); err != nil && !x.rec.Dropped {
			resp = pipeline.ErrorResponse(notDurable(err), x.id)
		}
	}
	if x.rec.Dropped {
		how := h2serve.Internal
		if x.fault.Kind == FaultDropBefore {
			how = h2serve.Refused
		}
		h2serve.Abort(x.w, x.r, how)
		return
	}
	resp.Write(x.w, x.id)
}

// preFault applies the faults that act before anything runs: error answers
// the fault's envelope, drop_before drops the connection. It reports whether
// the request is finished. A request the log refused is answered
// service_unavailable here, without having changed anything.
func (x *exchange) preFault() bool {
	if x.refused != nil {
		id := x.g.controlID()
		pipeline.ErrorResponse(notPersisted(x.refused), id).Write(x.w, id)
		return true
	}
	if x.fault == nil {
		return false
	}
	switch x.fault.Kind {
	case FaultError:
		x.finish(pipeline.ErrorResponse(x.faultError(), x.id))
		return true
	case FaultDropBefore:
		x.finish(response{})
		return true
	}
	return false
}

// delay applies a delay fault: it releases the lock for the delay (so other
// requests run meanwhile, and see an idempotency record in progress), then
// takes it again.
func (x *exchange) delay() {
	if x.fault == nil || x.fault.Kind != FaultDelay {
		return
	}
	f := x.fault.Fault
	g := x.g
	g.rec.Park()
	x.tx.Suspend()
	if c := captureOf(x.r); c != nil && c.replay != nil {
		// A replay: the recording says when the request took the lock again.
		c.replay.Park()
	} else {
		x.wait(f)
	}
	// Taking the lock again is an input of its own (resume), so that the log
	// keeps what ran meanwhile before it.
	x.tx.Resume()
	g.rec.Unpark()
	if _, err := g.admit(x.tx, &recordedInput{Op: recfile.OpResume, Of: x.in.Seq}); err != nil {
		// The first part already ran: the request completes, and the log
		// refuses everything from now on, so its answer is
		// service_unavailable (finish) and a restart resumes it.
		g.rec.Fail(err)
	}
	x.tx.Ordered()
}

// wait waits out a delay fault.
func (x *exchange) wait(f Fault) {
	if f.Held != nil {
		f.Held <- x.id
	}
	var timeout <-chan time.Time
	if f.DelayMS > 0 {
		t := time.NewTimer(time.Duration(f.DelayMS) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-f.Hold:
	case <-timeout:
	case <-x.r.Context().Done():
	}
}

// serveEndpoint runs the gateway rules for e, then its handler. The order of
// the checks is:
//
//	request id, faults, token, IP allowlist, environment, merchant status,
//	scope, body size, signature, member, precheck, idempotency, handler
//
// Everything before the idempotency step answers without creating an
// idempotency record, so such a rejection is never replayed.
func (g *gateway) serveEndpoint(w http.ResponseWriter, r *http.Request, e *endpoint) {
	body, rerr := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	x := g.begin(w, r)
	defer x.tx.Release()
	if x.preFault() {
		return
	}
	resp := g.runEndpoint(x, e, body, rerr != nil || len(body) > maxBodyBytes)
	g.runDue(x.tx)
	x.finish(x.afterFault(resp))
}

// runEndpoint applies the gateway rules for e to the request of x, in the
// order serveEndpoint lists, and runs the handler if they pass.
func (g *gateway) runEndpoint(x *exchange, e *endpoint, body []byte, bodyTooLarge bool) response {
	r := x.r
	now := g.st.clock.Now()
	fail := func(ae *apiError) response { return pipeline.ErrorResponse(ae, x.id) }
	if ae := pipeline.HeaderAmbiguity(r.Header); ae != nil {
		return fail(ae)
	}
	tok, ok := g.st.tokens.Get(x.tx, bearer(r))
	if !ok || !now.Before(tok.ExpiresAt) {
		return fail(newErr("invalid_token", "access token missing, malformed or expired"))
	}
	key, ok := g.st.keys.Get(x.tx, tok.ClientID)
	if !ok || !key.usable(now) {
		return fail(newErr("invalid_token", "access token missing, malformed or expired"))
	}
	x.rec.ClientID = key.ClientID
	if !key.ipAllowed(pipeline.RemoteIP(r)) {
		return fail(newErr("ip_not_allowed", "the caller address is not allowed for this key"))
	}
	if tok.Env != Environment(g.st.merchant.Env(x.tx)) || key.Env != Environment(g.st.merchant.Env(x.tx)) {
		return fail(newErr("environment_mismatch", "the access token belongs to another environment"))
	}
	switch MerchantStatus(g.st.merchant.Status(x.tx)) {
	case MerchantActive:
	case MerchantSuspended:
		if pipeline.IsWrite(r.Method) {
			return fail(newErr("merchant_disabled", "the merchant is suspended: reads only"))
		}
	default:
		return fail(newErr("merchant_disabled", "the merchant is disabled"))
	}
	if e.Scope != "" && !key.allows(e.Scope) {
		return fail(newErr("insufficient_scope", "the key lacks the scope "+e.Scope))
	}
	if bodyTooLarge {
		return fail(errInvalidRequest("request body unreadable or larger than 1 MiB"))
	}
	if ae := pipeline.ContentTypeRule(r, body); ae != nil {
		return fail(ae)
	}
	if pipeline.IsWrite(r.Method) && (key.SignatureRequired || alwaysSigned(e)) {
		if ae := g.verifySignature(x.tx, r, key, body, now); ae != nil {
			x.rec.Signature, _ = ae.Signature.(*SignatureCheck)
			return fail(ae)
		}
	}
	if ae := g.takeWriteQuota(x.tx, r, now); ae != nil {
		return fail(ae)
	}
	c := &rc{Tx: x.tx, Req: r, Now: now, RequestID: x.id, Body: body, Header: http.Header{}}
	c.StepUp = strings.TrimSpace(r.Header.Get("X-Step-Up"))
	if e.Member {
		m, ae := g.resolveMember(x.tx, x.rec.Member)
		if ae != nil {
			return fail(ae)
		}
		c.Member = m
	}
	if e.Precheck != nil {
		if err := e.Precheck(c); err != nil {
			return fail(asAPIError(err))
		}
	}
	if !e.Idempotent {
		x.delay()
		c.Now = g.st.clock.Now()
		return g.callHandler(c, e)
	}

	c.IdemKey = x.rec.IdempotencyKey
	if c.IdemKey == "" {
		return fail(newErr("idempotency_key_required", "x-idempotency-key is required"))
	}
	if !api.UUIDShaped(c.IdemKey) {
		return fail(newErr("idempotency_key_invalid", "x-idempotency-key must be UUID-shaped (8-4-4-4-12 hex)"))
	}
	recKey := idempotency.Key(g.st.merchant.ID(x.tx), c.IdemKey)
	endpointID := r.Method + " " + r.URL.EscapedPath()
	hash := g.st.gw.BodyDigest(body)
	rec, ae := idemCheck(x.tx, &g.st.gw.Idem, recKey, endpointID, hash, now, g.st.gw.Caps.Get(x.tx).IdempotencyKeys)
	if ae != nil {
		return fail(ae)
	}
	if rec != nil {
		if e.OwnReplay && rec.Status < 300 {
			c.Replay = true
			c.ReplayBody = rec.KeptBody()
			resp := g.callHandler(c, e)
			resp.Replay, resp.ReplayOf = true, rec.RequestID
			return resp
		}
		return response{Status: rec.Status, Header: rec.KeptHeader(), Body: rec.KeptBody(), Code: rec.Code, Replay: true, ReplayOf: rec.RequestID}
	}
	started := g.st.gw.Idem.Start(x.tx, recKey, endpointID, hash, now)
	x.delay()
	c.Now = g.st.clock.Now()
	resp := g.callHandler(c, e)
	g.st.gw.Idem.End(x.tx, recKey, started, idemAnswer(resp), x.id)
	return resp
}

// callHandler runs the endpoint's handler, turning its result (or a panic)
// into a response.
func (g *gateway) callHandler(c *rc, e *endpoint) (resp response) {
	defer func() {
		if p := recover(); p != nil {
			resp = pipeline.ErrorResponse(newErr("api_error", fmt.Sprintf("simulator fault in %s %s: %v", e.Method, e.Pattern, p)), c.RequestID)
		}
	}()
	// The handler is the request's step: when it refuses (an error, or a
	// panic) every write it made is undone (internal/kernel, step.go).
	var status int
	var out any
	err := c.Tx.Step(e.Method+" "+e.Pattern, func() error {
		var err error
		status, out, err = e.Handle(c)
		return err
	})
	if err != nil {
		resp = pipeline.ErrorResponse(asAPIError(err), c.RequestID)
	} else {
		resp = pipeline.JSONResponse(status, out)
		resp.Instead = c.AnswerInstead
	}
	if len(c.Header) > 0 {
		if resp.Header == nil {
			resp.Header = http.Header{}
		}
		for k, v := range c.Header {
			resp.Header[k] = v
		}
	}
	return resp
}
