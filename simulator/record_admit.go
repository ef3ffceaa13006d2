package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Admission of inputs: where every input enters the log (admit), moving a
// clock that follows the host's first (followHost), and the caps of the
// window stores, a configuration the log carries (setCaps).

// admit logs in, the next input, at its place in the input order, which
// the caller holds with the state lock (tx); in runs at the clock reading
// it carries. Every input enters the log here. On a simulator that follows
// the host's clock (WithWallClock) the clock first moves up to the host's
// time (followHost), so that an input that waited for the lock runs at
// the time it runs, not at the time of the input before it.
func (l *inputLog) admit(tx *kernel.Tx, in *recordedInput) (int64, error) {
	if err := l.followHost(tx, in.Op); err != nil {
		return 0, err
	}
	in.Clock = l.st.clock.Now()
	return l.rec.Log(in)
}

// followHost moves the clock up to the host's time (WithWallClock), unless
// a replay is running (its inputs carry their instants). Timers that fall
// due on the way run first, as a logged advance input, as Clock.Advance
// runs them; a move that runs nothing is not logged (the input's clock
// reading carries it).
func (l *inputLog) followHost(tx *kernel.Tx, op string) error {
	if l.host == nil || op == recfile.OpBase || l.rec.Replaying() {
		return nil
	}
	now := l.st.clock.Now()
	target := l.host().UTC()
	if !target.After(now) {
		return nil
	}
	if l.timers.HasDue(tx, target) {
		if _, err := l.rec.Log(&recordedInput{Op: recfile.OpAdvance, Clock: now, To: target}); err != nil {
			return err
		}
	}
	l.timers.Advance(tx, target.Sub(now))
	return nil
}

// setCaps makes c the caps of the window stores (storeCaps), as an input
// of the log when they change: a replay then refuses what was refused.
func (l *inputLog) setCaps(c storeCaps) error {
	tx := l.k.Begin()
	same := l.st.gw.Caps.Get(tx) == c
	tx.End()
	if same {
		return nil
	}
	logged := recfile.Caps(c)
	tx, end, err := l.lockInput(&recordedInput{Op: recfile.OpCaps, Caps: &logged})
	if err != nil {
		return err
	}
	l.st.gw.Caps.Set(tx, c)
	tx.End()
	return l.rec.Durable(end)
}
