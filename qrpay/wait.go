package qrpay

import (
	"context"
	"errors"
	"fmt"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// WaitOption configures WaitForOutcome.
type WaitOption func(*waitConfig)

type waitConfig struct {
	interval, max time.Duration
	factor        float64
	sleep         func(context.Context, time.Duration) error
	call          []mwallet.CallOption
}

// WithPollInterval sets the first wait between two reads (default 2s) and
// the longest one (default 30s); the wait grows by half each time in between.
func WithPollInterval(first, longest time.Duration) WaitOption {
	return func(c *waitConfig) {
		if first > 0 {
			c.interval = first
		}
		if longest > 0 {
			c.max = longest
		}
	}
}

// WithSleep replaces the wait between two reads, which is by default the
// root client's (mwallet.Client.Sleep: its clock, a simulator's in tests).
// sleep must return early with ctx.Err() when ctx ends.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) WaitOption {
	return func(c *waitConfig) {
		if sleep != nil {
			c.sleep = sleep
		}
	}
}

// WithCallOptions passes per-call options to every read of the order.
func WithCallOptions(opts ...mwallet.CallOption) WaitOption {
	return func(c *waitConfig) { c.call = append(c.call, opts...) }
}

// WaitForOutcome polls the order (GET /v1/qrpay/orders/{id}, scope qrpay:write) with a growing
// interval until its status is final (Status.IsFinal: completed, failed,
// refunded, expired or canceled) and returns it. It is a fallback for the
// qrpay.order.* webhooks, which are the primary signal.
//
// When ctx ends first it returns the last order read (possibly nil) and an
// error wrapping ctx.Err(). That is not a failure of the payment: the order
// is still processing, the funds are still held, and the outcome will come.
// Do not unlock, do not declare failure and do not pay again; keep waiting or
// reconcile later.
//
// Reads that fail with a retryable error (api_error, upstream_error,
// upstream_timeout, rate_limited, transport errors) are retried on the next
// tick; other errors (not_found, invalid_token after renewal, ...) end the
// wait. An unknown status is not final: it is returned on ctx end like
// processing, verbatim, for the caller to alert on.
func (c *Client) WaitForOutcome(ctx context.Context, member, orderID string, opts ...WaitOption) (*Order, error) {
	cfg := waitConfig{interval: 2 * time.Second, max: 30 * time.Second, factor: 1.5, sleep: c.caller.Sleep}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.max < cfg.interval {
		cfg.max = cfg.interval
	}
	if _, err := orderPathID(orderID); err != nil {
		return nil, err
	}
	var last *Order
	wait := cfg.interval
	for {
		o, err := c.Order(ctx, member, orderID, cfg.call...)
		switch {
		case err == nil:
			last = o
			if o.Status.IsFinal() {
				return o, nil
			}
		case ctx.Err() != nil:
			return last, fmt.Errorf("qrpay: waiting for order %s: %w", orderID, ctx.Err())
		case !retryable(err):
			return last, err
		}
		if err := cfg.sleep(ctx, wait); err != nil {
			return last, fmt.Errorf("qrpay: waiting for order %s (last status %s): %w", orderID, statusOf(last), err)
		}
		if ctx.Err() != nil {
			return last, fmt.Errorf("qrpay: waiting for order %s (last status %s): %w", orderID, statusOf(last), ctx.Err())
		}
		wait = time.Duration(float64(wait) * cfg.factor)
		if wait > cfg.max {
			wait = cfg.max
		}
	}
}

func statusOf(o *Order) Status {
	if o == nil {
		return "unknown"
	}
	return o.Status
}

func retryable(err error) bool {
	var ae *mwallet.Error
	if errors.As(err, &ae) {
		switch ae.Retry() {
		case mwallet.RetrySameKey, mwallet.RetryAfterWait:
			return true
		}
		return false
	}
	var pe *mwallet.ParamError
	return !errors.As(err, &pe)
}
