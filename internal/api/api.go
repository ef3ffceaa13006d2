// Package api is the small interface between the root mwallet.Client and the
// product-line sub-clients (qrpay, cards, remittance, deposits, kyc, webhooks).
//
// Sub-packages describe one endpoint call as a Request and hand it to a Caller;
// the root Client implements Caller and owns tokens, signing, idempotency keys,
// retries and error decoding. Sub-packages never import the root package, which
// imports them.
//
// The root package re-exports the user-facing types declared here (Error, Code,
// Response, CallOption, ParamError) as aliases, so users only ever write
// mwallet.Error, mwallet.CallOption and so on.
package api

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Request describes one endpoint call.
type Request struct {
	// Method is the HTTP method, for example http.MethodPost.
	Method string
	// Path is the escaped path beginning with /v1, for example "/v1/qrpay/payments".
	// Build path segments with url.PathEscape.
	Path string
	// Query is sent as the query string (encoded in sorted key order).
	Query url.Values
	// MemberScoped marks endpoints that need x-on-behalf-of. Member must then
	// be a non-blank identifier; the Caller rejects a blank one with a
	// *ParamError of code member_context_required before sending anything.
	MemberScoped bool
	// Member is the member identifier: an external_member_id or mem_<uuid>.
	Member string
	// Body is JSON-encoded once per logical call (the same bytes are sent and
	// signed on every retry). A json.RawMessage is sent byte for byte. nil
	// sends no body.
	Body any
	// Idempotent marks creating writes that carry x-idempotency-key. The key
	// is generated once per logical call unless the caller supplies one with
	// WithIdempotencyKey, and reused on every retry.
	Idempotent bool
	// Sensitive marks a body that carries secrets (card PIN, CVV). The Caller
	// never copies such a body out of the call (no pending-request record).
	Sensitive bool
	// AcceptedStatus lists extra 2xx statuses the endpoint documents; any 2xx
	// is a success anyway. It exists for documentation only.
	AcceptedStatus []int
}

// Response is the metadata of the HTTP exchange that produced a result.
type Response struct {
	// StatusCode is the HTTP status of the final attempt.
	StatusCode int
	// RequestID is the X-Request-Id of the final attempt; quote it to support.
	RequestID string
	// Replayed is true when the server answered with X-Idempotent-Replay: true,
	// meaning the result is the stored result of an earlier identical request.
	Replayed bool
	// IdempotencyKey is the x-idempotency-key sent (empty when none was needed).
	IdempotencyKey string
	// Attempts is the number of HTTP attempts the call took (1 when no retry).
	Attempts int
	// Header holds the response headers of the final attempt.
	Header http.Header
}

// CallOptions are the per-call settings gathered from CallOption values.
type CallOptions struct {
	IdempotencyKey string
	StepUp         string
	MaxAttempts    int
	AttemptTimeout time.Duration
	Header         http.Header
	// OnResponse, when set, receives the Response of the call (also on error).
	OnResponse func(*Response)
}

// CallOption changes one call. Build them with the With* functions of the
// root package.
type CallOption func(*CallOptions)

// Apply gathers opts into a CallOptions.
func Apply(opts []CallOption) CallOptions {
	var o CallOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// WithIdempotencyKey sets the x-idempotency-key of a creating write. The key
// must be UUID-shaped (8-4-4-4-12 hex); the Caller checks the shape before
// sending.
func WithIdempotencyKey(key string) CallOption {
	return func(o *CallOptions) { o.IdempotencyKey = key }
}

// WithStepUp sets x-step-up to the challenge_id the end user completed.
func WithStepUp(challengeID string) CallOption {
	return func(o *CallOptions) { o.StepUp = challengeID }
}

// WithMaxAttempts overrides the client's attempt limit for one call (1 means
// no retry).
func WithMaxAttempts(n int) CallOption {
	return func(o *CallOptions) { o.MaxAttempts = n }
}

// WithAttemptTimeout bounds each HTTP attempt of one call, separately from the
// context deadline that bounds the whole call.
func WithAttemptTimeout(d time.Duration) CallOption {
	return func(o *CallOptions) { o.AttemptTimeout = d }
}

// WithHeader adds a header to every attempt of one call. Headers the client
// owns (authentication, signing, idempotency, member) cannot be overridden.
func WithHeader(key, value string) CallOption {
	return func(o *CallOptions) {
		if o.Header == nil {
			o.Header = http.Header{}
		}
		o.Header.Add(key, value)
	}
}

// WithResponse stores the Response metadata of the call into *dst, also when
// the call fails.
func WithResponse(dst **Response) CallOption {
	return func(o *CallOptions) {
		prev := o.OnResponse
		o.OnResponse = func(r *Response) {
			if prev != nil {
				prev(r)
			}
			*dst = r
		}
	}
}

// Caller sends one logical call (with its retries) and decodes a 2xx JSON body
// into out (when out is non-nil). Errors from the service are *Error; local
// validation failures are *ParamError; transport failures after the last
// attempt are returned wrapped.
type Caller interface {
	Do(ctx context.Context, req *Request, out any, opts ...CallOption) (*Response, error)
}

// Sleep waits d, or until ctx ends and then returns ctx.Err(). The root
// client waits between token polls with it and sub-packages between status
// polls.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
