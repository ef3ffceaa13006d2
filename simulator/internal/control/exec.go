package control

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Exec is one run of an op over the simulator S: the run the declaring
// package's transitions reach the state and the wiring through.
type Exec[S any] struct {
	// Sim is the simulator the op runs on.
	Sim S
	// Tx is the transaction the op runs in: nil for an unlocked op, a
	// capture's for a captured one.
	Tx *kernel.Tx
	// Inputs is the number of inputs logged when the state of a captured
	// op was captured.
	Inputs int64
	// Req is the request of a run over HTTP (nil for a Go call).
	Req *http.Request
	// Legacy: the op's input is a replayed one of an earlier build, which
	// runs under the argument rules of that build (Domain.Legacy).
	Legacy bool
}

// Own is the part of a Runner's HTTPHost that is the declaring package's
// own: the guard of a route, the public refusal of an argument, an http
// input being replayed and the envelope of an op's error.
type Own[X any] interface {
	// Guard checks r against the guard of the route of o (hasBody: r has
	// a body); nil lets it through.
	Guard(r *http.Request, o *Op[X], hasBody bool) *api.Error
	// Refused is the declaring package's error for an argument outside its
	// domain.
	Refused(r *Refusal) error
	// Replayed reports an http input of a recording being replayed, which
	// logs itself again.
	Replayed(r *http.Request) bool
	// Error maps an op's error to its envelope.
	Error(err error) *api.Error
}

// CallLog is the simulator's input log as the runner logs a Go call in it.
type CallLog interface {
	// GoCall logs a call of the Go method name with args as an input and
	// runs run in its place of the input order.
	GoCall(name string, args []any, run func() error) error
	// RouteCall logs a call of the Go method name entered through route
	// and runs run in its place of the input order.
	RouteCall(name, route string, args []any, run func() error) error
}

// Recorder is the simulator's recorder as the runner reads it.
type Recorder interface {
	// Seq is the number of inputs logged.
	Seq() int64
	// LegacyRules reports that the input being logged runs under the
	// argument rules of an earlier build.
	LegacyRules() bool
	// ControlID is the next id of a control answer.
	ControlID() string
	// Durable waits until the input that ended at end is durable.
	Durable(end int64) error
}

// Runner is the Host and HTTPHost of the runs of ops over the simulator
// S: it begins their transactions (the state lock, the capture of a
// captured op, the input's for a request logged as one), logs their
// inputs and runs the timers due; the rest is Own's.
type Runner[S any] struct {
	Own[*Exec[S]]
	// Sim is the simulator every run is over.
	Sim S
	// Kernel holds the state lock and the order of inputs.
	Kernel *kernel.Kernel
	// Log logs the Go calls; Rec is the recorder behind it.
	Log CallLog
	Rec Recorder
	// LogInput logs the request r as an input in tx (begun for an input,
	// not yet ordered) and returns where it ends in the log.
	LogInput func(tx *kernel.Tx, r *http.Request) (end int64, err error)
	// NotPersisted and NotDurable are the answers of a request the log
	// did not take or could not make durable.
	NotPersisted, NotDurable func(err error) *api.Error
	// Capture captures the state under its lock, running at under the
	// same hold, and returns the transaction that reads the capture.
	Capture func(at func()) *kernel.Tx
	// Timers run the timers due in a transaction.
	Timers interface{ RunDue(tx *kernel.Tx) }
}

// Tx is the transaction x runs in.
func (h *Runner[S]) Tx(x *Exec[S]) *kernel.Tx { return x.Tx }

// Begin begins the transaction o runs in: the state lock, or for a
// captured op a capture of the state taken under it and read without it.
func (h *Runner[S]) Begin(x *Exec[S], o *Op[*Exec[S]]) {
	if !o.Captured {
		x.Tx = h.Kernel.Begin()
		return
	}
	x.Tx = h.Capture(func() { x.Inputs = h.Rec.Seq() })
}

// Legacy reports a replayed input of an earlier build.
func (h *Runner[S]) Legacy(x *Exec[S]) bool { return x.Legacy }

// LogCall logs a Go control call through the input log and runs it under
// the argument rules of the recording's build.
func (h *Runner[S]) LogCall(x *Exec[S], name string, args []any, run func() error) error {
	return h.Log.GoCall(name, args, func() error {
		x.Legacy = h.Rec.LegacyRules()
		return run()
	})
}

// RunDue runs the timers due now in x's transaction.
func (h *Runner[S]) RunDue(x *Exec[S]) { h.Timers.RunDue(x.Tx) }

// RunDueNow runs the timers due now in a transaction of its own.
func (h *Runner[S]) RunDueNow() {
	tx := h.Kernel.Begin()
	defer tx.End()
	h.Timers.RunDue(tx)
}

// NewRun is a run of an op over HTTP for r.
func (h *Runner[S]) NewRun(r *http.Request) *Exec[S] { return &Exec[S]{Sim: h.Sim, Req: r} }

// RequestID is the id of a control answer.
func (h *Runner[S]) RequestID() string { return h.Rec.ControlID() }

// LogRoute logs a call of the Go method name entered through route and
// runs it under the argument rules of the recording's build.
func (h *Runner[S]) LogRoute(x *Exec[S], name, route string, args []any, run func()) error {
	return h.Log.RouteCall(name, route, args, func() error {
		x.Legacy = h.Rec.LegacyRules()
		run()
		return nil
	})
}

// LogRequest logs x's request as an input in a transaction of its own and
// runs run in it; the refusal of a request not logged or not durable.
func (h *Runner[S]) LogRequest(x *Exec[S], run func()) *api.Error {
	tx := h.Kernel.BeginInput()
	end, err := h.LogInput(tx, x.Req)
	tx.Ordered()
	if err != nil {
		tx.End()
		return h.NotPersisted(err)
	}
	x.Tx, x.Legacy = tx, h.Rec.LegacyRules()
	run()
	tx.End()
	if err := h.Rec.Durable(end); err != nil {
		return h.NotDurable(err)
	}
	return nil
}
