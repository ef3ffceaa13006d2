package mwallet

import (
	"errors"
	"time"
)

// StepUp is the strong-authentication challenge of a call that the service
// answered with step_up_required (every QR payment, every PIN change, every
// lost-card report). Send the end user to HostedURL; once they completed
// it, resend the same parameters with Options: the same idempotency key and
// x-step-up set to ChallengeID.
//
//	order, err := client.QRPay.Pay(ctx, member, params)
//	if su, ok := mwallet.AsStepUp(err); ok {
//		redirect(su.HostedURL) // and wait until the user is done
//		order, err = client.QRPay.Pay(ctx, member, params, su.Options()...)
//	}
//
// StepUpResend(err) gives the same options in one call.
type StepUp struct {
	// ChallengeID goes into x-step-up on the resend.
	ChallengeID string
	// HostedURL is the screen the end user completes.
	HostedURL string
	// ExpiresAt is when the challenge lapses (five minutes); zero when the
	// answer did not say.
	ExpiresAt time.Time
	// IdempotencyKey is the key of the refused call; the resend must reuse
	// it, or it is a new operation.
	IdempotencyKey string
}

// AsStepUp reports whether err (or an error it wraps) is a step_up_required
// *Error that carries a challenge, and returns the challenge.
func AsStepUp(err error) (*StepUp, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeStepUpRequired || e.ChallengeID == "" {
		return nil, false
	}
	return &StepUp{ChallengeID: e.ChallengeID, HostedURL: e.HostedURL, ExpiresAt: e.ExpiresAt, IdempotencyKey: e.IdempotencyKey}, true
}

// Options returns the call options of the resend, once the end user has
// completed HostedURL: the same idempotency key and x-step-up set to the
// challenge id. Pass them to the same method with the same parameters.
func (s *StepUp) Options() []CallOption {
	var out []CallOption
	if s.IdempotencyKey != "" {
		out = append(out, WithIdempotencyKey(s.IdempotencyKey))
	}
	return append(out, WithStepUp(s.ChallengeID))
}

// StepUpResend returns, in one call, the options that resend a call the
// service answered with step_up_required, once the end user completed the
// hosted screen: su.Options() of AsStepUp(err). Pass them to the same method
// with the same parameters:
//
//	order, err = client.QRPay.Pay(ctx, member, params, mwallet.StepUpResend(err)...)
//
// When err is not a step_up_required *Error with a challenge (nil, another
// code, a transport error), the options make the call fail before anything
// is sent, with a *ParamError (Param "StepUpResend") whose reason quotes
// err: a resend never goes out as a new operation under a fresh
// idempotency key. That *ParamError carries err's key (IdempotencyKeyOf),
// unless WithIdempotencyKey gives another. It does not wrap err, which is
// another call's error: neither err's code nor ErrOutcomeUnknown is
// matched by the refusal, which sent nothing. When err says the earlier
// call's outcome is unknown, the refusal says so too: its
// UnknownOutcomeKey is err's key, to resend that call with (without
// StepUpResend).
func StepUpResend(err error) []CallOption {
	if su, ok := AsStepUp(err); ok {
		return su.Options()
	}
	reason := "the error is nil, not a step_up_required answer"
	if err != nil {
		reason = "the error is not a step_up_required answer with a challenge: " + clip(err.Error(), 200)
	}
	refusal := &ParamError{Param: "StepUpResend", Reason: reason}
	key := IdempotencyKeyOf(err)
	if errors.Is(err, ErrOutcomeUnknown) {
		refusal.UnknownOutcomeKey = key
	}
	return []CallOption{func(o *callOptions) {
		o.refuse = refusal
		if key != "" && !o.idempotencyKeySet {
			o.idempotencyKey, o.idempotencyKeySet = key, true
		}
	}}
}
