package mwallet

import "github.com/google/uuid"

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
// carries it: an *Error, a *TransportError, a *ParamError (input refused
// before anything was sent), an *AnswerError (a success whose answer could
// not be read: the write ran), and errors wrapping them. The one exception is the *ParamError of a key
// that is itself refused (idempotency_key_invalid): there is no key.
// When err holds several of them, the outermost one's key is returned.
//
// What to do with it: when errors.Is(err, ErrOutcomeUnknown) the write may
// have executed, whatever the last cause (a timeout, a network error,
// upstream_timeout, a refused token renewal, a disabled Key, rate_limited,
// step-up): resend with WithIdempotencyKey(key) until an answer settles
// it. After a definite failure (an *Error whose Retry is RetryNewKey) fix
// the cause and send with a new key (the same key replays the failure).
// After a *ParamError (errors.Is(err, ErrInvalidParam)) the call sent
// nothing: fix the input and send it with the same key. After an
// *AnswerError (errors.Is(err, ErrAnswerUnreadable)) the write executed:
// never send it with a new key; the same key replays its answer.
func IdempotencyKeyOf(err error) string {
	switch e := err.(type) {
	case nil:
		return ""
	case *TransportError:
		if e.IdempotencyKey != "" {
			return e.IdempotencyKey
		}
	case *Error:
		if e.IdempotencyKey != "" {
			return e.IdempotencyKey
		}
	case *ParamError:
		if e.IdempotencyKey != "" {
			return e.IdempotencyKey
		}
	case *AnswerError:
		if e.IdempotencyKey != "" {
			return e.IdempotencyKey
		}
	case *keyedError:
		return e.key
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return IdempotencyKeyOf(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if k := IdempotencyKeyOf(e); k != "" {
				return k
			}
		}
	}
	return ""
}

// newUUID returns a random (version 4) UUID string.
func newUUID() string { return uuid.NewString() }
