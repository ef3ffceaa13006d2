package webhooks

import (
	"context"
	"errors"
)

// Observer receives the result of every webhook verification made with the
// WithObserver option: by Verify, Handler and
// ConstructEvent. Package mwotel (module
// github.com/mwallet/mwallet-go/otel) implements it (a counter of
// verifications by result). It is called synchronously, so it must be safe
// for concurrent use and quick. It never receives the body, the signature
// or a secret.
type Observer interface {
	// WebhookVerification reports one verification and its result.
	WebhookVerification(ctx context.Context, result Result)
}

// WithObserver reports every verification to o. Without it nothing is
// reported and verification allocates nothing more.
func WithObserver(o Observer) Option { return observerOption{o} }

// Result names the outcome of a verification, for telemetry.
type Result string

// The results of a verification: one per sentinel error of Verify.
const (
	ResultVerified            Result = "verified"
	ResultMissingHeader       Result = "missing_header"
	ResultMalformedHeader     Result = "malformed_header"
	ResultSignatureMismatch   Result = "signature_mismatch"
	ResultTimestampOutOfRange Result = "timestamp_out_of_range"
	ResultNoSecret            Result = "no_secret"
	// ResultError is an error that is none of the sentinels.
	ResultError Result = "error"
)

// ResultOf names the result of a verification from its error: nil is
// ResultVerified, a *VerifyError is named by its sentinel.
func ResultOf(err error) Result {
	switch {
	case err == nil:
		return ResultVerified
	case errors.Is(err, ErrMissingHeader):
		return ResultMissingHeader
	case errors.Is(err, ErrMalformedHeader):
		return ResultMalformedHeader
	case errors.Is(err, ErrSignatureMismatch):
		return ResultSignatureMismatch
	case errors.Is(err, ErrTimestampOutOfRange):
		return ResultTimestampOutOfRange
	case errors.Is(err, ErrNoSecret):
		return ResultNoSecret
	}
	return ResultError
}
