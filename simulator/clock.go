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
// kernel tables of the timers component (outcome.go).
type Clock struct {
	owner *inputLog // logs an advance and runs the timers it brings due
	mu    sync.Mutex
	now   time.Time
}

// timer is an upstream outcome falling due: the success path of the object
// id (timers.fire). It is data, not a closure, so the clock can be persisted.
type timer struct {
	At  time.Time
	Seq int64
	ID  string
}

// timerHeap is the pending timers as a binary heap by (At, Seq), the order
// container/heap keeps them in.
type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].At.Equal(h[j].At) {
		return h[i].Seq < h[j].Seq
	}
	return h[i].At.Before(h[j].At)
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
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
