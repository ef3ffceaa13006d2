package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/faults"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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
func (k FaultKind) Known() bool { return faults.KnownKind(string(k)) }

// maxFaultDelayMS caps DelayMS.
const maxFaultDelayMS = faults.MaxDelayMS

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

// faultOf is the public fault of row f, Count as injected.
func faultOf(f faults.Row) Fault {
	return Fault{Method: f.Method, Path: f.Path, Count: f.Count, Kind: FaultKind(f.Kind), Status: f.Status, Code: f.Code, DelayMS: f.DelayMS, OneIn: f.OneIn}
}

// injectFault arms f, after the fault rules' checks (faults.Row's Check
// and Armed; internal/exchange's Pipeline.Arm keeps its Go-only channels).
func (g *gateway) injectFault(tx *kernel.Tx, f Fault) error {
	r := faults.Row{Method: f.Method, Path: f.Path, Count: f.Count, Kind: string(f.Kind), Status: f.Status, Code: f.Code, DelayMS: f.DelayMS, OneIn: f.OneIn}
	if err := r.Check(f.Hold != nil); err != nil {
		return api.InvalidRequest(err.Error())
	}
	g.ex.Arm(tx, r.Armed(), faults.Chans{Hold: f.Hold, Held: f.Held})
	return nil
}

// clearFaults removes every fault.
func (g *gateway) clearFaults(tx *kernel.Tx) error {
	g.ex.ClearFaults(tx)
	return nil
}

// faults lists the armed faults, Count being what remains (faults.Table's Listed).
func (g *gateway) faults(tx *kernel.Tx) []Fault {
	out := make([]Fault, 0, g.st.gw.Faults.Len(tx))
	for f := range g.st.gw.Faults.Listed(tx) {
		out = append(out, faultOf(f))
	}
	return out
}
