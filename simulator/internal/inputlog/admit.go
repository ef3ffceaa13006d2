package inputlog

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Admission of inputs: where every input enters the log (Admit), moving a
// clock that follows the host's first (followHost), the caps of the
// window stores, a configuration the log carries (SetCaps), and the
// advances of the clock (Advance, AdvanceTo).

// Admit logs in, the next input, at its place in the input order, which
// the caller holds with the state lock (tx); in runs at the clock reading
// it carries. Every input enters the log here. On a simulator that follows
// the host's clock (HostClock) the clock first moves up to the host's
// time (followHost), so that an input that waited for the lock runs at
// the time it runs, not at the time of the input before it.
func (l *Log[C]) Admit(tx *kernel.Tx, in *recfile.Input) (int64, error) {
	if err := l.followHost(tx, in.Op); err != nil {
		return 0, err
	}
	in.Clock = l.Host.Now()
	return l.Rec.Log(in)
}

// followHost moves the clock up to the host's time (HostClock), unless a
// replay is running (its inputs carry their instants). Timers that fall
// due on the way run first, as a logged advance input, as Advance runs
// them; a move that runs nothing is not logged (the input's clock reading
// carries it).
func (l *Log[C]) followHost(tx *kernel.Tx, op string) error {
	if l.HostClock == nil || op == recfile.OpBase || l.Rec.Replaying() {
		return nil
	}
	now := l.Host.Now()
	target := l.HostClock().UTC()
	if !target.After(now) {
		return nil
	}
	if l.Timers.HasDue(tx, target) {
		if _, err := l.Rec.Log(&recfile.Input{Op: recfile.OpAdvance, Clock: now, To: target}); err != nil {
			return err
		}
	}
	l.Timers.Advance(tx, target.Sub(now))
	return nil
}

// SetCaps makes c the caps of the window stores, as an input of the log
// when they change: a replay then refuses what was refused.
func (l *Log[C]) SetCaps(c gateway.StoreCaps) error {
	tx := l.K.Begin()
	same := l.Caps.Get(tx) == c
	tx.End()
	if same {
		return nil
	}
	logged := recfile.Caps(c)
	tx, end, err := l.LockInput(&recfile.Input{Op: recfile.OpCaps, Caps: &logged})
	if err != nil {
		return err
	}
	l.Caps.Set(tx, c)
	tx.End()
	return l.Rec.Durable(end)
}

// Advance moves the simulator clock forward by d and runs everything that
// falls due on the way (upstream outcomes, webhook retries, expiries), in
// time order.
//
// An advance that runs a timer is a logged input (advance); one that runs
// nothing is not: the clock reading of the next input carries it.
func (l *Log[C]) Advance(d time.Duration) {
	if d < 0 {
		return
	}
	tx := l.K.BeginInput()
	target := l.Host.Now().Add(d)
	if !l.Timers.HasDue(tx, target) {
		tx.Ordered()
		l.Timers.Advance(tx, d)
		tx.End()
		return
	}
	end, err := l.Rec.Log(&recfile.Input{Op: recfile.OpAdvance, Clock: l.Host.Now(), To: target})
	tx.Ordered()
	if err == nil {
		l.Timers.Advance(tx, d)
	}
	tx.End()
	if err == nil {
		_ = l.Rec.Durable(end)
	}
}

// AdvanceTo is the logged advance to target (a replay's): it runs every
// timer falling due on the way.
func (l *Log[C]) AdvanceTo(target time.Time) error {
	tx, end, err := l.LockInput(&recfile.Input{Op: recfile.OpAdvance, To: target})
	if err != nil {
		return err
	}
	if now := l.Host.Now(); target.After(now) {
		l.Timers.Advance(tx, target.Sub(now))
	}
	tx.End()
	return l.Rec.Durable(end)
}
