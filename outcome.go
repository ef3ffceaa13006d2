package mwallet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// The outcome of a keyed write (a call that carries x-idempotency-key: every
// creating write of the product packages, Client.Resume, and Client.Do with
// Idempotent or WithIdempotencyKey), decided here and nowhere else. The
// service keeps the first result of a key and replays it (Idempotency rules
// 2 to 4 of the specification), but it may refuse a request before it looks
// the key up: a token, signature, scope or rate-limit check, a precheck of
// the endpoint, step-up. So:
//
//   - Once an attempt may have reached the service without a final answer
//     (no answer, a cut answer, a 5xx, idempotency_in_progress), or the call
//     is a Resume of a request an earlier process recorded, only a 2xx or a
//     replayed answer (X-Idempotent-Replay: true) settles it. Whatever else
//     ends the call (later attempts lost or refused, a token renewal refused
//     or hanging, rate_limited, a disabled Key, step_up_required, the context
//     ending, the attempts running out), the outcome is unknown: the error is
//     a *TransportError with NotSent false and the key (ErrOutcomeUnknown),
//     the later cause in its Err, every *Error there marked OutcomeUnknown.
//   - When nothing of the call can have run and it ended without an answer
//     to the write itself (the access token could not be had, the pending
//     store refused the record, the context ended, attempts that were surely
//     not processed), the error is a *TransportError with NotSent true and
//     the key.
//   - When it ended on an answer to the write and nothing else of it can
//     have run, or on a replayed answer, the error is that *Error with the
//     key.
//   - When it ended on a success (a 2xx, or the replay of one) whose answer
//     cannot be read as the method's result, it ran: the error is an
//     *AnswerError with the key (ErrAnswerUnreadable; see answer.go),
//     never a *ParamError nor ErrOutcomeUnknown.
//
//   - When it is stopped before anything is sent (input its method or the
//     client refuses, Request.Invalid included), the error is that
//     *ParamError with the key in its IdempotencyKey (refusedBeforeSend);
//     a Resume of an expired record wraps ErrPendingExpired with the key;
//     a context that ends while the asset catalogue loads gives a
//     *TransportError with NotSent true and the key. Only a key that is
//     itself refused (idempotency_key_invalid) leaves the error without
//     one: there is no key to carry.
//
// Every error such a call returns carries the key (IdempotencyKeyOf).

// ErrOutcomeUnknown matches, with errors.Is, the error of a call whose
// outcome is unknown: a *TransportError with NotSent false. A keyed write
// that returned it may have executed: resend it with the same key
// (IdempotencyKeyOf(err), WithIdempotencyKey) until an answer settles it;
// a new key could execute it twice.
var ErrOutcomeUnknown = errors.New("mwallet: outcome unknown")

// keyedWrite reports whether the call is a keyed write, to which the rule
// applies.
func (s *callSpec) keyedWrite() bool { return s.idemKey != "" && !s.exchange }

// markUncertain records that attempt n (0: an earlier process) may have
// reached the service without a final answer, and why.
func (a *attempt) markUncertain(why string) {
	if !a.uncertain {
		a.uncertain, a.uncertainAt, a.uncertainWhy = true, a.attempts, why
	}
}

// settles reports whether an answer tells a write's outcome whatever came
// before it: a 2xx or a replay. The pending store's rule (pendingRule)
// keeps a record on the same condition.
func settles(status int, replayed bool) bool {
	return status >= 200 && status <= 299 || replayed
}

// lastSettles reports whether the call ended on an answer that settles it.
func (a *attempt) lastSettles() bool {
	if a.prepareErr != nil || a.netErr != nil || a.readErr != nil || a.header == nil {
		return false
	}
	return settles(a.status, isReplay(a.header))
}

// unknown reports whether the outcome of the call is unknown: an attempt
// may have executed it and no answer settled it since.
func (a *attempt) unknown() bool { return a.uncertain && !a.lastSettles() }

// conclude builds the error a keyed write ends with. end is what ended it
// when that is not in the attempt's state: the error of the retry loop
// (nil when the loop ended on an answer), or the pending store's refusal.
func (a *attempt) conclude(ctx context.Context, end error) error {
	unknown := a.unknown()
	onAnswer := end == nil && a.apiErr != nil && a.prepareErr == nil
	if onAnswer && !unknown {
		return a.marked(a.apiErr, false)
	}
	var cause error
	switch {
	case onAnswer:
		cause = a.marked(a.apiErr, true)
	case a.ctxBeforeSend:
		cause = fmt.Errorf("the context ended before attempt %d was sent: %w", a.attempts+1, a.prepareErr)
	case a.prepareErr != nil:
		tok := fmt.Errorf("access token for attempt %d: %w", a.attempts+1, a.marked(a.prepareErr, unknown))
		if a.apiErr != nil && ctx.Err() == nil {
			// The answer that asked for a new token (invalid_token).
			cause = fmt.Errorf("%w (after %w)", tok, a.marked(a.apiErr, unknown))
		} else {
			cause = tok
		}
	case a.attempts == 0:
		// Nothing was attempted: the pending store refused the record.
		cause = end
	default:
		cause = a.marked(a.noAnswer(ctx, end), unknown)
	}
	if cause == nil {
		cause = errors.New("no answer")
	}
	if unknown && (onAnswer || a.prepareErr != nil || a.uncertainAt != a.attempts) {
		cause = &unknownSince{err: cause, at: a.uncertainAt, why: a.uncertainWhy}
	}
	return &TransportError{
		Method: a.spec.method, Path: a.spec.path, Attempts: a.attempts,
		IdempotencyKey: a.spec.idemKey, NotSent: !unknown, Err: cause,
	}
}

// noAnswer is the cause of a call that ended without a usable answer: the
// network or read error of the last attempt, or the context, with the last
// answer when the context ended while waiting to retry after one.
func (a *attempt) noAnswer(ctx context.Context, err error) error {
	cause := err
	switch {
	case a.netErr != nil:
		cause = a.netErr
	case a.readErr != nil:
		cause = a.readErr
	}
	if ctx.Err() != nil && a.apiErr != nil {
		return fmt.Errorf("stopped waiting to retry: %w; last answer: %w", ctx.Err(), a.apiErr)
	}
	if cause == nil {
		cause = errors.New("no answer")
	}
	if ctx.Err() != nil && !errors.Is(cause, ctx.Err()) {
		cause = fmt.Errorf("%w (%w)", ctx.Err(), cause)
	}
	return cause
}

// refusedBeforeSend gives the error of a keyed write stopped before
// anything was sent the write's key: a *ParamError (the first in err's
// chain) is copied with IdempotencyKey set, the original being left alone
// (a StepUpResend refusal is shared by every call given its options); any
// other error is wrapped with the key unless it carries it already.
func refusedBeforeSend(err error, key string) error {
	if key == "" {
		return err
	}
	var p *ParamError
	if !errors.As(err, &p) {
		if IdempotencyKeyOf(err) == key {
			return err
		}
		return &keyedError{key: key, err: err}
	}
	c := *p
	c.IdempotencyKey = key
	if err == error(p) {
		return &c
	}
	return &markedError{first: &c, err: err}
}

// marked returns err with its first *Error (the one errors.As finds) replaced
// by a copy that carries the call's idempotency key and, when unknown,
// OutcomeUnknown. The original is left alone: a token exchange's *Error is
// shared by every call that waited on the exchange.
func (a *attempt) marked(err error, unknown bool) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	c.IdempotencyKey, c.OutcomeUnknown = a.spec.idemKey, unknown
	if err == error(e) {
		return &c
	}
	return &markedError{first: &c, err: err}
}

// markedError is an error chain whose first *Error (or *ParamError) is
// replaced by a marked copy: errors.As finds the copy, errors.Is and the
// text see the chain.
type markedError struct {
	first error
	err   error
}

func (m *markedError) Error() string   { return m.err.Error() }
func (m *markedError) Unwrap() []error { return []error{m.first, m.err} }

// unknownSince adds to the cause of an unknown outcome the attempt that may
// have executed, when the cause is something else.
type unknownSince struct {
	err error
	at  int // the attempt; 0 for an earlier process (Client.Resume)
	why string
}

func (u *unknownSince) Error() string {
	s := u.err.Error() + "; "
	if u.at == 0 {
		return s + "an earlier process may have sent the request (" + u.why + ")"
	}
	return s + "attempt " + strconv.Itoa(u.at) + " may have executed (" + u.why + ")"
}

func (u *unknownSince) Unwrap() error { return u.err }

// keyedError carries the key of a keyed write whose error has no field for
// it (for example a Resume of an expired record: ErrPendingExpired); IdempotencyKeyOf
// reads it.
type keyedError struct {
	key string
	err error
}

func (e *keyedError) Error() string { return e.err.Error() + " (idempotency key " + e.key + ")" }
func (e *keyedError) Unwrap() error { return e.err }
