package webhooks_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/webhooks"
)

func eventBody(id string) []byte {
	return []byte(`{"event_id":"` + id + `","event_type":"card.status.updated","created_at":"2026-01-01T12:00:00Z","merchant_id":"mch_1","livemode":false,` +
		`"data":{"object":"card","id":"c1","external_member_id":"member-1","status":"active","status_version":2}}`)
}

func signedRequest(body []byte, secret string, at time.Time) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("z-signature", header(secret, at.Unix(), body))
	return r
}

func TestHandlerResponses(t *testing.T) {
	t.Parallel()
	body := eventBody("evt_1")
	big := append(bytes.Repeat([]byte(" "), 2<<10), body...)
	tests := []struct {
		name     string
		req      func() *http.Request
		fnErr    error
		wantCode int
		wantCall bool
	}{
		{name: "ok", req: func() *http.Request { return signedRequest(body, testSecret, testNow) }, wantCode: 200, wantCall: true},
		{name: "function fails", req: func() *http.Request { return signedRequest(body, testSecret, testNow) }, fnErr: errors.New("db down"), wantCode: 500, wantCall: true},
		{name: "GET", req: func() *http.Request { return httptest.NewRequest(http.MethodGet, "/webhooks", nil) }, wantCode: 405},
		{name: "no signature", req: func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
		}, wantCode: 400},
		{name: "wrong secret", req: func() *http.Request { return signedRequest(body, "other", testNow) }, wantCode: 400},
		{name: "stale", req: func() *http.Request { return signedRequest(body, testSecret, testNow.Add(-6*time.Minute)) }, wantCode: 400},
		{name: "malformed body", req: func() *http.Request { return signedRequest([]byte(`{"event_id":1}`), testSecret, testNow) }, wantCode: 400},
		{name: "too large", req: func() *http.Request { return signedRequest(big, testSecret, testNow) }, wantCode: 413},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			called := false
			h := webhooks.Handler(testSecret, func(_ context.Context, ev webhooks.Event) error {
				called = true
				if ev.EventID != "evt_1" {
					t.Errorf("event id %q", ev.EventID)
				}
				return tc.fnErr
			}, webhooks.WithClock(func() time.Time { return testNow }), webhooks.WithMaxBodyBytes(2<<10))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tc.req())
			if rec.Code != tc.wantCode || called != tc.wantCall {
				t.Errorf("status %d, called %v; want %d, %v (body %q)", rec.Code, called, tc.wantCode, tc.wantCall, rec.Body.String())
			}
		})
	}
}

// TestHandlerDedupeAndRollback: a duplicate is acknowledged without calling
// the function; a failure releases the claim so the retry is processed.
func TestHandlerDedupeAndRollback(t *testing.T) {
	t.Parallel()
	var calls []string
	fail := true
	var mu sync.Mutex
	h := webhooks.Handler(testSecret, func(_ context.Context, ev webhooks.Event) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, ev.EventID)
		if fail {
			fail = false
			return errors.New("temporary")
		}
		return nil
	}, webhooks.WithClock(func() time.Time { return testNow }))
	send := func(id string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, signedRequest(eventBody(id), testSecret, testNow))
		return rec.Code
	}
	steps := []struct {
		id   string
		want int
	}{
		{"evt_1", 500}, // fails: the claim is released
		{"evt_1", 200}, // the retry is processed
		{"evt_1", 200}, // a redelivery is a duplicate: acknowledged, not processed
		{"evt_2", 200},
	}
	for i, st := range steps {
		if got := send(st.id); got != st.want {
			t.Fatalf("step %d (%s): status %d, want %d", i, st.id, got, st.want)
		}
	}
	if got := strings.Join(calls, ","); got != "evt_1,evt_1,evt_2" {
		t.Errorf("calls = %s, want evt_1,evt_1,evt_2", got)
	}
}

func TestHandlerPanicReleases(t *testing.T) {
	t.Parallel()
	d := webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{})
	h := webhooks.Handler(testSecret, func(context.Context, webhooks.Event) error { panic("boom") },
		webhooks.WithClock(func() time.Time { return testNow }), webhooks.WithDeduper(d))
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic was swallowed")
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), signedRequest(eventBody("evt_p"), testSecret, testNow))
	}()
	if c, _ := d.Claim(context.Background(), "evt_p", testNow, time.Minute); c.State != webhooks.ClaimAcquired {
		t.Errorf("the event stayed claimed after the function panicked: %s", c.State)
	}
}

// TestHandlerLease: while one delivery runs the function, another delivery
// of the same event is answered 409 and not processed; a claim left by a
// receiver that died is taken over once its lease lapsed on the handler's
// clock (WithClock), and the event is processed then.
func TestHandlerLease(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: testNow}
	d := webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{})
	var mu sync.Mutex
	var calls []string
	entered, release := make(chan struct{}), make(chan struct{})
	h := webhooks.Handler(testSecret, func(_ context.Context, ev webhooks.Event) error {
		mu.Lock()
		calls = append(calls, ev.EventID)
		mu.Unlock()
		if ev.EventID == "evt_slow" {
			close(entered)
			<-release
		}
		return nil
	}, webhooks.WithClock(clk.Now), webhooks.WithDeduper(d), webhooks.WithLease(2*time.Minute))
	send := func(id string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, signedRequest(eventBody(id), testSecret, clk.Now()))
		return rec
	}

	// Two deliveries of one event at once.
	first := make(chan int)
	go func() { first <- send("evt_slow").Code }()
	<-entered
	if rec := send("evt_slow"); rec.Code != http.StatusConflict || rec.Header().Get("Retry-After") != "120" {
		t.Errorf("a delivery while the function runs: %d, Retry-After %q; want 409, 120", rec.Code, rec.Header().Get("Retry-After"))
	}
	close(release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("first delivery: %d", code)
	}
	if rec := send("evt_slow"); rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != "duplicate" {
		t.Errorf("after it was done: %d %q, want 200 duplicate", rec.Code, rec.Body.String())
	}

	// A receiver died holding the claim of evt_dead.
	if _, err := d.Claim(context.Background(), "evt_dead", clk.Now(), 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute) // the service's first retry
	if rec := send("evt_dead"); rec.Code != http.StatusConflict || rec.Header().Get("Retry-After") != "60" {
		t.Errorf("retry within the lease: %d, Retry-After %q; want 409, 60", rec.Code, rec.Header().Get("Retry-After"))
	}
	clk.Advance(5 * time.Minute) // the second retry, after the lease
	if rec := send("evt_dead"); rec.Code != http.StatusOK {
		t.Errorf("retry after the lease: %d, want 200", rec.Code)
	}
	if rec := send("evt_dead"); rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != "duplicate" {
		t.Errorf("then: %d %q, want 200 duplicate", rec.Code, rec.Body.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(calls, ","); got != "evt_slow,evt_dead" {
		t.Errorf("calls = %s, want evt_slow,evt_dead (each once)", got)
	}
}

// failingDeduper fails every call.
type failingDeduper struct{}

func (failingDeduper) Claim(context.Context, string, time.Time, time.Duration) (webhooks.Claim, error) {
	return webhooks.Claim{}, errors.New("store down")
}
func (failingDeduper) Done(context.Context, string, time.Time) error { return errors.New("store down") }
func (failingDeduper) Release(context.Context, string, string) error { return nil }

// doneFails acquires every claim and fails to record done.
type doneFails struct{ failingDeduper }

func (doneFails) Claim(context.Context, string, time.Time, time.Duration) (webhooks.Claim, error) {
	return webhooks.Claim{State: webhooks.ClaimAcquired, Token: "t"}, nil
}

func TestHandlerDedupeOptions(t *testing.T) {
	t.Parallel()
	count := 0
	fn := func(context.Context, webhooks.Event) error { count++; return nil }
	clock := webhooks.WithClock(func() time.Time { return testNow })
	tests := []struct {
		name      string
		opts      []webhooks.Option
		wantCodes []int
		wantCalls int
	}{
		{"default dedupes", nil, []int{200, 200}, 1},
		{"without dedupe", []webhooks.Option{webhooks.WithoutDedupe()}, []int{200, 200}, 2},
		{"nil deduper disables", []webhooks.Option{webhooks.WithDeduper(nil)}, []int{200, 200}, 2},
		{"store error is a 500", []webhooks.Option{webhooks.WithDeduper(failingDeduper{})}, []int{500, 500}, 0},
		// The function succeeded: acknowledged even though done was not
		// recorded (answering 500 would make the retry process it again).
		{"done not recorded is still a 200", []webhooks.Option{webhooks.WithDeduper(doneFails{})}, []int{200, 200}, 2},
	}
	for _, tc := range tests {
		count = 0
		h := webhooks.Handler(testSecret, fn, append([]webhooks.Option{clock}, tc.opts...)...)
		for i, want := range tc.wantCodes {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, signedRequest(eventBody("evt_d"), testSecret, testNow))
			if rec.Code != want {
				t.Errorf("%s: delivery %d: status %d, want %d", tc.name, i, rec.Code, want)
			}
		}
		if count != tc.wantCalls {
			t.Errorf("%s: %d calls, want %d", tc.name, count, tc.wantCalls)
		}
	}
}

func TestHandlerNeverLogsSecrets(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := webhooks.Handler(testSecret, func(context.Context, webhooks.Event) error { return errors.New("failed") },
		webhooks.WithClock(func() time.Time { return testNow }), webhooks.WithLogger(logger))
	body := eventBody("evt_l")
	good := signedRequest(body, testSecret, testNow)
	bad := signedRequest(body, "wrong-secret", testNow)
	for _, r := range []*http.Request{good, bad} {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	out := buf.String()
	if !strings.Contains(out, "webhook processing failed") || !strings.Contains(out, "webhook signature rejected") {
		t.Errorf("log lacks the outcomes:\n%s", out)
	}
	for _, s := range []string{testSecret, "wrong-secret", good.Header.Get("z-signature"), bad.Header.Get("z-signature"), `"status":"active"`} {
		if strings.Contains(out, s) {
			t.Errorf("log reveals %q:\n%s", s, out)
		}
	}
	if v := webhooks.NewTestVerifier(testSecret); strings.Contains(v.String()+v.GoString(), testSecret) {
		t.Error("the verifier's String reveals the secret")
	}
}

// TestHandlerSaysWhyItRefused: every refusal is logged with its reason when
// a logger is given, and the answer body carries the verification reason,
// so the sender (the simulator's delivery rows) shows it too.
func TestHandlerSaysWhyItRefused(t *testing.T) {
	t.Parallel()
	body := eventBody("evt_why")
	tests := []struct {
		name   string
		req    *http.Request
		status int
		answer string // in the answer body
		logged string // in the log line
	}{
		{"stale timestamp", signedRequest(body, testSecret, testNow.Add(-7844*time.Hour)), http.StatusBadRequest,
			"invalid signature: webhooks: signature timestamp out of range: timestamp stale by 7844h0m0s (tolerance 5m0s)", "timestamp stale by 7844h0m0s"},
		{"future timestamp", signedRequest(body, testSecret, testNow.Add(time.Hour)), http.StatusBadRequest,
			"timestamp in the future by 1h0m0s", "timestamp in the future by 1h0m0s"},
		{"wrong secret", signedRequest(body, "another-secret", testNow), http.StatusBadRequest,
			"invalid signature: webhooks: signature mismatch", "signature mismatch"},
		{"no signature", func() *http.Request {
			r := signedRequest(body, testSecret, testNow)
			r.Header.Del("z-signature")
			return r
		}(), http.StatusBadRequest, "invalid signature: webhooks: missing z-signature header", "missing z-signature header"},
		{"not JSON", signedRequest([]byte("not json"), testSecret, testNow), http.StatusBadRequest, "malformed event", "webhook body malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logged bytes.Buffer
			h := webhooks.Handler(testSecret, nil, webhooks.WithClock(func() time.Time { return testNow }),
				webhooks.WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tt.req)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.answer) {
				t.Errorf("answer %d %q, want %d containing %q", rec.Code, rec.Body.String(), tt.status, tt.answer)
			}
			if !strings.Contains(logged.String(), tt.logged) || !strings.Contains(logged.String(), "level=WARN") {
				t.Errorf("log %q lacks %q at WARN", logged.String(), tt.logged)
			}
			if strings.Contains(rec.Body.String()+logged.String(), testSecret) {
				t.Error("the secret leaked")
			}
		})
	}
}
