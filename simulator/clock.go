package simulator

import (
	"container/heap"
	"sync"
	"time"
)

// Clock is the simulator's controllable clock. Every window of the contract
// (token expiry, signature tolerance, nonce window, idempotency window, quote
// memo, rate limits, activation lock, webhook retries, upstream outcomes) is
// measured on it. It only moves when told to: Advance moves it forward and runs
// every timer that falls due, in time order.
type Clock struct {
	owner  *inputLog // logs an advance and runs the timers it brings due
	mu     sync.Mutex
	now    time.Time
	timers timerHeap
	seq    int64
}

// timer is an upstream outcome falling due: the success path of the object
// id (timers.fire). It is data, not a closure, so the clock can be persisted.
type timer struct {
	at  time.Time
	seq int64
	id  string
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at.Equal(h[j].at) {
		return h[i].seq < h[j].seq
	}
	return h[i].at.Before(h[j].at)
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
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

// at schedules the outcome of object id for when the clock reaches t. It
// runs from Advance (or from runDue) without the clock's lock held; the
// simulator runs it under its state lock.
func (c *Clock) at(t time.Time, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	heap.Push(&c.timers, &timer{at: t, seq: c.seq, id: id})
}

// hasDue reports whether a timer falls due at or before limit.
func (c *Clock) hasDue(limit time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers) > 0 && !c.timers[0].at.After(limit)
}

// popDue removes and returns the next timer due at or before limit.
func (c *Clock) popDue(limit time.Time) (*timer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 || c.timers[0].at.After(limit) {
		return nil, false
	}
	return heap.Pop(&c.timers).(*timer), true
}

func (c *Clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}

// pending returns the number of timers not yet run.
func (c *Clock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
