package mwallet

import (
	"errors"

	"github.com/google/uuid"
)

// NewIdempotencyKey returns a new random (version 4) UUID for
// x-idempotency-key. Keep it with the business operation it belongs to, so
// a resend after a timeout or a crash reuses it (WithIdempotencyKey).
func NewIdempotencyKey() string { return newUUID() }

// ValidIdempotencyKey reports whether key has the shape the service checks:
// 8-4-4-4-12 hexadecimal digits (upper or lower case). Only the shape is
// checked, not the UUID version.
func ValidIdempotencyKey(key string) bool {
	if len(key) != 36 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// IdempotencyKeyOf returns the idempotency key of the call that failed with
// err, or "" when the call had none. Every error a keyed write returns
// carries it (an *Error, a *TransportError, a 2xx answer that could not be
// decoded, and errors wrapping them); a *ParamError is input refused before
// anything was sent, which needs no key.
//
// What to do with it: when errors.Is(err, ErrOutcomeUnknown) the write may
// have executed, whatever the last cause (a timeout, a network error,
// upstream_timeout, a refused token renewal, a disabled Key, rate_limited,
// step-up): resend with WithIdempotencyKey(key) until an answer settles
// it. After a definite failure (an *Error whose Retry is RetryNewKey) fix
// the cause and send with a new key (the same key replays the failure).
func IdempotencyKeyOf(err error) string {
	var t *TransportError
	if errors.As(err, &t) && t.IdempotencyKey != "" {
		return t.IdempotencyKey
	}
	var e *Error
	if errors.As(err, &e) && e.IdempotencyKey != "" {
		return e.IdempotencyKey
	}
	var k *keyedError
	if errors.As(err, &k) {
		return k.key
	}
	return ""
}

// newUUID returns a random (version 4) UUID string.
func newUUID() string { return uuid.NewString() }
