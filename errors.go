package mwallet

import (
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/internal/api"
)

// Error is an error answered by the service: HTTP status, type, code, message,
// request id and the code-specific extra fields. Inspect it with errors.As:
//
//	var apiErr *mwallet.Error
//	if errors.As(err, &apiErr) && apiErr.Code == mwallet.CodeStepUpRequired { ... }
type Error = api.Error

// Code is a public error code such as "step_up_required". Unknown codes are
// kept verbatim and handled as CodeAPIError.
type Code = api.Code

// FieldError is one item of the fields array of an invalid_fields error.
type FieldError = api.FieldError

// ParamError reports input the SDK rejected before sending anything. Its Code
// is the code the service would have answered, when there is one.
type ParamError = api.ParamError

// RetryClass is what the spec's retry rules say about an error code.
type RetryClass = api.RetryClass

// Retry classes; see Code.Retry.
const (
	RetryNever       = api.RetryNever
	RetrySameKey     = api.RetrySameKey
	RetryNewKey      = api.RetryNewKey
	RetryAfterWait   = api.RetryAfterWait
	RetryAfterStepUp = api.RetryAfterStepUp
	RetryNewToken    = api.RetryNewToken
)

// ErrInvalidParam matches every *ParamError with errors.Is.
var ErrInvalidParam = api.ErrInvalidParam

// CodeOf returns the code of the *Error or *ParamError inside err, or "".
func CodeOf(err error) Code { return api.CodeOf(err) }

// Response is the metadata of the HTTP exchange behind a result: status,
// request id, replay flag, idempotency key and attempts.
type Response = api.Response

// CallOption changes one call; see WithIdempotencyKey, WithStepUp,
// WithMaxAttempts, WithAttemptTimeout, WithHeader and WithResponse.
type CallOption = api.CallOption

// WithIdempotencyKey sets the x-idempotency-key of a creating write instead of
// a generated one. It must be UUID-shaped (8-4-4-4-12 hex). Reuse the key of a
// failed call to resend it after a timeout or network error.
func WithIdempotencyKey(key string) CallOption { return api.WithIdempotencyKey(key) }

// WithStepUp sets x-step-up to the challenge_id that the end user completed at
// the hosted URL. Resend the same parameters with the same idempotency key.
func WithStepUp(challengeID string) CallOption { return api.WithStepUp(challengeID) }

// WithMaxAttempts overrides the client's attempt limit for one call; 1 means
// no retry.
func WithMaxAttempts(n int) CallOption { return api.WithMaxAttempts(n) }

// WithAttemptTimeout bounds each HTTP attempt of one call separately from the
// context deadline of the whole call.
func WithAttemptTimeout(d time.Duration) CallOption { return api.WithAttemptTimeout(d) }

// WithHeader adds a header to every attempt of one call. Headers the client
// owns (authentication, signing, idempotency, member) are not overridden.
func WithHeader(key, value string) CallOption { return api.WithHeader(key, value) }

// WithResponse stores the Response of the call into *dst, also when it fails.
func WithResponse(dst **Response) CallOption { return api.WithResponse(dst) }

// TransportError reports a call that ended without an answer from the
// service after its last attempt: connection refused or reset, a timeout, a
// truncated or oversized response, or the context ending. It wraps the
// cause, so errors.Is(err, context.DeadlineExceeded) works.
//
// The outcome of a write is unknown unless NotSent is true: resend it with
// the same IdempotencyKey (WithIdempotencyKey) to learn it without doing it
// twice.
type TransportError struct {
	// Method and Path identify the call (the path without its query).
	Method, Path string
	// Attempts is the number of HTTP attempts made.
	Attempts int
	// IdempotencyKey is the key the call carried ("" when none).
	IdempotencyKey string
	// NotSent is true when the last attempt surely never reached the service
	// (the connection could not be made).
	NotSent bool
	// Err is the cause.
	Err error
}

// Error describes the failure; it names the idempotency key so a log line is
// enough to resend.
func (e *TransportError) Error() string {
	s := "mwallet: " + e.Method + " " + e.Path + ": no answer after " + strconv.Itoa(e.Attempts) + " attempt(s)"
	if e.IdempotencyKey != "" {
		s += " (idempotency key " + e.IdempotencyKey + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }
