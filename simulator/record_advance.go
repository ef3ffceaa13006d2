package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// advance moves the simulator clock forward by d and runs everything that
// falls due on the way (upstream outcomes, webhook retries, expiries), in time
// order.
//
// An advance that runs a timer is a logged input (advance); one that runs
// nothing is not: the clock reading of the next input carries it.
func (l *inputLog) advance(d time.Duration) {
	if d < 0 {
		return
	}
	tx := l.k.BeginInput()
	target := l.st.clock.Now().Add(d)
	if !l.timers.HasDue(tx, target) {
		tx.Ordered()
		l.timers.Advance(tx, d)
		tx.End()
		return
	}
	end, err := l.rec.Log(&recordedInput{Op: recfile.OpAdvance, Clock: l.st.clock.Now(), To: target})
	tx.Ordered()
	if err == nil {
		l.timers.Advance(tx, d)
	}
	tx.End()
	if err == nil {
		_ = l.rec.Durable(end)
	}
}

// advanceTo is the logged advance to target (a replay's): it runs every
// timer falling due on the way.
func (l *inputLog) advanceTo(target time.Time) error {
	tx, end, err := l.lockInput(&recordedInput{Op: recfile.OpAdvance, To: target})
	if err != nil {
		return err
	}
	if now := l.st.clock.Now(); target.After(now) {
		l.timers.Advance(tx, target.Sub(now))
	}
	tx.End()
	return l.rec.Durable(end)
}
