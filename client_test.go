package mwallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewClientBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url string
		wantBase  string
		wantErr   bool
		wantWarn  bool
	}{
		{"https", "https://api.example.com/", "https://api.example.com", false, false},
		{"https with prefix", "https://api.example.com/sandbox/", "https://api.example.com/sandbox", false, false},
		{"upper-case scheme", "HTTPS://api.example.com", "https://api.example.com", false, false},
		{"http loopback v4", "http://127.0.0.1:8080", "http://127.0.0.1:8080", false, false},
		{"http loopback v6", "http://[::1]:8080", "http://[::1]:8080", false, false},
		{"http localhost", "http://localhost:8080", "http://localhost:8080", false, false},
		{"http remote host warns", "http://api.example.com", "http://api.example.com", false, true},
		{"empty", "  ", "", true, false},
		{"no scheme", "api.example.com", "", true, false},
		{"ftp", "ftp://api.example.com", "", true, false},
		{"user info", "https://u:p@api.example.com", "", true, false},
		{"query", "https://api.example.com/?a=1", "", true, false},
		{"fragment", "https://api.example.com/#x", "", true, false},
		{"no host", "https:///v1", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			c, err := New(tt.url, testCreds(), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidParam) {
					t.Fatalf("err = %v, want a *ParamError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewClient: %v", err)
			}
			if c.BaseURL() != tt.wantBase {
				t.Errorf("BaseURL = %q, want %q", c.BaseURL(), tt.wantBase)
			}
			if warned := strings.Contains(logs.String(), "level=WARN"); warned != tt.wantWarn {
				t.Errorf("warning logged = %v, want %v; log: %s", warned, tt.wantWarn, logs.String())
			}
		})
	}
}

func TestNewClientCredentials(t *testing.T) {
	t.Parallel()
	ok := testCreds()
	tests := []struct {
		name  string
		edit  func(*Credentials)
		param string
	}{
		{"no client id", func(c *Credentials) { c.ClientID = " " }, "Credentials.ClientID"},
		{"no api key", func(c *Credentials) { c.APIKey = "" }, "Credentials.APIKey"},
		{"no signing key", func(c *Credentials) { c.SigningKey = "" }, "Credentials.SigningKey"},
		{"newline in api key", func(c *Credentials) { c.APIKey = "a\nb" }, "Credentials.APIKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cr := ok
			tt.edit(&cr)
			_, err := New("https://api.example.com", cr)
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != tt.param {
				t.Fatalf("err = %v, want *ParamError for %s", err, tt.param)
			}
			if strings.Contains(err.Error(), testAPIKey) || strings.Contains(err.Error(), testSigningKey) {
				t.Fatalf("error leaks a secret: %v", err)
			}
		})
	}
}

func TestSecretRedaction(t *testing.T) {
	t.Parallel()
	s := Secret(testAPIKey)
	cr := testCreds()
	type holder struct {
		Creds Credentials
		Key   Secret
		Ptr   *Credentials
	}
	h := holder{Creds: cr, Key: s, Ptr: &cr}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%10s", "%d"} {
		outs = append(outs, fmt.Sprintf(verb, s), fmt.Sprintf(verb, cr), fmt.Sprintf(verb, &cr), fmt.Sprintf(verb, h))
	}
	outs = append(outs, s.String(), s.GoString(), cr.String(), cr.GoString())
	for _, v := range []any{s, cr, h, &cr} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	var logs syncBuffer
	for _, hnd := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		slog.New(hnd).Info("creds", "secret", s, "creds", cr, "holder", h)
	}
	outs = append(outs, logs.String())
	for _, out := range outs {
		if strings.Contains(out, testAPIKey) || strings.Contains(out, testSigningKey) {
			t.Errorf("secret printed: %s", out)
		}
	}
	if got := fmt.Sprintf("%q", s); got != `"[redacted]"` {
		t.Errorf("%%q = %s", got)
	}
	if !strings.Contains(fmt.Sprintf("%+v", cr), testClientID) {
		t.Errorf("credentials should still show the client id: %+v", cr)
	}
	if s.Reveal() != testAPIKey {
		t.Errorf("Reveal lost the value")
	}
}

func TestClientNeverPrintsSecrets(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client()
	if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(verb, c)
		if strings.Contains(out, testAPIKey) || strings.Contains(out, testSigningKey) || strings.Contains(out, "tok-SECRET") {
			t.Errorf("%s prints a secret: %s", verb, out)
		}
	}
}

func TestDoRejectsBadInputBeforeSending(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client()
	tests := []struct {
		name string
		req  Request
		opts []CallOption
		code Code
	}{
		{"blank member", Request{Method: "POST", Path: "/v1/qrpay/quotes", MemberScoped: true, Member: " \t "}, nil, CodeMemberContextRequired},
		{"empty member", Request{Method: "GET", Path: "/v1/kyc", MemberScoped: true}, nil, CodeMemberContextRequired},
		{"member with newline", Request{Method: "GET", Path: "/v1/kyc", MemberScoped: true, Member: "a\r\nx-evil: 1"}, nil, CodeMemberContextRequired},
		{"short key", Request{Method: "POST", Path: "/v1/remittances", Idempotent: true}, []CallOption{WithIdempotencyKey("123")}, CodeIdempotencyKeyInvalid},
		{"key with braces", Request{Method: "POST", Path: "/v1/remittances", Idempotent: true}, []CallOption{WithIdempotencyKey("{3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5}")}, CodeIdempotencyKeyInvalid},
		{"key not hex", Request{Method: "POST", Path: "/v1/remittances", Idempotent: true}, []CallOption{WithIdempotencyKey("3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5g")}, CodeIdempotencyKeyInvalid},
		{"unencodable body", Request{Method: "POST", Path: "/v1/x", Body: map[string]any{"f": func() {}}}, nil, CodeInvalidRequest},
		{"invalid raw body", Request{Method: "POST", Path: "/v1/x", Body: json.RawMessage(`{"a":`)}, nil, CodeInvalidRequest},
		{"path without slash", Request{Method: "GET", Path: "v1/x"}, nil, ""},
		{"path with query", Request{Method: "GET", Path: "/v1/x?a=1"}, nil, ""},
		{"no method", Request{Path: "/v1/x"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *Response
			resp, err := c.Do(context.Background(), &tt.req, nil, append(tt.opts, WithResponse(&got))...)
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParamError", err)
			}
			if pe.Code != tt.code {
				t.Errorf("code = %q, want %q", pe.Code, tt.code)
			}
			if resp != nil || got != nil {
				t.Errorf("a Response for a call that sent nothing: %+v", resp)
			}
		})
	}
	if n := f.exchanges.Load(); n != 0 {
		t.Errorf("token exchanges = %d, want 0 (nothing may be sent)", n)
	}
	if n := len(f.recorded()); n != 0 {
		t.Errorf("requests = %d, want 0", n)
	}
}

func TestDoHeadersAndResponse(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		w.Header().Set("X-Idempotent-Replay", "true")
		writeTestJSON(w, 201, map[string]any{"id": "rmt_1", "status": "pending"})
	}
	c := f.client(WithUserAgent("shop/1.0"))
	key := "3F0E1F0C-7D0C-4A53-9B0E-8A6C2B3D4E5F"
	var out struct{ ID, Status string }
	q := url.Values{"limit": {"5"}, "cursor": {"a b/c"}}
	resp, err := c.Do(context.Background(), &Request{
		Method: http.MethodPost, Path: "/v1/remittances", Query: q, MemberScoped: true, Member: "  member-1 ",
		Body: map[string]string{"b": "2", "a": "1"}, Idempotent: true,
	}, &out, WithIdempotencyKey(key), WithStepUp("chl_1"),
		WithHeader("X-Trace", "t-1"), WithHeader("X-Auth-Token", "evil"), WithHeader("X-On-Behalf-Of", "evil"))
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if out.ID != "rmt_1" || out.Status != "pending" {
		t.Errorf("decoded %+v", out)
	}
	wantResp := &Response{StatusCode: 201, RequestID: "req_1", Replayed: true, IdempotencyKey: key, Attempts: 1}
	if diff := cmp.Diff(wantResp, resp, cmpIgnoreHeader); diff != "" {
		t.Errorf("Response (-want +got):\n%s", diff)
	}
	reqs := f.recorded()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	h := reqs[0].Header
	checks := map[string]string{
		"X-On-Behalf-Of":    "member-1",
		"X-Idempotency-Key": key,
		"X-Step-Up":         "chl_1",
		"X-Trace":           "t-1",
		"Content-Type":      "application/json",
		"X-Auth-Token":      "Bearer tok-SECRET-1",
	}
	for k, v := range checks {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("header %s = %q, want [%q]", k, got, v)
		}
	}
	if ua := h.Get("User-Agent"); !strings.HasPrefix(ua, "shop/1.0 mwallet-go/") {
		t.Errorf("User-Agent = %q", ua)
	}
	if reqs[0].URI != "/v1/remittances?"+q.Encode() {
		t.Errorf("URI = %q", reqs[0].URI)
	}
	if string(reqs[0].Body) != `{"a":"1","b":"2"}` {
		t.Errorf("body = %s", reqs[0].Body)
	}
	if sig := h.Get("X-Signature"); len(sig) != 44 {
		t.Errorf("signature %q is not 44 characters", sig)
	}
}

var cmpIgnoreHeader = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Header" }, cmp.Ignore())

func TestDoSignsWritesOnly(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client()
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
		if _, err := c.Do(context.Background(), &Request{Method: m, Path: "/v1/x"}, nil); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	for _, r := range f.recorded() {
		signed := r.Header.Get("X-Signature") != ""
		write := r.Method != "GET" && r.Method != "HEAD"
		if signed != write {
			t.Errorf("%s signed = %v", r.Method, signed)
		}
		if write && (r.Header.Get("X-Timestamp") == "" || r.Header.Get("X-Nonce") == "") {
			t.Errorf("%s lacks timestamp or nonce", r.Method)
		}
	}
}

func TestDoGeneratesOneKeyPerCall(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client()
	req := &Request{Method: "POST", Path: "/v1/remittances", Body: map[string]int{"a": 1}, Idempotent: true}
	r1, err1 := c.Do(context.Background(), req, nil)
	r2, err2 := c.Do(context.Background(), req, nil)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !ValidIdempotencyKey(r1.IdempotencyKey) || r1.IdempotencyKey == r2.IdempotencyKey {
		t.Fatalf("keys %q and %q: want two distinct UUIDs", r1.IdempotencyKey, r2.IdempotencyKey)
	}
	if got := f.recorded()[0].Header.Get("X-Idempotency-Key"); got != r1.IdempotencyKey {
		t.Errorf("sent key %q, reported %q", got, r1.IdempotencyKey)
	}
	// A request that is not idempotent sends no key.
	r3, err := c.Do(context.Background(), &Request{Method: "POST", Path: "/v1/x"}, nil)
	if err != nil || r3.IdempotencyKey != "" || f.recorded()[2].Header.Get("X-Idempotency-Key") != "" {
		t.Errorf("non-idempotent request carried a key: %v %+v", err, r3)
	}
}

func TestDoSendsRawJSONVerbatim(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client()
	raw := json.RawMessage(`{ "b" : 2, "a" : 1 }`)
	if _, err := c.Do(context.Background(), &Request{Method: "POST", Path: "/v1/x", Body: raw}, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.recorded()[0].Body; !bytes.Equal(got, raw) {
		t.Errorf("sent %s, want %s", got, raw)
	}
}

func TestDoDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		http.Redirect(w, r, "https://elsewhere.example/steal", http.StatusFound)
	}
	c := f.client()
	_, err := c.Do(context.Background(), &Request{Method: "GET", Path: "/v1/x"}, nil)
	var e *Error
	if !errors.As(err, &e) || e.HTTPStatus != http.StatusFound {
		t.Fatalf("err = %v, want an *Error with status 302", err)
	}
	if len(f.recorded()) != 2 { // api_error (unknown answer) is retried once
		t.Errorf("requests = %d, want 2", len(f.recorded()))
	}
}

func TestDoBoundsResponseBody(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		for i := 0; i < 11; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	c := f.client()
	var out map[string]any
	_, err := c.Do(context.Background(), &Request{Method: "GET", Path: "/v1/x"}, &out)
	if !errors.Is(err, errBodyTooLarge) {
		t.Fatalf("err = %v, want the body limit error", err)
	}
	if len(f.recorded()) != 1 {
		t.Errorf("an oversized body must not be retried; requests = %d", len(f.recorded()))
	}
}

func TestDoUndecodableSuccessBody(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id": 12`))
	}
	c := f.client()
	var out struct{ ID string }
	resp, err := c.Do(context.Background(), &Request{Method: "GET", Path: "/v1/x"}, &out)
	if err == nil || !strings.Contains(err.Error(), "req_1") {
		t.Fatalf("err = %v, want a decode error naming the request id", err)
	}
	if resp == nil || resp.RequestID != "req_1" {
		t.Errorf("Response = %+v", resp)
	}
}
