// Package gatewayhost answers internal/exchange's Host from the objects it
// forwards to: the input log and its recorder, the clock, the API keys and
// access tokens, the merchant, its members and the lines the sweep tells of
// their expired entries, built once in the simulator's wiring. What needs
// the simulator's own types (the capture of a request's body, a replay's
// hooks, the timers due, the control API's not_found) comes as func values.
package gatewayhost

import (
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/exchange"
	"github.com/mwallet/mwallet-go/simulator/internal/exchangelog"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// InputLog is where a request and the resumption of a parked one enter the
// log in their place of the input order (internal/inputlog's Log).
type InputLog interface {
	LogRequest(tx *kernel.Tx, r *http.Request) (*recfile.Input, int64, error)
	Admit(tx *kernel.Tx, in *recfile.Input) (int64, error)
}

// Recorder is the input log's recorder as the exchange uses it
// (internal/inputlog's Recorder): the requests parked in a delay fault,
// its failure, durability and the control answers' request ids.
type Recorder interface {
	Park()
	Unpark()
	Fail(err error)
	Durable(end int64) error
	ControlID() string
}

// Keys are the API keys by client id, as the checks of the caller read
// them (internal/merchant's KeyTable answers it).
type Keys interface {
	Get(tx *kernel.Tx, clientID string) (gateway.Key, bool)
}

// Tokens are the access tokens by value: read by the checks of the caller,
// kept by the token exchange, deleted by the sweep.
type Tokens interface {
	Get(tx *kernel.Tx, value string) (gateway.Token, bool)
	Put(tx *kernel.Tx, t gateway.Token)
	Delete(tx *kernel.Tx, value string)
}

// Host answers internal/exchange's Host. Its Lines are set once the lines
// exist, before the first request.
type Host struct {
	Log    InputLog
	Rec    Recorder
	Clock  interface{ Now() time.Time }
	Keys   Keys
	Tokens Tokens
	Lines  Lines
	// Due runs the timers due at the current time.
	Due func(tx *kernel.Tx)
	// NotFound answers the router's not_found of a path under /_sim behind
	// the control API's guard.
	NotFound func(w http.ResponseWriter, r *http.Request, message string)
	// CaptureBody puts on r's body what keeps what is read of it, unless
	// it has one already.
	CaptureBody func(r *http.Request)
	// ReplayHooks reads the replay's hooks of r's captured body: the fault
	// draws its input recorded and how it waits in a delay fault.
	ReplayHooks func(r *http.Request) (draws []bool, park func(), ok bool)
}

var _ exchange.Host = (*Host)(nil)

// LogRequest logs r as an input and returns its sequence number and end.
func (h *Host) LogRequest(tx *kernel.Tx, r *http.Request) (seq, end int64, err error) {
	in, end, err := h.Log.LogRequest(tx, r)
	if err != nil {
		return 0, 0, err
	}
	return in.Seq, end, nil
}

// Resume logs that the request of input seq takes the state lock again.
func (h *Host) Resume(tx *kernel.Tx, seq int64) error {
	_, err := h.Log.Admit(tx, &recfile.Input{Op: recfile.OpResume, Of: seq})
	return err
}

// Park counts a request parked in a delay fault.
func (h *Host) Park() { h.Rec.Park() }

// Unpark counts a parked request that took the lock again.
func (h *Host) Unpark() { h.Rec.Unpark() }

// Fail makes the log refuse every input from now on.
func (h *Host) Fail(err error) { h.Rec.Fail(err) }

// Durable waits until the input ending at end is on stable storage.
func (h *Host) Durable(end int64) error { return h.Rec.Durable(end) }

// NotPersisted is the answer of a request the log could not take.
func (h *Host) NotPersisted(err error) *api.Error { return inputlog.NotPersisted(err) }

// NotDurable is the answer of a request the log could not make durable.
func (h *Host) NotDurable(err error) *api.Error { return inputlog.NotDurable(err) }

// ControlID draws the request id of an answer outside the exchange's order.
func (h *Host) ControlID() string { return h.Rec.ControlID() }

// Now reads the simulator clock.
func (h *Host) Now() time.Time { return h.Clock.Now() }

// MarkFault tells the exchange log the fault kind r took.
func (h *Host) MarkFault(r *http.Request, kind string) { exchangelog.MarkFault(r, kind) }

// RunDue runs the timers due at the current time.
func (h *Host) RunDue(tx *kernel.Tx) { h.Due(tx) }

// ControlNotFound answers the router's not_found of a path under /_sim.
func (h *Host) ControlNotFound(w http.ResponseWriter, r *http.Request, message string) {
	h.NotFound(w, r, message)
}

// Capture puts on r's body what keeps what is read of it.
func (h *Host) Capture(r *http.Request) { h.CaptureBody(r) }

// Replay says whether r is a request of a replay, with its hooks.
func (h *Host) Replay(r *http.Request) (draws []bool, park func(), ok bool) {
	return h.ReplayHooks(r)
}
