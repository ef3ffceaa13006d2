package mwallet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The retry rules (Errors, Retry rules of the specification), applied by
// attempt.checkRetry after every attempt:
//
//   - api_error and unknown codes: one retry with the same idempotency key,
//     then the error is returned; none when the answer is already a replay
//     of a stored failure (Error.Retry says new key).
//   - timestamp_out_of_range whose answer corrected the clock (skew): one
//     resend at once with the corrected time (not counted as an attempt).
//   - upstream_error, upstream_timeout: retried with the same key while
//     attempts last.
//   - idempotency_in_progress: wait 1 to 2 seconds, then back off.
//   - rate_limited: wait Retry-After (or retry_after); a wait longer than the
//     client's maximum or than the context's deadline ends the call at once.
//   - invalid_token: the cached token is dropped, a fresh one is exchanged and
//     the call is sent once more (not counted as an attempt).
//   - every 404, step_up_required, the do-not-retry codes and every other
//     code: returned at once.
//   - network errors (connection refused or reset, EOF, timeouts, HTTP/2
//     stream resets and GOAWAY): reads and keyed writes are retried; a write
//     without an idempotency key only when the request surely was not
//     processed: the connection was never made, or an HTTP/2 server refused
//     the stream (REFUSED_STREAM) or sent GOAWAY below its stream id
//     (classifyHTTP2).
//
// Each retry takes from the client's retry budget; waits end when the
// context ends.

// retryBudget is a token bucket shared by all calls of one Client. A nil
// budget allows every retry.
type retryBudget struct {
	mu       sync.Mutex
	tokens   int
	capacity int
}

func newRetryBudget(capacity int) *retryBudget {
	if capacity <= 0 {
		return nil
	}
	return &retryBudget{tokens: capacity, capacity: capacity}
}

// take removes n tokens if there are that many.
func (b *retryBudget) take(n int) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}

// give returns n tokens, up to the capacity.
func (b *retryBudget) give(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.tokens = min(b.capacity, b.tokens+n)
	b.mu.Unlock()
}

// available reports the tokens left (for tests and logs).
func (b *retryBudget) available() int {
	if b == nil {
		return -1
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.tokens
}

// backoff returns the wait before retry number n (1-based): exponential from
// min, capped at max, with equal jitter (half fixed, half random).
func backoff(minD, maxD time.Duration, n int) time.Duration {
	if maxD <= 0 {
		return 0
	}
	d := minD
	for i := 1; i < n && d < maxD; i++ {
		d *= 2
	}
	if d > maxD || d <= 0 {
		d = maxD
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// inProgressWait is the wait after idempotency_in_progress: 1 to 2 seconds,
// growing like backoff afterwards, capped at max.
func inProgressWait(minD, maxD time.Duration, n int) time.Duration {
	d := time.Second + rand.N(time.Second+1)
	if b := backoff(minD, maxD, n); b > d {
		d = b
	}
	return min(d, maxD)
}

// netClass classifies a transport error.
type netClass int

const (
	netFatal     netClass = iota // not a transient network failure
	netNotSent                   // nothing was processed: the connection was never made, or HTTP/2 says so
	netMaybeSent                 // the request may have reached the service
)

// String names the class in logs and tests.
func (c netClass) String() string {
	switch c {
	case netNotSent:
		return "not sent"
	case netMaybeSent:
		return "maybe sent"
	}
	return "fatal"
}

func classifyNetErr(err error) netClass {
	if err == nil || errors.Is(err, context.Canceled) {
		return netFatal
	}
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var recErr tls.RecordHeaderError
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) ||
		errors.As(err, &invalidCert) || errors.As(err, &recErr) {
		return netFatal
	}
	if class, ok := classifyHTTP2(err); ok {
		return class
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.As(err, &dnsErr) || errors.Is(err, syscall.ECONNREFUSED) ||
		(errors.As(err, &opErr) && opErr.Op == "dial") {
		return netNotSent
	}
	var ne net.Error
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &opErr) || (errors.As(err, &ne) && ne.Timeout()) {
		return netMaybeSent
	}
	return netFatal
}

// h2RefusedStream is the HTTP/2 error code REFUSED_STREAM (RFC 9113
// section 7).
const h2RefusedStream = 0x7

// h2StreamError has the shape of the StreamError of net/http's bundled
// HTTP/2 client (and of golang.org/x/net/http2's). That type is unexported,
// but it has an As method that copies its fields into any struct with the
// same field names and convertible types, so errors.As fills this one.
type h2StreamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

func (e h2StreamError) Error() string {
	return "http2 stream " + strconv.FormatUint(uint64(e.StreamID), 10) + " reset, code " + strconv.FormatUint(uint64(e.Code), 10)
}

// h2CannotRetry starts the text of net/http's error for a request it would
// have sent again itself (refused stream, GOAWAY) had it been allowed to
// rewind the body: the client never lets it for a signed request, so that
// every resend gets a new nonce and is counted. The cause is kept as text
// only, between the brackets.
const h2CannotRetry = "http2: Transport: cannot retry err ["

// h2NotProcessed are the texts of net/http's HTTP/2 errors that guarantee
// the request was not processed. The first four are causes net/http itself
// resends on: a refused stream (RFC 9113 section 8.7), a GOAWAY whose last
// stream id is below the request's (section 6.8; the second form is the
// first request of a connection), and a connection that was not usable
// before the request was written.
var h2NotProcessed = []string{
	"; REFUSED_STREAM",
	"http2: Transport received Server's graceful shutdown GOAWAY",
	"http2: Transport received GOAWAY from server ErrCode:",
	"http2: client conn not usable",
	"http2: client conn could not be established",
}

// classifyHTTP2 classifies the errors of an HTTP/2 client by what they
// guarantee; ok is false for an error that is not one of them.
//
//   - A stream reset with REFUSED_STREAM, a GOAWAY below the stream's id,
//     a connection unusable before the request was written: not processed,
//     safe to send again even without an idempotency key (netNotSent).
//   - A stream reset with any other code (INTERNAL_ERROR, CANCEL,
//     PROTOCOL_ERROR, ...), a GOAWAY at or above the stream's id followed by
//     the connection's end, a connection error, any other HTTP/2 transport
//     error: the request was sent and may have been processed; send it
//     again only with the same key (netMaybeSent).
//
// The stream error is read with errors.As (h2StreamError); the others are
// only text in net/http (Go 1.24 to 1.26), matched on its innermost error.
func classifyHTTP2(err error) (netClass, bool) {
	var se h2StreamError
	if errors.As(err, &se) {
		if se.Code == h2RefusedStream {
			return netNotSent, true
		}
		return netMaybeSent, true
	}
	msg := innermost(err).Error()
	if !strings.HasPrefix(msg, "http2: ") && !strings.HasPrefix(msg, "connection error: ") {
		return 0, false
	}
	if rest, ok := strings.CutPrefix(msg, h2CannotRetry); ok {
		msg, _, _ = strings.Cut(rest, "] after Request.Body was written")
	}
	for _, s := range h2NotProcessed {
		if strings.Contains(msg, s) {
			return netNotSent, true
		}
	}
	return netMaybeSent, true
}

// innermost returns the end of err's chain of single wrappers.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// retryDecision is the outcome of checkRetry, recorded for the backoff hook.
type retryDecision struct {
	wait   time.Duration
	reason string
}

// checkRetry is the retryablehttp CheckRetry hook: it reads and keeps the
// body of every response (bounded), decodes errors and applies the rules.
func (a *attempt) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	a.attempts++
	a.status, a.header, a.body, a.apiErr, a.netErr, a.readErr, a.bodyErr = 0, nil, nil, nil, nil, nil, nil
	a.decision = retryDecision{}
	if resp != nil && a.c.skew.measure(resp.Header, a.sentAt, a.c.clock.Now()) {
		a.logSkew(ctx)
	}
	if err != nil {
		a.netErr = err
		if classifyNetErr(err) != netNotSent {
			a.markUncertain("no answer: " + innermost(err).Error())
		}
		a.log(ctx)
		if ctx.Err() != nil {
			return false, nil
		}
		class := classifyNetErr(err)
		if class == netFatal || (class == netMaybeSent && !a.spec.safeToResend()) {
			return false, nil
		}
		return a.allow(ctx, backoff(a.c.cfg.minBackoff, a.c.cfg.maxBackoff, a.retries+1), 2*a.c.cfg.budgetCost, "network error")
	}
	a.status, a.header = resp.StatusCode, resp.Header
	body, rerr := readBody(resp.Body, MaxResponseBytes, resp.ContentLength)
	_ = resp.Body.Close()
	resp.Body = http.NoBody
	a.body = body
	if rerr != nil && errors.Is(rerr, errBodyTooLarge) && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		// A success whose body is too large to read: the call ran, and
		// its answer cannot be read (an *AnswerError).
		a.bodyErr, rerr = rerr, nil
	}
	if rerr != nil {
		a.readErr = rerr
		a.markUncertain("the answer was cut: " + innermost(rerr).Error())
		a.log(ctx)
		if ctx.Err() != nil || errors.Is(rerr, errBodyTooLarge) || !a.spec.safeToResend() || classifyNetErr(rerr) == netFatal {
			return false, nil
		}
		return a.allow(ctx, backoff(a.c.cfg.minBackoff, a.c.cfg.maxBackoff, a.retries+1), 2*a.c.cfg.budgetCost, "truncated response")
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		a.log(ctx)
		if a.spent > 0 {
			a.c.budget.give(a.spent)
		} else {
			a.c.budget.give(1)
		}
		return false, nil
	}
	e := decodeError(resp.StatusCode, resp.Header, body, a.c.Now())
	e.IdempotencyKey = a.spec.idemKey
	a.apiErr = e
	if !e.Replayed && (resp.StatusCode >= 500 || e.Code == CodeIdempotencyInProgress) {
		a.markUncertain("answered " + string(e.Code) + " (HTTP " + strconv.Itoa(resp.StatusCode) + ")")
	}
	a.log(ctx)
	if ctx.Err() != nil {
		return false, nil
	}
	if e.Code == CodeInvalidToken && !a.spec.exchange && !a.reauthed {
		a.reauthed = true
		a.c.auth.invalidate(ctx, a.tokenValue)
		a.decision = retryDecision{reason: "invalid_token: new access token"}
		a.logRetry(ctx)
		return true, nil
	}
	if e.Code == CodeTimestampOutOfRange && !a.skewRetried && a.spec.signed() && a.c.skew.get() != a.sentSkew {
		// This answer corrected the clock: send once more at once, with
		// the corrected time and a new nonce (not counted as an attempt).
		a.skewRetried = true
		a.decision = retryDecision{reason: "timestamp_out_of_range: clock corrected by " + a.c.skew.get().String()}
		a.logRetry(ctx)
		return true, nil
	}
	if resp.StatusCode == http.StatusNotFound {
		return false, nil
	}
	n := a.retries + 1
	cost := a.c.cfg.budgetCost
	switch e.Retry() {
	case RetrySameKey:
		switch {
		case e.Code == CodeIdempotencyInProgress:
			return a.allow(ctx, inProgressWait(a.c.cfg.minBackoff, a.c.cfg.maxBackoff, n), cost, string(e.Code))
		case e.Code == CodeUpstreamError || e.Code == CodeUpstreamTimeout:
			return a.allow(ctx, backoff(a.c.cfg.minBackoff, a.c.cfg.maxBackoff, n), cost, string(e.Code))
		default: // api_error and unknown codes: once
			if a.apiErrorRetried {
				return false, nil
			}
			a.apiErrorRetried = true
			return a.allow(ctx, backoff(a.c.cfg.minBackoff, a.c.cfg.maxBackoff, n), cost, string(e.Code))
		}
	case RetryAfterWait:
		wait := e.RetryDelay
		if wait <= 0 {
			wait = backoff(a.c.cfg.minBackoff, a.c.cfg.maxBackoff, n)
		}
		if wait > a.c.cfg.maxRetryAfter {
			return false, nil
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			return false, nil
		}
		return a.allow(ctx, wait, cost, string(e.Code))
	}
	return false, nil
}

// allow grants a retry if attempts and the budget permit it.
func (a *attempt) allow(ctx context.Context, wait time.Duration, cost int, reason string) (bool, error) {
	if a.attempts-a.reauthAttempts() >= a.maxAttempts {
		return false, nil
	}
	if !a.c.budget.take(cost) {
		a.c.logger().LogAttrs(ctx, slog.LevelDebug, "mwallet: retry budget exhausted; not retrying",
			slog.String("method", a.spec.method), slog.String("path", a.spec.path), slog.String("reason", reason))
		return false, nil
	}
	a.spent += cost
	a.retries++
	a.decision = retryDecision{wait: wait, reason: reason}
	a.logRetry(ctx)
	return true, nil
}

// reauthAttempts counts the attempts not charged to the maximum: the
// resend after invalid_token and the one after a corrected clock.
func (a *attempt) reauthAttempts() int {
	n := 0
	if a.reauthed {
		n++
	}
	if a.skewRetried {
		n++
	}
	return n
}

// backoffHook is the retryablehttp Backoff hook. retryablehttp would wait on
// a real timer; the client waits in prepareRetry on its own clock instead,
// so the hook asks for no wait.
func (a *attempt) backoffHook(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return 0
}

// prepareRetry is the retryablehttp PrepareRetry hook: the wait checkRetry
// chose, on the client's clock (ended by the context), then a fresh token
// when needed, a new timestamp, nonce and signature, the same idempotency
// key.
func (a *attempt) prepareRetry(req *http.Request) error {
	if err := a.c.Sleep(a.ctx, a.decision.wait); err != nil {
		return err
	}
	req.Header = req.Header.Clone()
	return a.prepare(req)
}

// errorHandler is the retryablehttp ErrorHandler hook: pass the last
// response and error through untouched, so Client.run reports them.
func (a *attempt) errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}
