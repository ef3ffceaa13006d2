package mwallet

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/internal/h2serve"
)

const (
	testClientID   = "client-test-1"
	testAPIKey     = "apikey-SECRET-0123456789"
	testSigningKey = "signkey-SECRET-9876543210"
)

func testCreds() Credentials {
	return Credentials{ClientID: testClientID, APIKey: Secret(testAPIKey), SigningKey: Secret(testSigningKey)}
}

// testClock is a manual clock.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Unix(1_800_000_000, 0)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// EndingCtx is a call's context that the test ends exactly when the test
// needs it, without a timer: End(context.Canceled) cancels it,
// End(context.DeadlineExceeded) stands for a deadline that passed. It has
// no deadline of its own. (Exported for the external tests.)
type EndingCtx struct {
	context.Context
	done chan struct{}
	mu   sync.Mutex
	err  error
}

// NewEndingCtx returns a context that lasts until End.
func NewEndingCtx() *EndingCtx {
	return &EndingCtx{Context: context.Background(), done: make(chan struct{})}
}

// Done is closed by End.
func (c *EndingCtx) Done() <-chan struct{} { return c.done }

// Err is End's error, nil until then.
func (c *EndingCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// End ends the context with err; later calls do nothing.
func (c *EndingCtx) End(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
}

// deadlineOnly is a context with a deadline that never passes: the client
// reads the deadline to decide whether a wait fits before it (the
// Retry-After wait, the token-exchange limiter), and the decision is made
// the same however slowly the test runs.
type deadlineOnly struct {
	context.Context
	deadline time.Time
}

// withDeadlineOnly returns a context whose Deadline is d from now and whose
// Done never closes.
func withDeadlineOnly(d time.Duration) context.Context {
	return deadlineOnly{Context: context.Background(), deadline: time.Now().Add(d)}
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.deadline, true }

// recorded is one business request as the fake service received it.
type recorded struct {
	Method string
	URI    string
	Header http.Header
	Body   []byte
}

// fakeAPI is a scripted service: a token endpoint and a business handler. It
// checks tokens and verifies the signature of every write with crypto/hmac,
// independently of the client's signer.
type fakeAPI struct {
	t     *testing.T
	srv   *httptest.Server
	url   string       // base URL (https over TLS)
	hc    *http.Client // trusts the server's certificate
	proto protocol
	conns atomic.Int64 // connections accepted
	clock *testClock

	exchanges atomic.Int64
	tokenTTL  time.Duration
	// tokenHandler, when set, answers token exchanges instead.
	tokenHandler func(w http.ResponseWriter, r *http.Request, n int64)

	mu       sync.Mutex
	valid    map[string]bool
	requests []recorded
	// handler answers business requests; n is the 1-based request number.
	handler func(w http.ResponseWriter, r *http.Request, body []byte, n int)
}

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	return newFakeAPIOver(t, protoHTTP1)
}

// protocol is how a test server is reached.
type protocol struct {
	name  string
	tls   bool // HTTPS
	http2 bool // HTTP/2 offered by ALPN (implies tls)
}

var (
	protoHTTP1    = protocol{name: "http1"}
	protoHTTP1TLS = protocol{name: "http1-tls", tls: true}
	protoHTTP2    = protocol{name: "h2", tls: true, http2: true}
	// protocols are the columns of the transport matrix.
	protocols = []protocol{protoHTTP1, protoHTTP1TLS, protoHTTP2}
)

// newFakeAPIOver starts the fake service over p. Over TLS it is served the
// way the simulator serves WithTLS and WithHTTP2 (package h2serve), so a
// handler can drop a request with drop.
func newFakeAPIOver(t *testing.T, p protocol) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, clock: newTestClock(), tokenTTL: 30 * time.Minute, valid: map[string]bool{}, proto: p}
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		writeTestJSON(w, 200, map[string]any{"ok": true})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/connect/token", f.serveToken)
	mux.HandleFunc("/", f.serveBusiness)
	// Date on the service's (test) clock, as a real service's Date agrees
	// with the clock that checks x-timestamp.
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", f.clock.Now().UTC().Format(http.TimeFormat))
		mux.ServeHTTP(w, r)
	}))
	f.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			f.conns.Add(1)
		}
	}
	if p.tls {
		cert, err := h2serve.LocalCertificate()
		if err != nil {
			t.Fatal(err)
		}
		f.srv.Listener = h2serve.Listen(f.srv.Listener, h2serve.TLSConfig(cert, p.http2))
		h2serve.Configure(f.srv.Config, p.http2)
		f.hc = h2serve.Client(cert)
	}
	f.srv.Start()
	f.url = f.srv.URL
	if !p.tls {
		f.hc = f.srv.Client()
	} else {
		f.url = "https://" + f.srv.Listener.Addr().String()
	}
	t.Cleanup(func() {
		f.hc.CloseIdleConnections()
		f.srv.Close()
	})
	return f
}

// drop ends the request without an answer, the way the simulator's faults
// do: over HTTP/1.x the connection is closed; over HTTP/2 the stream is
// reset, with REFUSED_STREAM when refused (not processed) and
// INTERNAL_ERROR otherwise. Over HTTP/2 it does not return.
func drop(w http.ResponseWriter, r *http.Request, refused bool) {
	how := h2serve.Internal
	if refused {
		how = h2serve.Refused
	}
	h2serve.Abort(w, r, how)
}

// hang never answers the request: it waits until the client gives up on
// it (an attempt timeout, the call's context), then drops it. A handler
// that returned instead would have net/http answer 200 with an empty body,
// which over HTTP/1.1 a client that is just giving up can still read as
// the answer. Over HTTP/2 the client's reset has ended the stream already.
func hang(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
	if r.ProtoMajor == 1 {
		drop(w, r, false)
	}
}

func (f *fakeAPI) serveToken(w http.ResponseWriter, r *http.Request) {
	n := f.exchanges.Add(1)
	if f.tokenHandler != nil {
		f.tokenHandler(w, r, n)
		return
	}
	if r.Header.Get("X-Client-Id") != testClientID || r.Header.Get("X-Api-Key") != testAPIKey {
		writeTestJSON(w, 401, map[string]any{"type": "authentication_error", "code": "invalid_credentials", "message": "bad", "request_id": "req_tok"})
		return
	}
	tok := "tok-SECRET-" + strconv.FormatInt(n, 10)
	f.mu.Lock()
	f.valid[tok] = true
	f.mu.Unlock()
	writeTestJSON(w, 200, map[string]any{"auth_token": tok, "expired_at": f.clock.Now().Add(f.tokenTTL).Unix(), "token_type": "Bearer", "scopes": []string{"merchant:read"}})
}

// revokeAll makes every issued token invalid.
func (f *fakeAPI) revokeAll() {
	f.mu.Lock()
	f.valid = map[string]bool{}
	f.mu.Unlock()
}

func (f *fakeAPI) serveBusiness(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, recorded{Method: r.Method, URI: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
	n := len(f.requests)
	ok := f.valid[strings.TrimPrefix(r.Header.Get("X-Auth-Token"), "Bearer ")]
	f.mu.Unlock()
	w.Header().Set("X-Request-Id", "req_"+strconv.Itoa(n))
	if !ok {
		writeTestJSON(w, 401, map[string]any{"type": "authentication_error", "code": "invalid_token", "message": "expired"})
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		want := refSign(testSigningKey, r.Method, r.URL.RequestURI(), r.Header.Get("X-Timestamp"), r.Header.Get("X-Nonce"), body)
		if got := r.Header.Get("X-Signature"); got != want {
			writeTestJSON(w, 401, map[string]any{"type": "authentication_error", "code": "invalid_signature", "message": "mismatch"})
			return
		}
		if ts := r.Header.Get("X-Timestamp"); ts != strconv.FormatInt(f.clock.Now().Unix(), 10) {
			writeTestJSON(w, 401, map[string]any{"type": "authentication_error", "code": "timestamp_out_of_range", "message": "ts " + ts})
			return
		}
	}
	f.handler(w, r, body, n)
}

func (f *fakeAPI) recorded() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// client returns a client for f with fast retries and the test clock.
func (f *fakeAPI) client(opts ...Option) *Client {
	f.t.Helper()
	base := []Option{
		WithHTTPClient(f.hc),
		WithClock(f.clock.Now),
		WithRetryBackoff(time.Millisecond, 5*time.Millisecond),
		WithLogger(slog.New(slog.DiscardHandler)),
	}
	c, err := New(f.url, testCreds(), append(base, opts...)...)
	if err != nil {
		f.t.Fatalf("NewClient: %v", err)
	}
	return c
}

// unkeyedWrite is a signed write without an idempotency key.
func unkeyedWrite() *Request {
	return &Request{Method: http.MethodPost, Path: "/v1/cards/crd_1/freeze", MemberScoped: true, Member: "member-1",
		Body: map[string]string{"reason": "lost"}}
}

// readReq is a read.
func readReq() *Request { return &Request{Method: http.MethodGet, Path: "/v1/x"} }

// refSign is the reference signature, written with crypto/hmac.
func refSign(key, method, pathQuery, ts, nonce string, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(m, "%s\n%s\n%s\n%s\n%s", method, pathQuery, ts, nonce, hex.EncodeToString(sum[:]))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func writeTestJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func errBody(code string, extra ...any) map[string]any {
	m := map[string]any{"type": "x", "code": code, "message": "m " + code}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
