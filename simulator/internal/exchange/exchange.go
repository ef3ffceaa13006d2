// Package exchange runs one business request from its arrival to its
// answer, under the state lock: the request logged as an input, its request
// id, the sweep of the gateway's windows, the fault it takes (a fault's
// error, its delay with the lock released, a dropped connection), the
// idempotency step, the line's handler as the request's step, the request
// journal's row and the answer, written once the input is durable. What it
// needs of the simulator (the input log, the clock and its timers, the API
// keys, access tokens, merchant and members the checks of the caller look
// up, the lines told of their expired entries, the step-up line, the
// exchange log, a replay's hooks, the body's capture and the control API's
// not_found) it asks of its Host. The checks of the caller (auth.go), the
// token exchange (token.go) and the router with its own answers
// (router.go, notfound.go) are its own.
package exchange

import (
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/internal/h2serve"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/faults"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Host is what the exchange needs of the simulator.
type Host interface {
	// LogRequest logs r as an input in tx's place of the input order and
	// returns the input's sequence number and its end offset in the data
	// directory, or why the log refused it.
	LogRequest(tx *kernel.Tx, r *http.Request) (seq, end int64, err error)
	// Resume logs that the request of input seq, parked in a delay fault,
	// takes the state lock again.
	Resume(tx *kernel.Tx, seq int64) error
	// Park and Unpark count a request parked in a delay fault; Fail makes
	// the log refuse every input from now on.
	Park()
	Unpark()
	Fail(err error)
	// Durable waits until the input ending at end is on stable storage.
	Durable(end int64) error
	// NotPersisted and NotDurable are the answers of a request the log
	// could not take or make durable.
	NotPersisted(err error) *api.Error
	NotDurable(err error) *api.Error
	// ControlID draws the request id of an answer outside the exchange's
	// order (a request the log refused).
	ControlID() string
	// Now reads the simulator clock.
	Now() time.Time
	// Expired is told of the entries the sweep of the gateway's windows
	// expires outside the gateway's own stores (gateway.State.Sweep).
	gateway.Expired
	// Directory is what the checks of the caller look up.
	Directory
	// RunDue runs the timers due at the current time.
	RunDue(tx *kernel.Tx)
	// IssueStepUp issues a step-up challenge for memberID and action, its
	// answer the error that carries it.
	IssueStepUp(tx *kernel.Tx, memberID, action string, now time.Time) error
	// MerchantID is the merchant's id, the scope of idempotency keys.
	MerchantID(tx *kernel.Tx) string
	// Capture puts on r's body what keeps what is read of it, so that the
	// request can be logged as an input with it (the router calls it first).
	Capture(r *http.Request)
	// ControlNotFound answers the router's not_found of a path under /_sim
	// behind the control API's guard.
	ControlNotFound(w http.ResponseWriter, r *http.Request, message string)
	// MarkFault tells the exchange log the fault kind r took.
	MarkFault(r *http.Request, kind string)
	// Replay says whether r is a request of a replay, the fault draws its
	// input recorded (nil when it recorded none) and how it waits in a
	// delay fault until the recording says it took the lock again.
	Replay(r *http.Request) (draws []bool, park func(), ok bool)
}

// Pipeline is the business API's exchange over the gateway's state.
type Pipeline struct {
	k    *kernel.Kernel
	st   *gateway.State
	host Host
	// chans are the channels of the delay faults injected from Go, by
	// fault Seq (guarded by the state lock; not state: a recording cannot
	// keep them).
	chans map[int64]faults.Chans
}

// New is the exchange of the requests over k, whose gateway state is st.
func New(k *kernel.Kernel, st *gateway.State, host Host) *Pipeline {
	return &Pipeline{k: k, st: st, host: host, chans: map[int64]faults.Chans{}}
}

// Exchange is the exchange's view of one request from arrival to answer.
type Exchange struct {
	p *Pipeline
	// Tx is held from Begin to Finish, released while a delay fault waits.
	Tx *kernel.Tx
	W  http.ResponseWriter
	R  *http.Request
	// ID is the request id.
	ID string
	// Fault is the fault the request took, if any.
	Fault *faults.Rule
	// Rec is the request's row of the journal, written by Finish.
	Rec gateway.JournalRow
	// seq is the request's input in the log, end its end offset in the
	// data directory; refused is set when the log could not take it
	// (nothing runs: PreFault answers service_unavailable).
	seq     int64
	end     int64
	refused error
}

// Begin takes the lock, logs the request as an input, assigns the request
// id, sweeps the windows and takes the first matching fault. The caller
// must call PreFault, and Finish unless PreFault finished the request.
func (p *Pipeline) Begin(w http.ResponseWriter, r *http.Request) *Exchange {
	tx := p.k.BeginInput()
	seq, end, err := p.host.LogRequest(tx, r)
	tx.Ordered()
	if err != nil {
		tx.End()
		return &Exchange{p: p, W: w, R: r, refused: err}
	}
	now := p.host.Now()
	// The answer's Date is the instant the request runs at: on a clock that
	// follows the host's (WithWallClock), later than the reading when it
	// arrived if it waited for the lock.
	w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
	p.st.Sweep(tx, now, p.host)
	x := &Exchange{p: p, Tx: tx, W: w, R: r, ID: p.st.NextRequestID(tx), seq: seq, end: end}
	x.Rec = gateway.JournalRow{
		RequestID: x.ID, Time: now, Method: r.Method, Path: gateway.PathOf(r).Sent, Query: r.URL.RawQuery,
		Member:         strings.TrimSpace(r.Header.Get("X-On-Behalf-Of")),
		IdempotencyKey: strings.TrimSpace(r.Header.Get("X-Idempotency-Key")),
	}
	x.Fault = p.takeFault(tx, r)
	if x.Fault != nil {
		x.Rec.Fault = x.Fault.Kind
		p.host.MarkFault(r, x.Fault.Kind)
	}
	return x
}

// Finish records the request, releases the lock and answers (or drops the
// connection, as the fault says).
func (x *Exchange) Finish(resp gateway.Response) {
	x.Rec.Status = resp.Status
	x.Rec.Code = resp.Code
	x.Rec.Replay = resp.Replay
	x.Rec.ReplayOf = resp.ReplayOf
	if x.Fault != nil && (x.Fault.Kind == faults.KindDropBefore || x.Fault.Kind == faults.KindDropAfter) {
		x.Rec.Status = 0
		x.Rec.Dropped = true
	}
	x.p.st.Journal.Add(x.Tx, x.Rec)
	x.Tx.End()
	// A write is answered once its input is on stable storage (with a data
	// directory; at once otherwise).
	if gateway.IsWrite(x.R.Method) {
		if err := x.p.host.Durable(x.end); err != nil && !x.Rec.Dropped {
			resp = gateway.ErrorResponse(x.p.host.NotDurable(err), x.ID)
		}
	}
	if x.Rec.Dropped {
		how := h2serve.Internal
		if x.Fault.Kind == faults.KindDropBefore {
			how = h2serve.Refused
		}
		h2serve.Abort(x.W, x.R, how)
		return
	}
	resp.Write(x.W, x.ID)
}

// PreFault applies the faults that act before anything runs: error answers
// the fault's envelope, drop_before drops the connection. It reports whether
// the request is finished. A request the log refused is answered
// service_unavailable here, without having changed anything.
func (x *Exchange) PreFault() bool {
	if x.refused != nil {
		id := x.p.host.ControlID()
		gateway.ErrorResponse(x.p.host.NotPersisted(x.refused), id).Write(x.W, id)
		return true
	}
	if x.Fault == nil {
		return false
	}
	switch x.Fault.Kind {
	case faults.KindError:
		x.Finish(gateway.ErrorResponse(x.faultError(), x.ID))
		return true
	case faults.KindDropBefore:
		x.Finish(gateway.Response{})
		return true
	}
	return false
}

// Delay applies a delay fault: it releases the lock for the delay (so other
// requests run meanwhile, and see an idempotency record in progress), then
// takes it again.
func (x *Exchange) Delay() {
	if x.Fault == nil || x.Fault.Kind != faults.KindDelay {
		return
	}
	h := x.p.host
	h.Park()
	x.Tx.Suspend()
	if _, park, ok := h.Replay(x.R); ok {
		// A replay: the recording says when the request took the lock again.
		park()
	} else {
		x.wait(*x.Fault)
	}
	// Taking the lock again is an input of its own (resume), so that the log
	// keeps what ran meanwhile before it.
	x.Tx.Resume()
	h.Unpark()
	if err := h.Resume(x.Tx, x.seq); err != nil {
		// The first part already ran: the request completes, and the log
		// refuses everything from now on, so its answer is
		// service_unavailable (Finish) and a restart resumes it.
		h.Fail(err)
	}
	x.Tx.Ordered()
}

// wait waits out a delay fault.
func (x *Exchange) wait(f faults.Rule) {
	if f.Held != nil {
		f.Held <- x.ID
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
	case <-x.R.Context().Done():
	}
}
