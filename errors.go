package mwallet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RetryClass is the retry rule that applies to an error code.
type RetryClass int

const (
	// RetryNever: do not retry (request_rejected, insufficient_scope, ip_not_allowed,
	// merchant_disabled, product_not_available, order_not_cancellable,
	// state_invalid and every 404).
	RetryNever RetryClass = iota + 1
	// RetrySameKey: retry with the same idempotency key (api_error,
	// upstream_error, upstream_timeout, idempotency_in_progress, unknown codes).
	// Error.Retry also gives it for any answer that does not settle a write
	// an earlier attempt may have executed (Error.OutcomeUnknown): resend
	// with the same key once the cause is fixed.
	RetrySameKey
	// RetryNewKey: fix the input or the funds, then retry with a new key; the
	// same key replays the failure. Error.Retry also gives it for a replayed
	// failure (Replayed) whose code would say same-key.
	RetryNewKey
	// RetryAfterWait: wait retry_after seconds (rate_limited), then retry.
	RetryAfterWait
	// RetryAfterStepUp: resend the same body and key with x-step-up once the
	// end user completed the hosted screen.
	RetryAfterStepUp
	// RetryNewToken: obtain a fresh access token and retry once.
	RetryNewToken
)

// String names the class.
func (r RetryClass) String() string {
	switch r {
	case RetryNever:
		return "never"
	case RetrySameKey:
		return "same-key"
	case RetryNewKey:
		return "new-key"
	case RetryAfterWait:
		return "after-wait"
	case RetryAfterStepUp:
		return "after-step-up"
	case RetryNewToken:
		return "new-token"
	}
	return fmt.Sprintf("RetryClass(%d)", int(r))
}

// FieldError is one item of the fields array of an invalid_fields error.
type FieldError struct {
	// Key names the refused field.
	Key string `json:"key"`
	// Reason says why; only some endpoints send it.
	Reason string `json:"reason,omitempty"`
}

// Error is an error answered by the service: HTTP status, type, code, message,
// request id and the code-specific extra fields. It never holds credentials.
// Inspect it with errors.As:
//
//	var apiErr *mwallet.Error
//	if errors.As(err, &apiErr) && apiErr.Code == mwallet.CodeStepUpRequired { ... }
type Error struct {
	// HTTPStatus is the status of the response.
	HTTPStatus int `json:"-"`
	// Type is the error type, for example "invalid_request_error".
	Type string `json:"type"`
	// Code is the error code; branch on it. An unknown code is kept verbatim.
	Code Code `json:"code"`
	// Message is English text for people; it may change at any time.
	Message string `json:"message"`
	// RequestID identifies the request for support.
	RequestID string `json:"request_id"`

	// LimitType is "single" or "daily" on limit_exceeded (may be empty).
	LimitType string `json:"limit_type,omitempty"`
	// LimitScope is "merchant" or "member" on limit_exceeded (may be empty).
	LimitScope string `json:"limit_scope,omitempty"`
	// ChallengeID, HostedURL and ExpiresAt come with step_up_required
	// (AsStepUp reads them as a *StepUp). ExpiresAt is zero when the answer
	// did not say; on the wire it is Unix seconds.
	ChallengeID string    `json:"challenge_id,omitempty"`
	HostedURL   string    `json:"hosted_url,omitempty"`
	ExpiresAt   time.Time `json:"expires_at,omitzero"`
	// RetryDelay is the wait on rate_limited, from retry_after (seconds on
	// the wire) or the Retry-After header, rounded up to whole seconds; zero
	// when the answer gave none. Use it as it is: time.Sleep(e.RetryDelay).
	RetryDelay time.Duration `json:"retry_after,omitempty"`
	// Fields lists per-field failures on invalid_fields.
	Fields []FieldError `json:"fields,omitempty"`
	// LockedUntil is the end of a card activation lock (state_invalid); zero
	// when the answer gave none, or a value that is not an RFC 3339 time.
	LockedUntil time.Time `json:"locked_until,omitzero"`

	// IdempotencyKey is the key the failed call carried, so the caller can
	// decide between resending with it and starting over with a new one. It
	// is set on every *Error a keyed write returns, the answer of the token
	// exchange that came before or between its attempts included.
	IdempotencyKey string `json:"-"`
	// Replayed is true when this failure is the stored result of an earlier
	// identical request (X-Idempotent-Replay: true).
	Replayed bool `json:"-"`
	// OutcomeUnknown is true when this answer does not settle a keyed write
	// that an earlier attempt of the same call may have executed (that
	// attempt got no answer, a cut one, a 5xx or idempotency_in_progress):
	// a refusal of a later attempt or of the token renewal between them,
	// given before the service looked up the key (invalid_token,
	// invalid_credentials, rate_limited, step_up_required, a disabled Key,
	// ...), or a fresh answer that is not a replay. The write may have run.
	// The call's error is then a *TransportError (ErrOutcomeUnknown) that
	// wraps this *Error, and Retry says RetrySameKey (RetryAfterStepUp for
	// step_up_required): resend with IdempotencyKey once the cause is
	// fixed, never with a new key.
	OutcomeUnknown bool `json:"-"`
}

// Error formats the code, status, message and request id.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("mwallet: ")
	b.WriteString(string(e.Code))
	fmt.Fprintf(&b, " (HTTP %d)", e.HTTPStatus)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Fields) > 0 {
		b.WriteString(" fields=[")
		for i, f := range e.Fields {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(f.Key)
			if f.Reason != "" {
				b.WriteString(":" + f.Reason)
			}
		}
		b.WriteString("]")
	}
	if e.RequestID != "" {
		b.WriteString(" request_id=")
		b.WriteString(e.RequestID)
	}
	return b.String()
}

// Retry returns the retry rule of the error: its code's (Code.Retry), with
// two exceptions.
//
//   - A replayed failure (Replayed, X-Idempotent-Replay: true) whose code
//     says same-key, such as a 500 api_error that stands for insufficient
//     balance: the same key can only replay that stored answer again, so
//     the rule is RetryNewKey: fix the cause, then send with a new key.
//   - An answer that does not settle a write an earlier attempt may have
//     executed (OutcomeUnknown): RetrySameKey whatever the code (an
//     invalid_credentials, rate_limited or merchant_disabled included), or
//     RetryAfterStepUp for step_up_required, which resends the same key
//     too: a new key could execute the write twice.
func (e *Error) Retry() RetryClass {
	c := e.Code.Retry()
	switch {
	case e.OutcomeUnknown && c == RetryAfterStepUp:
		return c
	case e.OutcomeUnknown:
		return RetrySameKey
	case e.Replayed && c == RetrySameKey:
		return RetryNewKey
	}
	return c
}

// Is makes errors.Is(err, &Error{Code: c}) match any *Error with code c.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code != "" && t.Code == e.Code
}

// ParamError reports input the SDK rejected before sending anything. Its Code
// is the code the service would have answered, when there is one.
//
// The ParamError of a keyed write (every creating write of the product
// packages, Client.Resume, Client.Do with Idempotent or
// WithIdempotencyKey) carries the write's idempotency key in
// IdempotencyKey, as every error of a keyed write does (IdempotencyKeyOf).
// The call sent nothing: fix the input and send it, with that key to keep
// one key per operation.
type ParamError struct {
	// Param names the rejected input.
	Param string
	// Reason says what is wrong with it.
	Reason string
	// Code is the code the service would have answered, or "".
	Code Code
	// Err is the underlying error, when there is one (for example a
	// *money.ParseError); errors.Is and errors.As see it through Unwrap.
	Err error
	// IdempotencyKey is the key of the keyed write that refused the input:
	// the one given with WithIdempotencyKey (for StepUpResend's refusal,
	// the key of the error it was given), or the one drawn for the call.
	// It is empty for a call without a key, for input refused before a
	// call (NewClient, ParseAmount), and when the key itself is refused
	// (Code idempotency_key_invalid). Nothing was sent under it by this
	// call.
	IdempotencyKey string
	// UnknownOutcomeKey is set on the refusal of StepUpResend given the
	// error of an earlier call whose outcome is unknown (errors.Is(err,
	// ErrOutcomeUnknown)) that carries no step-up challenge: it is that
	// call's idempotency key. This call sent nothing, but the earlier one
	// may have executed: resend it with this key and without
	// StepUpResend (WithIdempotencyKey(UnknownOutcomeKey)) until an answer
	// settles it, never with a new key. The refusal itself does not match
	// ErrOutcomeUnknown. Empty otherwise.
	UnknownOutcomeKey string
}

// Error formats the parameter and the reason, and says that nothing was
// sent (and, with UnknownOutcomeKey, that the earlier call's outcome is
// unknown).
func (e *ParamError) Error() string {
	sent := "nothing was sent"
	if e.UnknownOutcomeKey != "" {
		sent += "; the earlier call with idempotency key " + e.UnknownOutcomeKey +
			" may have executed: its outcome is unknown, resend it with that key"
	}
	if e.Code != "" {
		return fmt.Sprintf("mwallet: invalid %s: %s (%s; %s)", e.Param, e.Reason, e.Code, sent)
	}
	return fmt.Sprintf("mwallet: invalid %s: %s (%s)", e.Param, e.Reason, sent)
}

// Is makes errors.Is(err, ErrInvalidParam) match every *ParamError.
func (e *ParamError) Is(target error) bool { return target == ErrInvalidParam }

// Unwrap returns the underlying error, or nil.
func (e *ParamError) Unwrap() error { return e.Err }

// ErrInvalidParam matches every *ParamError with errors.Is.
var ErrInvalidParam = errors.New("mwallet: invalid parameter")

// CodeOf returns the code of an *Error or *ParamError inside err, or "".
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var p *ParamError
	if errors.As(err, &p) {
		return p.Code
	}
	return ""
}

// TransportError reports a call that ended without an answer that settles
// it: no answer after its last attempt (connection refused or reset, a
// timeout, a truncated response or an oversized one that is no success, the
// context ending), the access token it needed could not be had, or, for a
// keyed write an earlier attempt of which may have executed, later answers
// that do not settle it. It wraps the cause, so errors.Is(err, context.DeadlineExceeded)
// works and errors.As finds an *Error among the causes (marked
// OutcomeUnknown when NotSent is false).
//
// The outcome of a write is unknown unless NotSent is true
// (errors.Is(err, ErrOutcomeUnknown)): resend it with the same
// IdempotencyKey (WithIdempotencyKey) to learn it without doing it twice,
// never with a new key. For a keyed write this holds whatever ended the
// call after the attempt that may have executed: a refused or hanging
// token renewal, a disabled Key (invalid_credentials), rate_limited,
// step_up_required, the context, the attempts running out; the cause is
// in Err. With NotSent true nothing of the call can have run: resending
// with the same key, or a new one, executes it once.
type TransportError struct {
	// Method and Path identify the call (the path without its query).
	Method, Path string
	// Attempts is the number of HTTP attempts made; 0 when none left the
	// client (the access token could not be had, the pending store refused
	// the record).
	Attempts int
	// IdempotencyKey is the key the call carried ("" when none).
	IdempotencyKey string
	// NotSent is true when no attempt of the call can have been processed:
	// none left the client, or each one that did was surely not processed
	// (its connection could not be made, an HTTP/2 server refused the
	// stream with REFUSED_STREAM or sent GOAWAY below its stream id, or it
	// was answered a refusal). One attempt that may have reached the
	// service makes it false, whatever the later ones met.
	NotSent bool
	// Err is the cause: what ended the call.
	Err error
}

// Error describes the failure; it names the idempotency key so a log line is
// enough to resend.
func (e *TransportError) Error() string {
	s := "mwallet: " + e.Method + " " + e.Path + ": "
	switch {
	case e.Attempts == 0 && e.NotSent:
		s += "not sent"
	case e.IdempotencyKey != "" && !e.NotSent:
		s += "outcome unknown after " + strconv.Itoa(e.Attempts) + " attempt(s)"
	default:
		var answered *Error
		if errors.As(e.Err, &answered) {
			// An attempt was answered (a 429 the call could not wait for,
			// say): the call stopped, it did not go unanswered.
			s += "stopped after " + strconv.Itoa(e.Attempts) + " attempt(s)"
		} else {
			s += "no answer after " + strconv.Itoa(e.Attempts) + " attempt(s)"
		}
		if e.NotSent {
			s += ", none processed"
		}
	}
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

// Is makes errors.Is(err, ErrOutcomeUnknown) match a TransportError with
// NotSent false.
func (e *TransportError) Is(target error) bool { return target == ErrOutcomeUnknown && !e.NotSent }
