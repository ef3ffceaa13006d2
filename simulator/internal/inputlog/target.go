package inputlog

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// Driver is what a replay drives of the simulator beyond its input log
// (Log.Target): its HTTP handler, its Go control methods, the webhook
// flush's inputs and deliveries, the address it answers with and its
// state's digest.
type Driver interface {
	// Serve runs a recorded request (replay.Target's Serve).
	Serve(h *replay.Hooks, req *http.Request, body io.ReadCloser)
	// Call runs a recorded Go control call through the method it names.
	Call(in *recfile.Input) error
	// FlushDue, Attempt and FlushAbort run the inputs of a webhook flush:
	// picking the due deliveries, the receiver's answer to one attempt,
	// giving the deliveries ids back to pending.
	FlushDue() error
	Attempt(in *recfile.Input) error
	FlushAbort(ids []string) error
	// InFlight are the deliveries a flush left in flight; Kick makes the
	// pending ones due for the next flush.
	InFlight(tx *kernel.Tx) []string
	Kick(tx *kernel.Tx)
	// SetBase makes url the address the simulator answers with, the
	// recorded simulator's ("" after the replay: its own).
	SetBase(url string)
	// Digest is the digest of the state tx reads (legacy: the one
	// recordings of version 1 carry).
	Digest(tx *kernel.Tx, legacy bool) (string, error)
}

// Target is the simulator of l, driven through d, as the replay runner
// drives it (replay.Target).
func (l *Log[C]) Target(d Driver) replay.Target { return &target[C]{l: l, d: d} }

type target[C any] struct {
	l *Log[C]
	d Driver
}

func (t *target[C]) Expect(in *recfile.Input) error { return t.l.Rec.Expect(in) }

func (t *target[C]) Logged(in *recfile.Input, err error) error { return t.l.Rec.Logged(in, err) }

func (t *target[C]) CatchUp(in *recfile.Input) {
	l := t.l
	tx := l.K.Begin()
	l.Rec.SetRunning(in)
	if now := l.Host.Now(); in.Clock.After(now) {
		l.Timers.Advance(tx, in.Clock.Sub(now))
	}
	tx.End()
}

func (t *target[C]) Serve(h *replay.Hooks, req *http.Request, body io.ReadCloser) {
	t.d.Serve(h, req, body)
}

func (t *target[C]) Apply(in *recfile.Input) error {
	switch in.Op {
	case recfile.OpCall:
		return t.d.Call(in)
	case recfile.OpAdvance:
		return t.l.AdvanceTo(in.To)
	case recfile.OpFlushDue:
		return t.d.FlushDue()
	case recfile.OpAttempt:
		return t.d.Attempt(in)
	case recfile.OpFlushAbort:
		return t.d.FlushAbort(in.Deliveries)
	case recfile.OpBase:
		// The recorded simulator's address: answers built from it (links)
		// are the same in the replay.
		t.d.SetBase(in.URL)
		tx, _, err := t.l.LockInput(&recfile.Input{Op: recfile.OpBase, URL: in.URL})
		if err == nil {
			tx.End()
		}
		return err
	case recfile.OpCaps:
		if in.Caps == nil {
			return fmt.Errorf("simulator: replay: input %d: caps without their values", in.Seq)
		}
		return t.l.SetCaps(gateway.StoreCaps(*in.Caps))
	}
	return fmt.Errorf("simulator: replay: input %d: unknown op %q", in.Seq, in.Op)
}

func (t *target[C]) End() {
	t.l.Rec.EndReplay()
	t.d.SetBase("")
}

// Settle sends back to pending the deliveries a flush left in flight.
func (t *target[C]) Settle() {
	tx := t.l.K.BeginInput()
	ids := t.d.InFlight(tx)
	tx.End()
	if len(ids) > 0 {
		_ = t.d.FlushAbort(ids)
	}
	tx = t.l.K.Begin()
	t.d.Kick(tx)
	tx.End()
}

func (t *target[C]) Reach(end time.Time, legacy, digest bool) (string, time.Time, error) {
	l := t.l
	tx := l.K.Begin()
	defer tx.End()
	if now := l.Host.Now(); end.After(now) {
		l.Timers.Advance(tx, end.Sub(now))
	}
	var got string
	if digest {
		var err error
		if got, err = t.d.Digest(tx, legacy); err != nil {
			return "", time.Time{}, err
		}
	}
	return got, l.Host.Now(), nil
}
