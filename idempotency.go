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

// IdempotencyKeyOf returns the idempotency key carried by the call that
// failed with err (an *Error or a *TransportError), or "" when the call had
// none. Resend with WithIdempotencyKey(key) after a timeout, a network error,
// upstream_timeout or step-up; after a definite business failure use a new
// key instead (the same key replays the failure).
func IdempotencyKeyOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.IdempotencyKey != "" {
		return e.IdempotencyKey
	}
	var t *TransportError
	if errors.As(err, &t) {
		return t.IdempotencyKey
	}
	return ""
}

// newUUID returns a random (version 4) UUID string.
func newUUID() string { return uuid.NewString() }
