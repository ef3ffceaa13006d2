package simulator

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/faults"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"

	mwallet "github.com/mwallet/mwallet-go"
)

// FaultKind is what an injected fault does to a matching request.
type FaultKind string

// Fault kinds.
const (
	// FaultError answers Status with the Code envelope without executing
	// anything.
	FaultError FaultKind = "error"
	// FaultErrorAfter executes the request fully and stores its real
	// outcome under its idempotency key, as a normal execution would, then
	// answers Status with the Code envelope instead (with X-Request-Id): the
	// contract's "504 upstream_timeout, may have executed". A retry with the
	// same idempotency key gets the replay of the real outcome. A request
	// without a key (a read, an unkeyed write, the token exchange) is
	// executed too, and answered the error; its retry executes again.
	FaultErrorAfter FaultKind = "error_after"
	// FaultDropBefore ends the request without executing anything and
	// without an answer: over HTTP/1.1 the connection is closed; over
	// HTTP/2 (WithHTTP2, mwallet-sim -tls) only the request's stream is
	// reset, with REFUSED_STREAM, the code that tells the client the
	// request was not processed.
	FaultDropBefore FaultKind = "drop_before"
	// FaultDropAfter executes the request fully (including its idempotency
	// record) and then ends it without an answer, so a retry with the same
	// idempotency key gets the replay: over HTTP/1.1 the connection is
	// closed; over HTTP/2 the request's stream is reset with
	// INTERNAL_ERROR, after which the outcome is unknown to the client.
	FaultDropAfter FaultKind = "drop_after"
	// FaultDelay adds latency: the request waits DelayMS milliseconds of real
	// time (or until Hold is closed) just before its handler runs, with the
	// simulator unlocked, so other requests run meanwhile and a second
	// request with the same idempotency key sees idempotency_in_progress.
	FaultDelay FaultKind = "delay"
)

// Known reports whether k is one of the fault kinds above.
func (k FaultKind) Known() bool {
	switch k {
	case FaultError, FaultErrorAfter, FaultDropBefore, FaultDropAfter, FaultDelay:
		return true
	}
	return false
}

// maxFaultDelayMS caps DelayMS.
const maxFaultDelayMS = 60_000

// Fault is a rule applied to the next Count requests that match Method and
// Path. Faults apply to the business API (/v1/...) and to unknown paths,
// never to the control API.
type Fault struct {
	// Method matches the HTTP method; empty or "*" matches every method.
	Method string `json:"method,omitempty"`
	// Path matches the request path exactly, or as a prefix when it ends in
	// "*" ("/v1/cards/*").
	Path string `json:"path"`
	// Count is the number of matching requests the fault applies to (at
	// least 1; 0 means 1, or no limit for a OneIn fault). Listings report
	// what remains (0 for no limit).
	Count int `json:"count"`
	// Kind is what the fault does.
	Kind FaultKind `json:"kind"`
	// Status and Code are the answer of an error or error_after fault.
	// With only Code the
	// status is the code's documented one; with only Status the code is the
	// usual one for it (500 api_error, 502 upstream_error, 504
	// upstream_timeout, 429 rate_limited, ...).
	Status int    `json:"status,omitempty"`
	Code   string `json:"code,omitempty"`
	// DelayMS is the latency of a delay fault, in real milliseconds (at
	// most 60000).
	DelayMS int `json:"delay_ms,omitempty"`
	// Hold, when set on a delay fault, holds the request until it is closed
	// (DelayMS, when also set, bounds the wait). Go API only.
	Hold <-chan struct{} `json:"-"`
	// Held, when set on a delay fault, receives the request id when the
	// request starts waiting. Go API only; it must be read from.
	Held chan<- string `json:"-"`
	// OneIn, when above 1, makes the fault random: each matching request
	// takes it with probability 1/OneIn, drawn from the simulator's seeded
	// generator (WithSeed), so the same traffic meets the same faults run
	// after run. A request the draw spares may take a later fault. Count
	// then counts the requests that took the fault, and 0 means no limit:
	// the fault stays armed until FaultsControl.Clear.
	OneIn int `json:"one_in,omitempty"`
}

// faultRule is an armed fault as the gateway takes it (internal/faults):
// the fault and the Go-only channels of a delay fault.
type faultRule struct {
	Fault
}

// faultChans are the Go-only channels of a delay fault injected from Go
// (Fault.Hold, Fault.Held): not state, kept by the gateway by fault seq.
type faultChans struct {
	hold <-chan struct{}
	held chan<- string
}

// faultOf is the public fault of row f, Count as injected.
func faultOf(f faults.Row) Fault {
	return Fault{Method: f.Method, Path: f.Path, Count: f.Count, Kind: FaultKind(f.Kind), Status: f.Status, Code: f.Code, DelayMS: f.DelayMS, OneIn: f.OneIn}
}

// rule is the fault of row f with its channels.
func (g *gateway) rule(f faults.Row) *faultRule {
	r := &faultRule{Fault: faultOf(f)}
	if c, ok := g.faultChans[f.Seq]; ok {
		r.Hold, r.Held = c.hold, c.held
	}
	return r
}

// defaultCodeByStatus is the code of an error fault given only a status.
var defaultCodeByStatus = map[int]string{
	400: "invalid_request", 401: "invalid_token", 403: "insufficient_scope", 404: "not_found",
	409: "idempotency_in_progress", 429: "rate_limited", 500: "api_error", 502: "upstream_error", 504: "upstream_timeout",
}

func (f *faultRule) apiError() *apiError {
	status, code := f.Status, f.Code
	switch {
	case status == 0 && code == "":
		status, code = 500, "api_error"
	case status == 0:
		status = mwallet.Code(code).HTTPStatus()
		if status == 0 {
			status = 500
		}
	case code == "":
		code = defaultCodeByStatus[status]
		if code == "" {
			code = "api_error"
		}
	}
	// The type follows the status, as the specification's table does: it is
	// the type of the status's default code.
	typ := mwallet.Code(defaultCodeByStatus[status]).Type()
	if typ == "" {
		typ = "api_error"
	}
	ae := &apiError{Status: status, Type: typ, Code: code, Message: "injected fault"}
	if code == "rate_limited" {
		ae.With("retry_after", 1)
		ae.Header = map[string]string{"Retry-After": "1"}
	}
	return ae
}

// faultError is the error answer of the exchange's error or error_after
// fault. A step_up_required one carries a real challenge, as the
// contract's answer always does (challenge_id, hosted_url, expires_at): the
// step-up line issues it for the member the request names (none when it
// names no member of the merchant) and for an action no endpoint
// authorises, so the end user can complete it and a resend that needs
// step-up is asked for a challenge of its own.
func (x *exchange) faultError() *apiError {
	ae := x.fault.apiError()
	if ae.Code != string(mwallet.CodeStepUpRequired) {
		return ae
	}
	memberID := ""
	if m, err := x.g.resolveMember(x.tx, x.rec.Member); err == nil {
		memberID = m.ID
	}
	err := x.g.st.stepUp.Issue(x.tx, memberID, api.ActionDigest("fault", x.r.Method, x.rec.Path), x.g.st.clock.Now())
	var issued *apiError
	if !errors.As(err, &issued) {
		return ae
	}
	if issued.Code == ae.Code {
		issued.Status, issued.Type, issued.Message = ae.Status, ae.Type, ae.Message
	}
	return issued
}

func (f *Fault) validate() error {
	if !f.Kind.Known() {
		return fmt.Errorf("fault kind %q: want error, error_after, drop_before, drop_after or delay", f.Kind)
	}
	if !strings.HasPrefix(f.Path, "/") {
		return fmt.Errorf("fault path %q must start with /", f.Path)
	}
	if f.Count < 0 {
		return fmt.Errorf("fault count %d is negative", f.Count)
	}
	if f.OneIn < 0 {
		return fmt.Errorf("fault one_in %d is negative", f.OneIn)
	}
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
		return fmt.Errorf("fault status %d: want 400 to 599", f.Status)
	}
	if f.Kind == FaultDelay {
		if f.DelayMS < 0 || f.DelayMS > maxFaultDelayMS {
			return fmt.Errorf("fault delay_ms %d: want 1 to %d", f.DelayMS, maxFaultDelayMS)
		}
		if f.DelayMS == 0 && f.Hold == nil {
			return fmt.Errorf("a delay fault needs delay_ms")
		}
	}
	return nil
}

// injectFault arms f, after the fault rules' checks.
func (g *gateway) injectFault(tx *kernel.Tx, f Fault) error {
	if err := f.validate(); err != nil {
		return errInvalidRequest(err.Error())
	}
	unlimited := f.Count == 0 && f.OneIn > 1
	if f.Count == 0 && !unlimited {
		f.Count = 1
	}
	seq := g.st.gw.Faults.Arm(tx, faults.Row{Method: f.Method, Path: f.Path, Count: f.Count, Kind: string(f.Kind), Status: f.Status,
		Code: f.Code, DelayMS: f.DelayMS, OneIn: f.OneIn, Unlimited: unlimited})
	if f.Hold != nil || f.Held != nil {
		tx.OnCommit(func() { g.faultChans[seq] = faultChans{hold: f.Hold, held: f.Held} })
	}
	return nil
}

// clearFaults removes every fault.
func (g *gateway) clearFaults(tx *kernel.Tx) error {
	g.st.gw.Faults.Clear(tx)
	tx.OnCommit(func() { clear(g.faultChans) })
	return nil
}

// faultDraws returns the draws takeFault will make for r, one per OneIn
// fault that matches it, in order, up to the fault it takes, without
// drawing: on a copy of the generator, after the draw of the request id
// (begin takes the request id first).
func (g *gateway) faultDraws(tx *kernel.Tx, r *http.Request) []bool {
	var rng *rand.Rand
	return g.st.gw.Faults.Draws(tx, r.Method, r.URL.Path, func(n int) int {
		if rng == nil {
			rng = rand.New(g.st.gw.Rng.Copy(tx))
			rng.Uint64() // nextRequestID
		}
		return rng.IntN(n)
	})
}

// faults lists the armed faults, Count being what remains.
func (g *gateway) faults(tx *kernel.Tx) []Fault {
	out := make([]Fault, 0, g.st.gw.Faults.Len(tx))
	for _, f := range g.st.gw.Faults.All(tx) {
		c := faultOf(f)
		c.Count = f.Remaining
		if f.Unlimited {
			c.Count = 0
		}
		out = append(out, c)
	}
	return out
}

// takeFault returns the first armed fault matching r (and, for a OneIn
// fault, drawn) and counts it down. The draws are random choices kept with
// the request's input (faultDraws); a replay makes the recorded ones.
func (g *gateway) takeFault(tx *kernel.Tx, r *http.Request) *faultRule {
	var recorded []bool
	if c := captureOf(r); c != nil && c.replay != nil && c.replay.Want != nil {
		recorded = c.replay.Want.Draws
	}
	ws := g.st.gw
	row, gone, ok := ws.Faults.Take(tx, r.Method, r.URL.Path, func(n, oneIn int) bool {
		hit := ws.Rng.IntN(tx, oneIn) == 0
		if n < len(recorded) {
			hit = recorded[n]
		}
		return hit
	})
	if !ok {
		return nil
	}
	f := g.rule(row)
	if gone {
		delete(g.faultChans, row.Seq)
	}
	return f
}

// afterFault applies what acts once the request has executed: an
// error_after fault answers its envelope instead of resp (whose outcome is
// already stored under the idempotency key), and a handler that asked to
// answer an error instead of its stored result (resp.Instead) gets that
// error. The journal records what was answered.
func (x *exchange) afterFault(resp response) response {
	if x.fault != nil && x.fault.Kind == FaultErrorAfter {
		return pipeline.ErrorResponse(x.faultError(), x.id)
	}
	if resp.Instead != nil {
		return pipeline.ErrorResponse(resp.Instead, x.id)
	}
	return resp
}
