package mwallet

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Clock is the time source of a Client: every instant the client reads and
// every wait it makes goes through it. The waits are the backoff between
// attempts, the Retry-After of rate_limited, the 1-2 s after
// idempotency_in_progress, the token-exchange limiter, the polling of a
// token store while another client exchanges, and the polling helpers of
// the product packages (qrpay.Client.WaitForOutcome); token renewal ahead of
// expiry and the pending-request window are decided on Now.
//
// The default is the wall clock (WallClock). A simulator's clock
// (simulator.Clock) is a Clock whose Sleep advances simulated time, so a
// test that meets a Retry-After of 60 s returns at once with the simulator
// 60 s later. Sleep must return ctx.Err() as soon as ctx ends.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits d, or until ctx ends and then returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// WallClock returns the real clock: time.Now and a timer.
func WallClock() Clock { return wallClock{} }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

// nowClock reads its own Now and waits in real time (WithClock).
type nowClock struct{ now func() time.Time }

func (c nowClock) Now() time.Time { return c.now() }

func (nowClock) Sleep(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

// offsetClock is a clock set wrong by a fixed offset (WithClockOffset).
type offsetClock struct {
	base   Clock
	offset time.Duration
}

func (c offsetClock) Now() time.Time { return c.base.Now().Add(c.offset) }

func (c offsetClock) Sleep(ctx context.Context, d time.Duration) error { return c.base.Sleep(ctx, d) }

// WithClockSource sets the client's clock: Now for signing timestamps,
// token expiry and the pending-request window, Sleep for every wait (see
// Clock). simulator.Simulator.Client passes the simulator's clock.
func WithClockSource(c Clock) Option {
	return func(cfg *config) {
		if c != nil {
			cfg.clock = c
		}
	}
}

// WithClockOffset moves the client's clock by d (after WithClock or
// WithClockSource): a host clock that is d ahead (d > 0) or behind. It
// exists to test clock-skew correction against a simulator; a production
// client has no use for it.
func WithClockOffset(d time.Duration) Option {
	return func(cfg *config) { cfg.clockOffset = d }
}

// WithSkewCorrection turns clock-skew correction on (the default) or off.
//
// With it, the client measures the difference between the service's clock
// and its own from the Date header of every answer, against the midpoint of
// the attempt (half-way between sending and receiving, so network time is
// not taken for skew); answers that carry an Age header (a cached Date) are
// ignored. A difference of up to SkewResolution counts as none; a larger
// one is taken as the offset. A later measurement replaces the offset when
// it differs from it by SkewResolution or more, so a clock that was fixed
// brings it back to zero: at once from a large offset, and from one of a
// few seconds only after the clocks have agreed for 5 answers in a row over
// 30 s. A difference that flickers around the Date header's one-second
// resolution (a loaded service whose clock lags by 1 to 3 s reads 0 s to
// 3 s in turn) is therefore taken, logged and reported to the Observer
// once, not on every answer. The offset is added to the client's clock for x-timestamp, for
// token expiry and for the Retry-After dates; a write refused with
// timestamp_out_of_range whose answer changed the offset is sent once more
// at once, with the corrected time, a new nonce and the same idempotency
// key. Client.ClockSkew reads the offset.
//
// The offset is kept per Client and not shared through a TokenStore: it is
// a property of the host's clock, and the instances sharing a store run on
// hosts whose clocks err differently; each measures its own from its first
// answer (the token exchange), before its first signed write.
func WithSkewCorrection(on bool) Option {
	return func(cfg *config) { cfg.skewOff = !on }
}

// SkewResolution is the width of the band a measured clock difference must
// leave before the client acts on it: the Date header counts whole seconds,
// so a difference of up to SkewResolution is within the measurement's error
// (the truncation of the header, the network time around the midpoint, a
// busy service's jitter) and counts as none; the client corrects a
// difference of more than SkewResolution (whole seconds: 3 s or more). It
// is also the smallest change of the measured difference that replaces the
// offset in force.
const SkewResolution = 2 * time.Second

// The clearing of a small offset (skewState.measure): an offset of at most
// skewSmallOffset goes back to zero only after skewClearAnswers answers in
// a row, over at least skewClearAfter on the client's clock, measured the
// clocks agreeing; a larger one at once (a clock that was fixed).
const (
	skewSmallOffset  = 10 * time.Second
	skewClearAnswers = 5
	skewClearAfter   = 30 * time.Second
)

// skewState is the measured offset of the service's clock from the client's.
type skewState struct {
	off  bool
	nano atomic.Int64
	// last is the latest Date header parsed: answers within one second
	// carry the same text, which is then not parsed again.
	last atomic.Pointer[parsedDate]

	// mu guards the offset's changes and the run of agreeing answers that
	// clears a small offset: agree of them, the first answered at since.
	mu    sync.Mutex
	agree int
	since time.Time
}

type parsedDate struct {
	raw string
	t   time.Time
}

func (s *skewState) get() time.Duration { return time.Duration(s.nano.Load()) }

// measure updates the offset from one answer's header, received after an
// attempt sent at sent and answered at recv (both on the client's own,
// uncorrected clock). It reports whether the offset changed.
//
// The report has hysteresis, so that a difference flickering around the
// resolution (a service whose clock lags by 1 to 3 s under load reads 0, 1,
// 2 and 3 s in turn) changes the offset, and logs, once:
//
//   - a difference of more than SkewResolution is taken when it differs
//     from the offset in force by SkewResolution or more (3 s from zero; a
//     real change such as 5 min to 1 h at once);
//   - a difference of exactly SkewResolution changes nothing (the band
//     between taking an offset and clearing it);
//   - a difference under SkewResolution (the clocks agree) clears a large
//     offset at once, and a small one (skewSmallOffset) only after
//     skewClearAnswers such answers in a row over skewClearAfter; any other
//     answer starts the run again.
func (s *skewState) measure(h http.Header, sent, recv time.Time) bool {
	if s.off || h == nil || sent.IsZero() || len(h.Values("Age")) > 0 {
		return false
	}
	v := h.Get("Date")
	if v == "" {
		return false
	}
	var date time.Time
	if p := s.last.Load(); p != nil && p.raw == v {
		date = p.t
	} else {
		t, err := http.ParseTime(v)
		if err != nil {
			return false
		}
		date = t
		s.last.Store(&parsedDate{raw: v, t: t})
	}
	mid := sent.Add(recv.Sub(sent) / 2)
	// Date counts whole seconds: the offset is kept in whole seconds.
	d := date.Sub(mid).Round(time.Second)
	agrees := d > -SkewResolution && d < SkewResolution
	if agrees && s.get() == 0 {
		// The common case: nothing to change, nothing to count.
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.get()
	switch {
	case agrees:
		if cur == 0 {
			return false
		}
		if cur > skewSmallOffset || cur < -skewSmallOffset {
			s.agree = 0
			s.nano.Store(0)
			return true
		}
		if s.agree == 0 {
			s.since = recv
		}
		s.agree++
		if s.agree < skewClearAnswers || recv.Sub(s.since) < skewClearAfter {
			return false
		}
		s.agree = 0
		s.nano.Store(0)
		return true
	case d == SkewResolution || d == -SkewResolution:
		s.agree = 0
		return false
	default:
		s.agree = 0
		if diff := d - cur; diff > -SkewResolution && diff < SkewResolution {
			// The same offset read through a whole-second Date.
			return false
		}
		s.nano.Store(int64(d))
		return true
	}
}

// logSkew reports a new offset: at warn level while the host's clock is
// off, at info level once it agrees with the service's again; and to the
// Observer.
func (a *attempt) logSkew(ctx context.Context) {
	d := a.c.skew.get()
	if o := a.c.cfg.observer; o != nil {
		o.ClockSkew(ctx, d)
	}
	if d == 0 {
		a.c.logger().LogAttrs(ctx, slog.LevelInfo, "mwallet: the clock agrees with the service's again; no correction")
		return
	}
	a.c.logger().LogAttrs(ctx, slog.LevelWarn, "mwallet: the clock differs from the service's Date; signing and token expiry use the corrected time",
		slog.Duration("service_ahead_by", d))
}

// ClockSkew returns the current correction of the client's clock: how far
// the service's clock is ahead of the client's (negative when behind), as
// last measured from a Date header; zero before the first answer, when the
// clocks agree within SkewResolution, or with WithSkewCorrection(false).
func (c *Client) ClockSkew() time.Duration { return c.skew.get() }

// Now returns the client's clock corrected by ClockSkew: the service's time
// as this client estimates it. Pass it to webhooks.WithClock so that
// webhook verification uses the same corrected clock.
func (c *Client) Now() time.Time { return c.clock.Now().Add(c.skew.get()) }

// Sleep waits d on the client's clock (WithClockSource), or until ctx ends
// and then returns ctx.Err(). Polling helpers of the product packages wait
// through it, so they follow a simulator's clock in tests.
func (c *Client) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	return c.clock.Sleep(ctx, d)
}
