package mwallet

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Observer receives the telemetry of a Client: every logical call and each
// of its HTTP attempts, token exchanges and clock-skew measurements. Install
// one with WithObserver; package mwotel (module
// github.com/mwallet/mwallet-go/otel) adapts it to OpenTelemetry spans and
// metrics.
//
// The client calls the methods synchronously on the calling goroutine, so
// an Observer must be safe for concurrent use and quick. The info values
// are valid only during the call; copy what you keep. They never carry a
// secret: no token, key, signature, nonce, body, PIN, CVV or card number.
//
// Order of the calls for one logical call:
//
//	CallStart
//	  AttemptStart, AttemptEnd    (once per HTTP attempt; 1 when no retry)
//	  ...
//	CallEnd
//
// A call that needs an access token first runs the token exchange as a
// call of its own (Operation "connect.Token", TokenExchange set), nested in
// the context returned by the CallStart that needed it, and then reports
// TokenExchange.
//
// Methods may be added to this interface in minor releases; embed
// NopObserver in your implementation so it keeps compiling.
type Observer interface {
	// CallStart begins a logical call. The returned context is the one the
	// attempts and CallEnd receive (for example carrying a span); return ctx
	// when there is nothing to add (nil is taken as ctx).
	CallStart(ctx context.Context, call *CallInfo) context.Context
	// AttemptStart begins one HTTP attempt, after the token is obtained
	// and the request signed. The returned context is the HTTP request's
	// (nil is taken as ctx).
	AttemptStart(ctx context.Context, call *CallInfo, attempt *AttemptInfo) context.Context
	// AttemptEnd ends the attempt once its answer (or error) is read and
	// the retry decision is made; ctx is the one AttemptStart returned.
	AttemptEnd(ctx context.Context, call *CallInfo, attempt *AttemptInfo)
	// CallEnd ends the logical call; ctx is the one CallStart returned.
	CallEnd(ctx context.Context, call *CallInfo)
	// TokenExchange reports one token exchange (POST /v1/connect/token),
	// also the ones that failed.
	TokenExchange(ctx context.Context, exchange *TokenExchangeInfo)
	// ClockSkew reports the offset of the service's clock from the
	// client's, positive when the service is ahead (Client.ClockSkew): the
	// client calls it each time the offset measured from the Date header of
	// an answer changes, including when it comes back to zero; ctx is the
	// attempt's. Nothing is reported before the first change (the offset
	// starts at zero) or with WithSkewCorrection(false).
	ClockSkew(ctx context.Context, offset time.Duration)
}

// NopObserver is an Observer that does nothing. Embed it in an Observer to
// implement only some methods and to stay compatible when methods are
// added.
type NopObserver struct{}

// CallStart returns ctx.
func (NopObserver) CallStart(ctx context.Context, _ *CallInfo) context.Context { return ctx }

// AttemptStart returns ctx.
func (NopObserver) AttemptStart(ctx context.Context, _ *CallInfo, _ *AttemptInfo) context.Context {
	return ctx
}

// AttemptEnd does nothing.
func (NopObserver) AttemptEnd(context.Context, *CallInfo, *AttemptInfo) {}

// CallEnd does nothing.
func (NopObserver) CallEnd(context.Context, *CallInfo) {}

// TokenExchange does nothing.
func (NopObserver) TokenExchange(context.Context, *TokenExchangeInfo) {}

// ClockSkew does nothing.
func (NopObserver) ClockSkew(context.Context, time.Duration) {}

// WithObserver installs an Observer that receives every call, attempt,
// token exchange and clock-skew measurement of the client (see Observer).
// Without it (or with nil) the client observes nothing and the hot path
// does no extra work or allocation.
func WithObserver(o Observer) Option {
	return func(c *config) { c.observer = o }
}

// CallInfo describes one logical call to an Observer. The fields above
// Duration are set at CallStart; Duration and the fields below it at
// CallEnd.
type CallInfo struct {
	// Operation names the SDK method of the endpoint as package.Method, for
	// example "qrpay.Pay" or "cards.Activate"; "connect.Token" for the token
	// exchange; empty for a path the SDK has no method for (Client.Do).
	Operation string
	// Method is the HTTP method.
	Method string
	// Route is the path template of the endpoint, for example
	// "/v1/qrpay/orders/{id}": identifiers are replaced by {id}. For a path
	// the SDK does not know, segments that look like identifiers (holding
	// a digit, '_', '%', '.', ':' or '@') are replaced.
	Route string
	// URL is the address called: the base URL, the escaped path with its
	// identifiers, and the query. It never carries credentials (the base
	// URL may not hold user information).
	URL string
	// IdempotencyKey is the x-idempotency-key sent on every attempt; empty
	// when the call carries none.
	IdempotencyKey string
	// StepUpChallengeID is the x-step-up sent: the call is the resend after
	// the end user completed a step-up challenge. It lets an Observer match
	// the resend with the step_up_required answer (AttemptInfo.ChallengeID)
	// to measure the step-up wait. Empty otherwise.
	StepUpChallengeID string
	// TokenExchange marks the call that exchanges the credentials for an
	// access token.
	TokenExchange bool
	// Start is when the call began (wall clock).
	Start time.Time

	// Duration is the call's time, attempts, waits between them and the
	// token wait included.
	Duration time.Duration
	// Attempts is the number of HTTP attempts sent (0 when none was).
	Attempts int
	// StatusCode is the HTTP status of the last answer; 0 when none came.
	// A call that failed obtaining its access token (Attempts 0) has the
	// status and code of the token exchange's refusal.
	StatusCode int
	// Code is the service's error code of the last answer; empty on success.
	Code Code
	// RequestID is the X-Request-Id of the last answer.
	RequestID string
	// Replayed reports X-Idempotent-Replay: true on the last answer.
	Replayed bool
	// Err is the error the call returns; nil on success.
	Err error
}

// AttemptInfo describes one HTTP attempt to an Observer. Number and Start
// are set at AttemptStart, the others at AttemptEnd.
type AttemptInfo struct {
	// Number counts the attempts of the call from 1.
	Number int
	// Start is when the attempt was sent (wall clock).
	Start time.Time
	// Duration is from sending to the end of reading the answer.
	Duration time.Duration
	// StatusCode is the HTTP status; 0 when no answer came (Err is set).
	StatusCode int
	// Code is the service's error code of a non-2xx answer.
	Code Code
	// RequestID is the answer's X-Request-Id.
	RequestID string
	// Replayed reports X-Idempotent-Replay: true.
	Replayed bool
	// Err is the network or read error of an attempt without a complete
	// answer, or the *Error of a non-2xx answer; nil on success.
	Err error
	// RetryReason is why another attempt follows ("network error",
	// "upstream_timeout", "api_error", "invalid_token: new access token",
	// ...); empty when this attempt is the last.
	RetryReason string
	// RetryWait is the wait before the next attempt.
	RetryWait time.Duration
	// ChallengeID and ChallengeExpiresAt are the challenge of a
	// step_up_required answer, for matching the resend
	// (CallInfo.StepUpChallengeID).
	ChallengeID        string
	ChallengeExpiresAt time.Time
}

// TokenExchangeInfo describes one token exchange to an Observer.
type TokenExchangeInfo struct {
	// Start is when the exchange began, the wait for the client-side
	// exchange limit included.
	Start time.Time
	// Duration is the exchange's time.
	Duration time.Duration
	// Result is "ok", the service's error code of a refusal (for example
	// "invalid_credentials"), "transport_error" when no answer came, or
	// "error" for the rest: the context ended while waiting for the
	// client-side exchange limit, or the answer was not a usable token.
	Result string
	// Err is the exchange's error; nil when Result is "ok".
	Err error
}

// observedCall is the Observer state of one logical call; nil when no
// Observer is installed.
type observedCall struct {
	obs     Observer
	ctx     context.Context // CallStart's context (with the call's request trace)
	info    CallInfo
	at      AttemptInfo
	atCtx   context.Context
	started bool // an attempt is open
}

// runObserved is run with an Observer installed: CallStart, the attempts,
// CallEnd.
func (c *Client) runObserved(ctx context.Context, sp *callSpec, out any, o callOptions) (*Response, error) {
	oc := &observedCall{obs: c.cfg.observer}
	oc.info = CallInfo{
		Method: sp.method, IdempotencyKey: sp.idemKey, StepUpChallengeID: sp.stepUp,
		TokenExchange: sp.exchange, Start: time.Now(),
	}
	oc.info.Route, oc.info.Operation = routeOf(sp.method, sp.path)
	oc.info.URL = c.base + sp.path
	if sp.query != "" {
		oc.info.URL += "?" + sp.query
	}
	if cctx := oc.obs.CallStart(ctx, &oc.info); cctx != nil {
		ctx = cctx
	}
	resp, err := c.send(ctx, sp, out, o, oc)
	oc.info.Duration = time.Since(oc.info.Start)
	oc.info.Err = err
	if resp != nil {
		oc.info.StatusCode, oc.info.RequestID, oc.info.Replayed = resp.StatusCode, resp.RequestID, resp.Replayed
	}
	var e *Error
	if errors.As(err, &e) {
		oc.info.Code = e.Code
		if oc.info.StatusCode == 0 {
			oc.info.StatusCode = e.HTTPStatus
		}
	}
	oc.obs.CallEnd(ctx, &oc.info)
	return resp, err
}

// startAttempt reports AttemptStart and gives the request the returned
// context.
func (a *attempt) startAttempt(req *http.Request) {
	oc := a.obs
	oc.at = AttemptInfo{Number: a.attempts + 1, Start: time.Now()}
	oc.info.Attempts = oc.at.Number
	oc.atCtx = oc.obs.AttemptStart(oc.ctx, &oc.info, &oc.at)
	if oc.atCtx == nil {
		oc.atCtx = oc.ctx
	}
	oc.started = true
	*req = *req.WithContext(oc.atCtx)
}

// checkObserved is checkRetry followed by AttemptEnd.
func (a *attempt) checkObserved(ctx context.Context, resp *http.Response, err error) (bool, error) {
	retry, cerr := a.checkRetry(ctx, resp, err)
	oc := a.obs
	if !oc.started {
		return retry, cerr
	}
	oc.started = false
	at := &oc.at
	at.Duration = time.Since(at.Start)
	at.StatusCode = a.status
	if a.header != nil {
		at.RequestID = a.header.Get("X-Request-Id")
		at.Replayed = isReplay(a.header)
	}
	switch {
	case a.netErr != nil:
		at.Err = a.netErr
	case a.readErr != nil:
		at.Err = a.readErr
	case a.apiErr != nil:
		at.Err = a.apiErr
		at.Code = a.apiErr.Code
		if at.RequestID == "" {
			at.RequestID = a.apiErr.RequestID
		}
		if a.apiErr.Code == CodeStepUpRequired {
			at.ChallengeID = a.apiErr.ChallengeID
			at.ChallengeExpiresAt = a.apiErr.ExpiresAt
		}
	}
	if retry {
		at.RetryReason, at.RetryWait = a.decision.reason, a.decision.wait
	}
	oc.obs.AttemptEnd(oc.atCtx, &oc.info, at)
	return retry, cerr
}

// observedExchange is auth.exchange, reported to the Observer when one is
// installed.
func (a *auth) observedExchange(ctx context.Context) (cachedToken, error) {
	o := a.c.cfg.observer
	if o == nil {
		return a.exchange(ctx)
	}
	x := TokenExchangeInfo{Start: time.Now()}
	t, err := a.exchange(ctx)
	x.Duration, x.Result, x.Err = time.Since(x.Start), exchangeResult(err), err
	o.TokenExchange(ctx, &x)
	return t, err
}

// exchangeResult names the outcome of a token exchange for
// TokenExchangeInfo.Result.
func exchangeResult(err error) string {
	var e *Error
	var te *TransportError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &e):
		return string(e.Code)
	case errors.As(err, &te):
		return "transport_error"
	}
	return "error"
}
