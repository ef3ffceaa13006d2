package mwallet

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// transportRules are the rows of the transport matrix: each rule of the
// client's transport, run against a fake service reached over each of
// protocols (HTTP/1.1, HTTP/1.1 with TLS, HTTP/2 with TLS). A drop is what
// the simulator's faults do on that protocol: over HTTP/1.1 the connection
// closes; over HTTP/2 the stream is reset, with REFUSED_STREAM when the
// request was not processed and INTERNAL_ERROR when it may have been.
var transportRules = []struct {
	name string
	run  func(t *testing.T, p protocol)
}{
	{"retry class of every code", matrixRetryClasses},
	{"network failures", matrixNetworkFailures},
	{"one key, new nonce, same body per attempt", matrixAttemptIdentity},
	{"attempt timeout", matrixAttemptTimeout},
	{"context ends the call", matrixContext},
	{"retry budget", matrixRetryBudget},
	{"connection reuse", matrixConnectionReuse},
	{"invalid_token re-authenticates once", matrixReauth},
	{"pending request records", matrixPending},
}

// TestTransportMatrix runs every transport rule over every protocol: 9
// rules x 3 protocols, each cell its own fake service.
func TestTransportMatrix(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			for _, rule := range transportRules {
				t.Run(rule.name, func(t *testing.T) {
					t.Parallel()
					rule.run(t, p)
				})
			}
		})
	}
}

// matrixRetryClasses: each of the 53 codes (and an unknown one) answered
// once, then success: the codes whose class retries are sent twice and
// succeed, the others are sent once and returned.
func matrixRetryClasses(t *testing.T, p protocol) {
	codes := append(KnownCodes(), "some_future_code")
	for _, code := range codes {
		t.Run(string(code), func(t *testing.T) {
			t.Parallel()
			status := code.HTTPStatus()
			if status == 0 {
				status = 500
			}
			f := newFakeAPIOver(t, p)
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
				if n == 1 {
					writeTestJSON(w, status, errBody(string(code)))
					return
				}
				writeTestJSON(w, 201, map[string]any{"id": "qrp_1"})
			}
			resp, err := f.client().Do(context.Background(), postReq(), nil)
			want := 1
			if status != http.StatusNotFound {
				switch code.Retry() {
				case RetrySameKey, RetryAfterWait, RetryNewToken:
					want = 2
				}
			}
			reqs := f.recorded()
			if len(reqs) != want {
				t.Fatalf("%s (%s): sent %d times, want %d (err %v)", code, code.Retry(), len(reqs), want, err)
			}
			if want == 2 && (err != nil || resp.Attempts != 2) {
				t.Errorf("err = %v, resp = %+v; want success on the second attempt", err, resp)
			}
			if want == 1 && CodeOf(err) != code {
				t.Errorf("err = %v, want %s", err, code)
			}
			if len(reqs) == 2 && reqs[0].Header.Get("X-Idempotency-Key") != reqs[1].Header.Get("X-Idempotency-Key") {
				t.Error("the retry changed the idempotency key")
			}
		})
	}
}

// failure is how the fake service fails an attempt.
type failure int

const (
	failDropAfter failure = iota // processed, then no answer (HTTP/2: INTERNAL_ERROR)
	failRefused                  // not processed, no answer (HTTP/2: REFUSED_STREAM)
)

func (f failure) String() string {
	if f == failRefused {
		return "refused"
	}
	return "dropped after"
}

// matrixNetworkFailures: a keyed write and a read are retried after every
// kind of lost answer; a write without a key only when the protocol
// guarantees it was not processed, which only HTTP/2 can say (a refused
// stream). Every retry of a signed write is the client's own, so the
// service sees exactly the client's attempts.
func matrixNetworkFailures(t *testing.T, p protocol) {
	type want struct {
		ok       bool
		attempts int
		notSent  bool
	}
	for _, tc := range []struct {
		fail failure
		req  func() *Request
		kind string
		want want
	}{
		{failDropAfter, postReq, "keyed write", want{ok: true, attempts: 2}},
		{failDropAfter, unkeyedWrite, "unkeyed write", want{attempts: 1}},
		{failDropAfter, readReq, "read", want{ok: true}},
		{failRefused, postReq, "keyed write", want{ok: true, attempts: 2}},
		{failRefused, unkeyedWrite, "unkeyed write", want{ok: p.http2, attempts: map[bool]int{true: 2, false: 1}[p.http2]}},
		{failRefused, readReq, "read", want{ok: true}},
	} {
		t.Run(tc.fail.String()+"/"+tc.kind, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPIOver(t, p)
			var executed atomic.Int64
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
				if n == 1 {
					if tc.fail == failDropAfter {
						executed.Add(1)
					}
					drop(w, r, tc.fail == failRefused)
					return
				}
				executed.Add(1)
				writeTestJSON(w, 200, map[string]any{"ok": true})
			}
			resp, err := f.client().Do(context.Background(), tc.req(), nil)
			if (err == nil) != tc.want.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.want.ok)
			}
			sent := len(f.recorded())
			if tc.kind == "read" {
				// A read may also be resent by net/http itself (see
				// TestNetHTTPResendsOnlyReads); the service saw two.
				if sent != 2 {
					t.Errorf("read sent %d times, want 2", sent)
				}
				return
			}
			// The fake service executes every request it answers or drops
			// after, and never replays: a keyed write dropped after
			// executing runs twice here (the simulator replays it instead;
			// internal/reliability proves exactly once); a refused write
			// that is not resent never runs. Everything else runs once.
			wantExec := int64(1)
			switch {
			case tc.fail == failDropAfter && tc.want.ok:
				wantExec = 2
			case tc.fail == failRefused && !tc.want.ok:
				wantExec = 0
			}
			if executed.Load() != wantExec {
				t.Errorf("executed %d times, want %d", executed.Load(), wantExec)
			}
			if err == nil {
				if resp.Attempts != tc.want.attempts || sent != tc.want.attempts {
					t.Errorf("attempts %d, sent %d; want %d", resp.Attempts, sent, tc.want.attempts)
				}
				return
			}
			var te *TransportError
			if !errors.As(err, &te) || te.Attempts != tc.want.attempts || sent != tc.want.attempts || te.NotSent != tc.want.notSent {
				t.Fatalf("err = %#v, sent %d; want a *TransportError after %d attempt(s), NotSent %v", err, sent, tc.want.attempts, tc.want.notSent)
			}
		})
	}
}

// matrixAttemptIdentity: refused, dropped after, 502, then 201: four
// attempts with one idempotency key, four nonces and signatures (each
// verified by the fake service), and the same body bytes.
func matrixAttemptIdentity(t *testing.T, p protocol) {
	f := newFakeAPIOver(t, p)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		switch n {
		case 1:
			drop(w, r, true)
		case 2:
			drop(w, r, false)
		case 3:
			writeTestJSON(w, 502, errBody("upstream_error"))
		default:
			writeTestJSON(w, 201, map[string]any{"id": "qrp_1"})
		}
	}
	resp, err := f.client(WithDefaultMaxAttempts(4)).Do(context.Background(), postReq(), nil)
	if err != nil || resp.Attempts != 4 {
		t.Fatalf("err = %v, resp = %+v; want success on attempt 4", err, resp)
	}
	reqs := f.recorded()
	if len(reqs) != 4 {
		t.Fatalf("sent %d times, want 4", len(reqs))
	}
	nonces := map[string]bool{}
	sigs := map[string]bool{}
	for _, r := range reqs {
		if k := r.Header.Get("X-Idempotency-Key"); k != resp.IdempotencyKey || k == "" {
			t.Errorf("key %q, want %q on every attempt", k, resp.IdempotencyKey)
		}
		nonces[r.Header.Get("X-Nonce")] = true
		sigs[r.Header.Get("X-Signature")] = true
		if !bytes.Equal(r.Body, reqs[0].Body) || len(r.Body) == 0 {
			t.Errorf("body %q, want %q whole on every attempt", r.Body, reqs[0].Body)
		}
	}
	if len(nonces) != 4 || len(sigs) != 4 {
		t.Errorf("%d nonces and %d signatures for 4 attempts", len(nonces), len(sigs))
	}
}

// matrixAttemptTimeout: a first attempt that never answers is cut by the
// attempt timeout and the call succeeds on the second, for a read and for
// a keyed write (same key).
func matrixAttemptTimeout(t *testing.T, p protocol) {
	for _, req := range []func() *Request{readReq, postReq} {
		t.Run(req().Method, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPIOver(t, p)
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
				if n == 1 {
					hang(w, r)
					return
				}
				writeTestJSON(w, 200, map[string]any{})
			}
			c := f.client(WithDefaultAttemptTimeout(time.Hour))
			resp, err := c.Do(context.Background(), req(), nil, WithAttemptTimeout(slowAttempt))
			if err != nil || resp.Attempts != 2 {
				t.Fatalf("err = %v, resp = %+v; want success on the second attempt", err, resp)
			}
			reqs := f.recorded()
			if len(reqs) != 2 || reqs[0].Header.Get("X-Idempotency-Key") != reqs[1].Header.Get("X-Idempotency-Key") {
				t.Errorf("%d requests, keys differ", len(reqs))
			}
		})
	}
}

// matrixContext: a deadline during an attempt ends the call with a
// *TransportError that wraps context.DeadlineExceeded and carries the key,
// the outcome unknown (the attempt had reached the service); a cancel
// during the wait before a retry ends it at once with the last answer
// reachable.
func matrixContext(t *testing.T, p protocol) {
	testDeadlineDuringAttempt(t, newFakeAPIOver(t, p))

	f2 := newFakeAPIOver(t, p)
	f2.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		writeTestJSON(w, 502, errBody("upstream_error"))
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	logger := slog.New(hookHandler{on: func(r slog.Record) {
		if r.Message == "mwallet: retrying" {
			cancel2()
		}
	}})
	_, err := f2.client(WithRetryBackoff(time.Hour, time.Hour), WithLogger(logger)).Do(ctx2, postReq(), nil)
	if !errors.Is(err, context.Canceled) || CodeOf(err) != CodeUpstreamError || len(f2.recorded()) != 1 {
		t.Errorf("cancel: err = %v after %d requests; want Canceled with upstream_error, one request", err, len(f2.recorded()))
	}
}

// matrixRetryBudget: lost answers cost twice the retry cost; a budget of
// 20 with cost 5 allows two retries after network failures, then none.
func matrixRetryBudget(t *testing.T, p protocol) {
	f := newFakeAPIOver(t, p)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) { drop(w, r, n%2 == 0) }
	c := f.client(WithRetryBudget(20, 5), WithDefaultMaxAttempts(10))
	_, err1 := c.Do(context.Background(), postReq(), nil)
	if n := len(f.recorded()); n != 3 {
		t.Fatalf("first call: sent %d times (%v), want 3 (two retries empty the budget)", n, err1)
	}
	_, err2 := c.Do(context.Background(), postReq(), nil)
	if n := len(f.recorded()); n != 4 {
		t.Fatalf("second call: sent %d times in all, want 4 (no retry left)", n)
	}
	var te *TransportError
	if !errors.As(err1, &te) || !errors.As(err2, &te) || c.budget.available() != 0 {
		t.Errorf("errs %v / %v, budget %d", err1, err2, c.budget.available())
	}
}

// matrixConnectionReuse: sequential calls share one connection. A drop
// costs HTTP/1.1 its connection; over HTTP/2 only the stream is reset and
// the retry goes out on the same connection.
func matrixConnectionReuse(t *testing.T, p protocol) {
	f := newFakeAPIOver(t, p)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if n == 6 || n == 8 {
			drop(w, r, n == 8)
			return
		}
		writeTestJSON(w, 200, map[string]any{})
	}
	c := f.client()
	ctx := context.Background()
	for i := range 5 {
		req := readReq()
		if i%2 == 1 {
			req = postReq()
		}
		if _, err := c.Do(ctx, req, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.conns.Load(); n != 1 {
		t.Fatalf("5 calls used %d connections, want 1", n)
	}
	for range 2 { // requests 6 and 7, then 8 and 9: one drop each
		if resp, err := c.Do(ctx, postReq(), nil); err != nil || resp.Attempts != 2 {
			t.Fatalf("err = %v, resp = %+v", err, resp)
		}
	}
	want := int64(1)
	if !p.http2 {
		want = 3
	}
	if n := f.conns.Load(); n != want {
		t.Errorf("after two drops: %d connections, want %d", n, want)
	}
}

// matrixReauth: a token the service stopped accepting gives invalid_token;
// the client exchanges once more and resends once, with the new token.
func matrixReauth(t *testing.T, p protocol) {
	f := newFakeAPIOver(t, p)
	c := f.client()
	if _, err := c.Do(context.Background(), postReq(), nil); err != nil {
		t.Fatal(err)
	}
	f.revokeAll()
	resp, err := c.Do(context.Background(), postReq(), nil)
	if err != nil || resp.Attempts != 2 || f.exchanges.Load() != 2 {
		t.Fatalf("err = %v, resp = %+v, exchanges %d; want success after one new exchange", err, resp, f.exchanges.Load())
	}
	reqs := f.recorded()
	if a, b := reqs[1].Header.Get("X-Auth-Token"), reqs[2].Header.Get("X-Auth-Token"); a == b {
		t.Errorf("resent with the revoked token %q", a)
	}
}

// matrixPending: a keyed write whose answers are all lost stays recorded;
// Resume sends the same key and bytes and the record goes once answered.
func matrixPending(t *testing.T, p protocol) {
	f := newFakeAPIOver(t, p)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if n <= 2 {
			drop(w, r, n == 1)
			return
		}
		w.Header().Set("X-Idempotent-Replay", "true")
		writeTestJSON(w, 201, map[string]any{"id": "qrp_1"})
	}
	store := NewMemoryPendingStore()
	c := f.client(WithPendingStore(store))
	ctx := context.Background()
	_, err := c.Do(ctx, payReq(), nil, WithMaxAttempts(2))
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a *TransportError", err)
	}
	list, err := c.PendingRequests(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("pending %v, %v; want the one write", list, err)
	}
	resp, err := c.Resume(ctx, list[0], nil)
	if err != nil || !resp.Replayed {
		t.Fatalf("Resume: %v, %+v", err, resp)
	}
	reqs := f.recorded()
	if diff := cmp.Diff(reqs[0].Body, reqs[2].Body); diff != "" || reqs[2].Header.Get("X-Idempotency-Key") != te.IdempotencyKey {
		t.Errorf("resume changed the request: key %q / %q, body (-first +resumed):\n%s", reqs[2].Header.Get("X-Idempotency-Key"), te.IdempotencyKey, diff)
	}
	if list, _ := c.PendingRequests(ctx); len(list) != 0 {
		t.Errorf("still pending after the answer: %v", list)
	}
}

// TestNetHTTPResendsOnlyReads pins what net/http sends again by itself.
// Over HTTP/2 a refused stream is resent by net/http on its own when it can
// rewind the body: a read (no body) is, inside one attempt of the client,
// and the debug log counts the sends. A signed write never is (the client
// leaves net/http no way to rewind its body), so each of its resends is the
// client's, with a new nonce, and is counted in Attempts.
func TestNetHTTPResendsOnlyReads(t *testing.T) {
	t.Parallel()
	f := newFakeAPIOver(t, protoHTTP2)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if n == 1 || n == 3 {
			drop(w, r, true)
			return
		}
		writeTestJSON(w, 200, map[string]any{})
	}
	var logs syncBuffer
	c := f.client(WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	resp, err := c.Do(context.Background(), readReq(), nil)
	if err != nil || resp.Attempts != 1 || len(f.recorded()) != 2 {
		t.Fatalf("read: err %v, attempts %v, sent %d; want net/http's own resend inside one attempt", err, resp, len(f.recorded()))
	}
	if !strings.Contains(logs.String(), "sends=2") {
		t.Errorf("the log does not count net/http's resend:\n%s", logs.String())
	}
	resp, err = c.Do(context.Background(), postReq(), nil)
	reqs := f.recorded()
	if err != nil || resp.Attempts != 2 || len(reqs) != 4 || reqs[2].Header.Get("X-Nonce") == reqs[3].Header.Get("X-Nonce") {
		t.Fatalf("write: err %v, resp %+v, sent %d; want the client's own retry with a new nonce", err, resp, len(reqs))
	}
}
