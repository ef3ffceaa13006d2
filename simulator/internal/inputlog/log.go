package inputlog

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Host is what a Log needs of the simulator whose inputs it logs: its
// clock, the body of a request as its handler read it, the fault draws of
// a business request, and the state image (the digest of the state at one
// instant, a snapshot's state by name).
type Host interface {
	// Now is the simulator's clock reading.
	Now() time.Time
	// Body records in in what is kept of r's body (read ahead of the
	// handler) and, for a replayed request, its recorded draws.
	Body(r *http.Request, in *recfile.Input)
	// Draws makes the fault draws of r, a business request (nil for a
	// control request).
	Draws(tx *kernel.Tx, r *http.Request) []bool
	// Digest captures the state, running at under the same hold of the
	// lock, and returns its digest, hashed once the lock is released.
	Digest(at func(tx *kernel.Tx)) (string, error)
	// WriteState writes the captured state c by name, releasing c.
	WriteState(w io.Writer, c *kernel.Capture) error
}

// Log is where inputs enter the input log and where the log is read back
// and closed: it logs a request, a Go control call or another input in its
// place in the input order (the kernel's), and takes the log's point with
// the state digest. It holds the kernel, the recorder, the timers an
// advance of the clock brings due, the caps of the window stores and the
// simulator as its Host.
type Log[C any] struct {
	K      *kernel.Kernel
	Rec    *Recorder[C]
	Timers *outcomes.Timers
	// Caps are the caps of the window stores (internal/gateway's
	// State.Caps).
	Caps *kernel.Cell[gateway.StoreCaps]
	// HostClock is the host's clock the simulator's follows
	// (WithWallClock), or nil.
	HostClock func() time.Time
	// Unlogged is the header a request is logged without: it guards the
	// network, not the state (the control token).
	Unlogged string
	Host     Host
}

// LogRequest logs r as an http input. The caller holds the input order
// and the state lock.
func (l *Log[C]) LogRequest(tx *kernel.Tx, r *http.Request) (*recfile.Input, int64, error) {
	in := &recfile.Input{
		Op: recfile.OpHTTP, Method: r.Method, Target: r.RequestURI, Proto: r.Proto,
		Host: r.Host, Remote: r.RemoteAddr, TLS: r.TLS != nil, Header: r.Header,
	}
	if _, ok := r.Header[l.Unlogged]; ok {
		// The control token guards the network, not the state: it is
		// never written to the recording.
		in.Header = r.Header.Clone()
		in.Header.Del(l.Unlogged)
	}
	if in.Target == "" {
		in.Target = r.URL.RequestURI()
	}
	l.Host.Body(r, in)
	if in.Draws == nil {
		in.Draws = l.Host.Draws(tx, r)
	}
	end, err := l.Admit(tx, in)
	if err != nil {
		return nil, 0, err
	}
	return in, end, nil
}

// LockInput begins an input's transaction and logs the input; on error no
// lock is held and the input must not run (the order is released anyway).
func (l *Log[C]) LockInput(in *recfile.Input) (*kernel.Tx, int64, error) {
	tx := l.K.BeginInput()
	end, err := l.Admit(tx, in)
	tx.Ordered()
	if err != nil {
		tx.End()
		return nil, 0, err
	}
	return tx, end, nil
}

// The Go control API: each state-changing method of the control types is
// one logged input, a call: its name ("Cards.Ship") and its arguments
// (JSON values, each of which must survive a JSON round trip), logged by
// the control runner. When the data directory cannot take the input it
// does not run, and every method returns the error (a *CallError, which
// the control API answers service_unavailable): none is refused in
// silence.

// GoCall logs a Go control call and runs it, holding the input order
// throughout (fn begins its own transaction).
func (l *Log[C]) GoCall(name string, args []any, fn func() error) error {
	return l.RouteCall(name, "", args, fn)
}

// RouteCall logs a call of the Go control method name entered through the
// control route route ("" for the Go method itself) and runs fn as GoCall
// does.
func (l *Log[C]) RouteCall(name, route string, args []any, fn func() error) error {
	in := &recfile.Input{Op: recfile.OpCall, Call: name, Route: route}
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("simulator: %s: argument %d: %w", name, i, err)
		}
		in.Args = append(in.Args, b)
	}
	release := l.K.BeginOrdered()
	tx := l.K.Begin()
	end, err := l.Admit(tx, in)
	tx.End()
	if err != nil {
		release()
		return &CallError{Call: name, Err: err}
	}
	ferr := fn()
	release()
	if err := l.Rec.Durable(end); err != nil {
		return &CallError{Call: name, Ran: true, Err: err}
	}
	return ferr
}
