package inputlog

import (
	"io"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Reading the log back (Point, Recording), the state the data directory's
// snapshots capture (Source) and closing the store (CloseStore).

// Point takes the log's point with the clock then: with digest, the state
// is captured at that same instant (no input runs meanwhile) and hashed
// once the state lock is released (Host.Digest).
func (l *Log[C]) Point(digest bool) (Point[C], error) {
	var p Point[C]
	at := func(*kernel.Tx) {
		end := l.Host.Now()
		p = l.Rec.Point()
		p.End = end
	}
	if !digest {
		tx := l.K.BeginInput()
		at(tx)
		tx.End()
		return p, nil
	}
	d, err := l.Host.Digest(at)
	if err != nil {
		return p, err
	}
	p.Digest = d
	return p, nil
}

// Recording returns the log's point (Point) and the inputs up to it; full
// is the error of an in-memory log that dropped inputs (Point.Inputs).
func (l *Log[C]) Recording(digest bool, full error) (Point[C], []*recfile.Input, error) {
	p, err := l.Point(digest)
	if err != nil {
		return p, nil, err
	}
	inputs, err := p.Inputs(full)
	return p, inputs, err
}

// Source is the state the data directory's snapshots capture: the state
// of the simulator whose inputs l logs.
func (l *Log[C]) Source() datadir.Source { return snapshotSource[C]{l} }

// snapshotSource is a Log as the data directory's snapshots capture its
// simulator's state.
type snapshotSource[C any] struct{ l *Log[C] }

// Capture captures the state under the state lock, unless a request waits
// in a delay fault (its continuation lives on its goroutine).
func (s snapshotSource[C]) Capture(held func(clock time.Time)) (datadir.Capture, bool) {
	l := s.l
	tx := l.K.BeginCapture(true)
	if l.Rec.Parked() > 0 {
		tx.End()
		return nil, false
	}
	c := l.K.Capture(tx)
	held(c.Now())
	tx.End()
	return stateCapture{c: c, host: l.Host}, true
}

// stateCapture writes a captured state by name (Host.WriteState).
type stateCapture struct {
	c    *kernel.Capture
	host Host
}

func (c stateCapture) Write(w io.Writer) error { return c.host.WriteState(w, c.c) }
func (c stateCapture) Release()                { c.c.Release() }

// CloseStore closes the data directory of the log, if any.
func (l *Log[C]) CloseStore() {
	if l == nil || l.Rec == nil {
		return
	}
	st := l.Rec.Store()
	if st == nil {
		return
	}
	// Advances that ran nothing are not logged; the last clock reading is,
	// so a restart continues from it.
	tx := l.K.BeginInput()
	now := l.Host.Now()
	moved := l.Rec.Behind(now)
	var end int64
	var err error
	if moved {
		end, err = l.Rec.Log(&recfile.Input{Op: recfile.OpAdvance, Clock: now, To: now})
	}
	tx.End()
	if moved && err == nil {
		_ = l.Rec.Durable(end)
	}
	st.Close()
}
