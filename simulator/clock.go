package simulator

import (
	"context"
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

// Advance moves the simulator clock forward by d and runs everything that
// falls due on the way (upstream outcomes, webhook retries, expiries), in time
// order.
func (c *Clock) Advance(d time.Duration) {
	c.owner.Advance(d)
}

// Sleep advances the clock by d instead of waiting, and returns ctx.Err()
// (without advancing when ctx has already ended). It makes the Clock an
// mwallet.Clock: Simulator.Client passes it with mwallet.WithClockSource, so
// every wait of the SDK (retry backoff, Retry-After, the token-exchange
// limiter, qrpay.Client.WaitForOutcome) moves simulated time and returns at
// once. Waits of concurrent callers add up.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.Advance(d)
	}
	return ctx.Err()
}

// SleepFunc returns a sleep function for polling helpers such as
// qrpay.WithSleep: instead of waiting d, each call advances the simulator
// clock by d (running whatever falls due, an upstream outcome for
// instance), and once the calls together have advanced it by more than
// limit it returns context.DeadlineExceeded without advancing, as a
// context deadline would. It returns ctx.Err() when ctx has ended. A
// non-positive limit ends the wait at the first call. Use one per wait:
//
//	last, err := client.QRPay.WaitForOutcome(ctx, member, orderID, qrpay.WithSleep(sim.Clock.SleepFunc(2*time.Minute)))
func (c *Clock) SleepFunc(limit time.Duration) func(ctx context.Context, d time.Duration) error {
	var mu sync.Mutex
	var waited time.Duration
	return func(ctx context.Context, d time.Duration) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		mu.Lock()
		if waited+d > limit || limit <= 0 {
			mu.Unlock()
			return context.DeadlineExceeded
		}
		waited += d
		mu.Unlock()
		c.Advance(d)
		return ctx.Err()
	}
}

// clockOps declares the clock's routes and methods, declared with the
// outcome modes' in internal/outcomes. Clock.Advance (and Sleep,
// SleepFunc, which advance) is an input of its own kind, an advance
// (internal/inputlog's Log.Advance), not a call; POST /_sim/clock, which has no Go method
// of its own, is logged as the request and runs the same advance in its
// transaction.
var clockOps = append([]*op{outcomeOps.Clock, outcomeOps.Advance}, outcomeOps.Methods...)
