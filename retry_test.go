package mwallet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func postReq() *Request {
	return &Request{Method: http.MethodPost, Path: "/v1/qrpay/payments", MemberScoped: true, Member: "member-1",
		Body: map[string]string{"code_value": "000201", "preferred_asset": "USDT"}, Idempotent: true}
}

func TestRetry504ThenSuccessReusesKey(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if n == 1 {
			writeTestJSON(w, 504, errBody("upstream_timeout"))
			return
		}
		writeTestJSON(w, 200, map[string]any{"id": "qrp_1"})
	}
	c := f.client()
	resp, err := c.Do(context.Background(), postReq(), nil)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	reqs := f.recorded()
	if len(reqs) != 2 || resp.Attempts != 2 {
		t.Fatalf("requests = %d, attempts = %d; want 2", len(reqs), resp.Attempts)
	}
	a, b := reqs[0].Header, reqs[1].Header
	if k := a.Get("X-Idempotency-Key"); k == "" || k != b.Get("X-Idempotency-Key") || k != resp.IdempotencyKey {
		t.Errorf("keys %q / %q / reported %q: want one key", k, b.Get("X-Idempotency-Key"), resp.IdempotencyKey)
	}
	if a.Get("X-Nonce") == b.Get("X-Nonce") {
		t.Errorf("nonce reused across attempts")
	}
	if a.Get("X-Signature") == b.Get("X-Signature") {
		t.Errorf("signature reused across attempts")
	}
	if string(reqs[0].Body) != string(reqs[1].Body) {
		t.Errorf("body changed between attempts: %s / %s", reqs[0].Body, reqs[1].Body)
	}
}

func TestRetryAPIErrorOnce(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"api_error", "some_future_code"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
				writeTestJSON(w, 500, errBody(code, "request_id", "req_body"))
			}
			c := f.client(WithDefaultMaxAttempts(5))
			var resp *Response
			_, err := c.Do(context.Background(), postReq(), nil, WithResponse(&resp))
			var e *Error
			if !errors.As(err, &e) || string(e.Code) != code {
				t.Fatalf("err = %v, want code %s kept verbatim", err, code)
			}
			if e.RequestID != "req_body" || e.IdempotencyKey == "" || e.IdempotencyKey != resp.IdempotencyKey {
				t.Errorf("error = %+v, response = %+v", e, resp)
			}
			if n := len(f.recorded()); n != 2 {
				t.Errorf("requests = %d, want 2 (one retry)", n)
			}
		})
	}
}

func TestRetryUpstreamErrorUntilAttemptsEnd(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		writeTestJSON(w, 502, errBody("upstream_error"))
	}
	c := f.client(WithDefaultMaxAttempts(4))
	_, err := c.Do(context.Background(), postReq(), nil)
	if CodeOf(err) != CodeUpstreamError || len(f.recorded()) != 4 {
		t.Fatalf("err = %v, requests = %d; want upstream_error after 4", err, len(f.recorded()))
	}
	// A per-call limit overrides the client's.
	f2 := newFakeAPI(t)
	f2.handler = f.handler
	_, _ = f2.client().Do(context.Background(), postReq(), nil, WithMaxAttempts(1))
	if n := len(f2.recorded()); n != 1 {
		t.Errorf("WithMaxAttempts(1): requests = %d", n)
	}
}

func TestNoRetryCodes(t *testing.T) {
	t.Parallel()
	type tc struct {
		code   Code
		status int
	}
	var cases []tc
	for _, code := range KnownCodes() {
		switch code.Retry() {
		case RetryNever, RetryNewKey, RetryAfterStepUp:
			cases = append(cases, tc{code, code.HTTPStatus()})
		}
	}
	cases = append(cases, tc{"some_new_not_found", 404}) // every 404, known or not
	if len(cases) < 40 {
		t.Fatalf("only %d do-not-retry codes", len(cases))
	}
	for _, c := range cases {
		t.Run(string(c.code), func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
				writeTestJSON(w, c.status, errBody(string(c.code)))
			}
			_, err := f.client().Do(context.Background(), postReq(), nil)
			if CodeOf(err) != c.code {
				t.Fatalf("err = %v", err)
			}
			if n := len(f.recorded()); n != 1 {
				t.Errorf("%s sent %d times, want once", c.code, n)
			}
		})
	}
}

func TestRateLimitedHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		header string
		body   map[string]any
	}{
		{"header", "1", errBody("rate_limited")},
		{"body", "", errBody("rate_limited", "retry_after", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
				if n == 1 {
					if tt.header != "" {
						w.Header().Set("Retry-After", tt.header)
					}
					writeTestJSON(w, 429, tt.body)
					return
				}
				writeTestJSON(w, 200, map[string]any{})
			}
			var logs syncBuffer
			c := f.client(WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			resp, err := c.Do(context.Background(), postReq(), nil)
			if err != nil || resp.Attempts != 2 {
				t.Fatalf("err = %v, resp = %+v", err, resp)
			}
			if !strings.Contains(logs.String(), "reason=rate_limited wait=1s") {
				t.Errorf("the retry did not wait Retry-After; log:\n%s", logs.String())
			}
		})
	}
}

func TestRateLimitedWaitBoundedByContextAndMax(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		w.Header().Set("Retry-After", "30")
		writeTestJSON(w, 429, errBody("rate_limited"))
	}
	c := f.client()
	// A deadline 10 s away that never passes: a wait of 30 s does not fit,
	// however slowly the test runs; had the client waited, it would have
	// resent.
	_, err := c.Do(withDeadlineOnly(10*time.Second), postReq(), nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRateLimited || e.RetryDelay != 30*time.Second {
		t.Fatalf("err = %v, want rate_limited with RetryDelay 30", err)
	}
	if len(f.recorded()) != 1 {
		t.Errorf("the call waited and resent (requests %d); a wait past the deadline must end the call at once", len(f.recorded()))
	}
	// Without a deadline, WithMaxRetryAfter bounds the wait.
	c2 := f.client(WithMaxRetryAfter(10 * time.Second))
	if _, err := c2.Do(context.Background(), postReq(), nil); CodeOf(err) != CodeRateLimited || len(f.recorded()) != 2 {
		t.Errorf("err = %v, requests = %d", err, len(f.recorded()))
	}
}

func TestIdempotencyInProgressRetried(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if n == 1 {
			writeTestJSON(w, 409, errBody("idempotency_in_progress"))
			return
		}
		w.Header().Set("X-Idempotent-Replay", "true")
		writeTestJSON(w, 201, map[string]any{})
	}
	var logs syncBuffer
	c := f.client(WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	resp, err := c.Do(context.Background(), postReq(), nil)
	if err != nil || !resp.Replayed || resp.Attempts != 2 {
		t.Fatalf("err = %v, resp = %+v", err, resp)
	}
	if !strings.Contains(logs.String(), "reason=idempotency_in_progress") {
		t.Errorf("log:\n%s", logs.String())
	}
	if w := inProgressWait(200*time.Millisecond, 5*time.Second, 1); w < time.Second || w > 2*time.Second {
		t.Errorf("in-progress wait %v, want 1-2 s", w)
	}
}

func TestContextCancelEndsBackoffWait(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		writeTestJSON(w, 502, errBody("upstream_error"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel the moment the client decides to wait an hour before retrying.
	logger := slog.New(hookHandler{on: func(r slog.Record) {
		if r.Message == "mwallet: retrying" {
			cancel()
		}
	}})
	c := f.client(WithRetryBackoff(time.Hour, time.Hour), WithLogger(logger))
	var resp *Response
	_, err := c.Do(ctx, postReq(), nil, WithResponse(&resp))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUpstreamError || e.IdempotencyKey == "" {
		t.Errorf("the last answer should stay reachable: %v", err)
	}
	if n := len(f.recorded()); n != 1 || resp.Attempts != 1 {
		t.Errorf("requests = %d, attempts = %d; want 1", n, resp.Attempts)
	}
}

// hookHandler calls on for every record.
type hookHandler struct{ on func(slog.Record) }

func (h hookHandler) Enabled(context.Context, slog.Level) bool      { return true }
func (h hookHandler) Handle(_ context.Context, r slog.Record) error { h.on(r); return nil }
func (h hookHandler) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h hookHandler) WithGroup(string) slog.Handler                 { return h }

func TestContextDeadlineDuringAttempt(t *testing.T) {
	t.Parallel()
	testDeadlineDuringAttempt(t, newFakeAPI(t))
}

// testDeadlineDuringAttempt: the call's deadline passes while its attempt
// is with the service (ended by the test once the service has the
// request, not by a timer): the call ends with a *TransportError that
// wraps context.DeadlineExceeded, carries the key and says the outcome is
// unknown, after that one attempt.
func testDeadlineDuringAttempt(t *testing.T, f *fakeAPI) {
	t.Helper()
	ctx := NewEndingCtx()
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		ctx.End(context.DeadlineExceeded) // the deadline passes now
		hang(w, r)
	}
	_, err := f.client().Do(ctx, postReq(), nil)
	var te *TransportError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &te) || te.IdempotencyKey == "" ||
		IdempotencyKeyOf(err) != te.IdempotencyKey || !errors.Is(err, ErrOutcomeUnknown) || te.Attempts != 1 {
		t.Errorf("deadline: err = %#v, want a *TransportError after 1 attempt wrapping DeadlineExceeded, outcome unknown, with the key", err)
	}
	if n := len(f.recorded()); n != 1 {
		t.Errorf("the service got %d requests, want 1", n)
	}
}

// slowAttempt is the attempt timeout of the tests whose first attempt
// hangs until the timeout cuts it. The second attempt must fit in it too,
// a new TLS handshake included, on a loaded machine under -race: so it is
// seconds, not milliseconds, and such a test takes that long.
const slowAttempt = 3 * time.Second

func TestAttemptTimeoutRetries(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if n == 1 {
			hang(w, r) // the first attempt never answers
			return
		}
		writeTestJSON(w, 200, map[string]any{})
	}
	c := f.client(WithDefaultAttemptTimeout(time.Hour))
	resp, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil, WithAttemptTimeout(slowAttempt))
	if err != nil || resp.Attempts != 2 {
		t.Fatalf("err = %v, resp = %+v; want success on the second attempt", err, resp)
	}
}

func TestNetworkErrors(t *testing.T) {
	t.Parallel()
	// dropping closes the connection without an answer.
	dropping := func(f *fakeAPI, times int) {
		f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
			if n <= times {
				drop(w, r, false)
				return
			}
			writeTestJSON(w, 200, map[string]any{})
		}
	}
	t.Run("keyed write retried with the same key", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		dropping(f, 1)
		resp, err := f.client().Do(context.Background(), postReq(), nil)
		if err != nil || resp.Attempts != 2 {
			t.Fatalf("err = %v, resp = %+v", err, resp)
		}
		reqs := f.recorded()
		if reqs[0].Header.Get("X-Idempotency-Key") != reqs[1].Header.Get("X-Idempotency-Key") {
			t.Errorf("key changed")
		}
	})
	t.Run("read retried", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		dropping(f, 2)
		// net/http may itself replay a GET on a fresh connection, so count
		// what the service saw rather than the client's attempts.
		_, err := f.client().Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil)
		if err != nil || len(f.recorded()) != 3 {
			t.Fatalf("err = %v, requests = %d", err, len(f.recorded()))
		}
	})
	t.Run("write without key not resent", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		dropping(f, 1)
		_, err := f.client().Do(context.Background(), &Request{Method: http.MethodPost, Path: "/v1/cards/crd_1/pin"}, nil)
		var te *TransportError
		if !errors.As(err, &te) || te.NotSent || te.Attempts != 1 {
			t.Fatalf("err = %v, want one attempt and a *TransportError", err)
		}
		if len(f.recorded()) != 1 {
			t.Errorf("requests = %d", len(f.recorded()))
		}
	})
	t.Run("connection refused is retried even without key", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		c := f.client()
		// Obtain a token, then point the client at a closed port.
		if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		c.base = "http://" + addr
		_, err = c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "/v1/cards/crd_1/pin"}, nil)
		var te *TransportError
		if !errors.As(err, &te) || !te.NotSent || te.Attempts != DefaultMaxAttempts {
			t.Fatalf("err = %v, want %d attempts, NotSent", err, DefaultMaxAttempts)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("cause %v, want ECONNREFUSED reachable with errors.Is", te.Err)
		}
	})
}

func TestRetryBudget(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	newF := func() *fakeAPI {
		f := newFakeAPI(t)
		f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
			calls.Add(1)
			writeTestJSON(w, 502, errBody("upstream_error"))
		}
		return f
	}
	f := newF()
	c := f.client(WithRetryBudget(10, 5), WithDefaultMaxAttempts(10))
	_, _ = c.Do(context.Background(), postReq(), nil) // two retries empty the bucket
	if n := len(f.recorded()); n != 3 {
		t.Fatalf("first call: requests = %d, want 3", n)
	}
	_, _ = c.Do(context.Background(), postReq(), nil)
	if n := len(f.recorded()); n != 4 {
		t.Fatalf("second call with an empty budget: requests = %d, want 4 (no retry)", n)
	}
	if c.budget.available() != 0 {
		t.Errorf("budget = %d", c.budget.available())
	}
	// Disabled budget: only attempts bound retries.
	f2 := newF()
	c2 := f2.client(WithRetryBudget(0, 0), WithDefaultMaxAttempts(6))
	_, _ = c2.Do(context.Background(), postReq(), nil)
	_, _ = c2.Do(context.Background(), postReq(), nil)
	if n := len(f2.recorded()); n != 12 {
		t.Errorf("disabled budget: requests = %d, want 12", n)
	}
}

func TestRetryBudgetRefills(t *testing.T) {
	t.Parallel()
	b := newRetryBudget(10)
	if !b.take(10) || b.take(1) {
		t.Fatal("take")
	}
	b.give(3)
	b.give(100)
	if b.available() != 10 {
		t.Fatalf("available = %d, want capped at 10", b.available())
	}
	var nilBudget *retryBudget
	if !nilBudget.take(1000) {
		t.Fatal("a disabled budget must allow every retry")
	}
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	for n := 1; n < 70; n++ {
		d := backoff(100*time.Millisecond, 2*time.Second, n)
		if d < 50*time.Millisecond || d > 2*time.Second {
			t.Fatalf("backoff(%d) = %v out of bounds", n, d)
		}
	}
	if d := backoff(0, 0, 3); d != 0 {
		t.Fatalf("zero bounds give %v", d)
	}
}

func TestStepUpResend(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if r.Header.Get("X-Step-Up") != "chl_9" {
			writeTestJSON(w, 400, errBody("step_up_required", "challenge_id", "chl_9", "hosted_url", "https://h.example/chl_9", "expires_at", 1800000300))
			return
		}
		writeTestJSON(w, 201, map[string]any{"id": "qrp_1"})
	}
	c := f.client()
	_, err := c.Do(context.Background(), postReq(), nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeStepUpRequired || e.ChallengeID != "chl_9" || e.HostedURL == "" || !e.ExpiresAt.Equal(time.Unix(1800000300, 0)) {
		t.Fatalf("err = %v", err)
	}
	if len(f.recorded()) != 1 {
		t.Fatalf("step_up_required must not be retried")
	}
	su, ok := AsStepUp(fmt.Errorf("wrapped: %w", err))
	if !ok {
		t.Fatal("AsStepUp did not find the challenge")
	}
	want := StepUp{ChallengeID: "chl_9", HostedURL: "https://h.example/chl_9", ExpiresAt: time.Unix(1800000300, 0).UTC(), IdempotencyKey: e.IdempotencyKey}
	if diff := cmp.Diff(want, *su); diff != "" || su.IdempotencyKey == "" {
		t.Errorf("StepUp (-want +got):\n%s", diff)
	}
	o := applyCallOptions(su.Options())
	if o.idempotencyKey != e.IdempotencyKey || o.stepUp != "chl_9" {
		t.Errorf("options: key %q step-up %q", o.idempotencyKey, o.stepUp)
	}
	resp, err := c.Do(context.Background(), postReq(), nil, su.Options()...)
	if err != nil {
		t.Fatalf("resend: %v", err)
	}
	reqs := f.recorded()
	if resp.IdempotencyKey != e.IdempotencyKey || reqs[1].Header.Get("X-Idempotency-Key") != e.IdempotencyKey || reqs[1].Header.Get("X-Step-Up") != "chl_9" {
		t.Errorf("resend key %q, first key %q", resp.IdempotencyKey, e.IdempotencyKey)
	}
	for _, other := range []error{nil, errors.New("x"), &Error{Code: CodeInvalidFields}, &Error{Code: CodeStepUpRequired}} {
		if su, ok := AsStepUp(other); ok || su != nil {
			t.Errorf("AsStepUp(%v) = %+v, true; want only step_up_required with a challenge", other, su)
		}
	}
}
