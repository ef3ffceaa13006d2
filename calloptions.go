package mwallet

import (
	"context"
	"net/http"
	"time"
)

// CallOption changes one call. Every method of the product packages takes
// them last: WithIdempotencyKey, WithStepUp, WithMaxAttempts,
// WithAttemptTimeout, WithHeader and WithResponse.
type CallOption func(*callOptions)

// callOptions are the per-call settings gathered from CallOption values.
type callOptions struct {
	idempotencyKey string
	// idempotencyKeySet is true once WithIdempotencyKey was given, so that
	// an empty key is refused rather than silently replaced.
	idempotencyKeySet bool
	stepUp            string
	maxAttempts       int
	attemptTimeout    time.Duration
	header            http.Header
	// onResponse, when set, receives the Response of the call (also on error).
	onResponse func(*Response)
	// refuse, when set, is returned before anything is sent (StepUpResend
	// given an error that is not a step-up challenge).
	refuse error
	// writePending, when set, writes the call's PendingStore record instead
	// of the store's Put (WithPendingWrite).
	writePending func(context.Context, PendingRequest) error
}

// applyCallOptions gathers opts into a callOptions.
func applyCallOptions(opts []CallOption) callOptions {
	var o callOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// deliver hands the Response of a finished call to out (when it embeds Meta
// and the call succeeded) and to WithResponse (always).
func (o *callOptions) deliver(out any, resp *Response, err error) {
	if resp == nil {
		return
	}
	if rs, ok := out.(responseSetter); ok && err == nil {
		rs.setResponse(resp)
	}
	if o.onResponse != nil {
		o.onResponse(resp)
	}
}

// WithIdempotencyKey sets the x-idempotency-key of a creating write instead of
// a generated one. It must be UUID-shaped (8-4-4-4-12 hex); the shape is
// checked before anything is sent, and an empty key (a key your records lost)
// is refused like any other malformed one: a *ParamError with code
// idempotency_key_invalid, never a silently generated key. Reuse the key of a
// failed call to resend it after a timeout or network error.
func WithIdempotencyKey(key string) CallOption {
	return func(o *callOptions) { o.idempotencyKey, o.idempotencyKeySet = key, true }
}

// WithStepUp sets x-step-up to the challenge_id that the end user completed at
// the hosted URL. Resend the same parameters with the same idempotency key
// (StepUp.Options gives both).
func WithStepUp(challengeID string) CallOption {
	return func(o *callOptions) { o.stepUp = challengeID }
}

// WithMaxAttempts overrides the client's attempt limit for one call; 1 means
// no retry.
func WithMaxAttempts(n int) CallOption {
	return func(o *callOptions) { o.maxAttempts = n }
}

// WithAttemptTimeout bounds each HTTP attempt of one call separately from the
// context deadline of the whole call.
func WithAttemptTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.attemptTimeout = d }
}

// WithHeader adds a header to every attempt of one call. Headers the client
// owns (authentication, signing, idempotency, member) are not overridden.
func WithHeader(key, value string) CallOption {
	return func(o *callOptions) {
		if o.header == nil {
			o.header = http.Header{}
		}
		o.header.Add(key, value)
	}
}

// WithResponse stores the Response of the call into *dst, also when it fails.
func WithResponse(dst **Response) CallOption {
	return func(o *callOptions) {
		prev := o.onResponse
		o.onResponse = func(r *Response) {
			if prev != nil {
				prev(r)
			}
			*dst = r
		}
	}
}

// WithPendingWrite makes the call write its PendingStore record with write
// instead of the store's Put: write runs once, before the first attempt,
// and nothing is sent when it fails. Use it to commit the record in the same
// database transaction as your own row, for example the order and the intent
// to pay in one commit (package sqlstore's PendingStore.PutTx):
//
//	client.QRPay.Pay(ctx, member, params, mwallet.WithIdempotencyKey(order.Key),
//		mwallet.WithPendingWrite(func(ctx context.Context, p mwallet.PendingRequest) error {
//			tx, err := db.BeginTx(ctx, nil)
//			... insert the order (keyed by p.Key, so a resend finds it), then
//			if err := store.Pending().PutTx(ctx, tx, p); err != nil { ... }
//			return tx.Commit()
//		}))
//
// write must leave the record readable by the store's List (the same table),
// and be idempotent: a resend of the same call (after step-up, say) writes
// again. The client deletes the record through the store as usual once the
// outcome is decided. The call fails with a *ParamError before anything is
// sent when the client has no PendingStore (WithPendingStore) or the call is
// not recorded (a request without an idempotency key, or one carrying a
// card PIN or CVV).
func WithPendingWrite(write func(ctx context.Context, p PendingRequest) error) CallOption {
	return func(o *callOptions) { o.writePending = write }
}
