package simulator

import (
	"sync"
	"time"
)

// Clock is the simulator's controllable clock. Every window of the contract
// (token expiry, signature tolerance, nonce window, idempotency window, quote
// memo, rate limits, activation lock, webhook retries, upstream outcomes) is
// measured on it. It only moves when told to: Advance moves it forward and runs
// every timer that falls due, in time order. Its reading is guarded by its
// own lock (clients read it without the state lock); the timers are state,
// kernel tables of the simulator's outcome timers.
type Clock struct {
	owner *inputLog // logs an advance and runs the timers it brings due
	mu    sync.Mutex
	now   time.Time
}

func newClock(start time.Time) *Clock {
	return &Clock{now: start.UTC().Truncate(time.Second)}
}

// Now returns the simulator time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}
