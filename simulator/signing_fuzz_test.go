package simulator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// wireTransport carries the SDK's requests to the simulator without a
// socket: each request is written in HTTP/1.1 wire form and read back as a
// server reads it (RequestURI as sent), its signature is checked with the
// simulator's verifier, and it is then served by the simulator itself.
type wireTransport struct {
	s *Simulator

	mu       sync.Mutex
	signed   int // signed requests seen
	verified int // of which verified
	failures []string
}

func (tr *wireTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		return nil, err
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	sr, err := http.ReadRequest(bufio.NewReader(&wire))
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(sr.Body)
	if err != nil {
		return nil, err
	}
	sr.RemoteAddr = "127.0.0.1:1"
	if sig := sr.Header.Get("X-Signature"); sig != "" {
		tx := tr.s.k.Begin()
		key, _ := tr.s.st.keys.Get(tx, DefaultClientID)
		now := tr.s.st.clock.Now()
		ae := tr.s.wiring.gw.ex.VerifySignature(tx, sr, key.key(), body, now)
		// Let the served request consume the nonce again.
		tr.s.st.gw.Nonces.Delete(tx, tr.s.st.merchant.Env(tx)+"|"+sr.Header.Get("X-Nonce"))
		tx.End()
		tr.mu.Lock()
		tr.signed++
		if ae == nil {
			tr.verified++
		} else {
			tr.failures = append(tr.failures, sr.Method+" "+sr.RequestURI+": "+ae.Code)
		}
		tr.mu.Unlock()
	}
	sr.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	tr.s.ServeHTTP(rec, sr)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// FuzzSignatureAgreement sends writes with arbitrary methods, paths, query
// strings and bodies through the real SDK client to the real simulator
// verifier: every signature the SDK computes over what it sends verifies,
// and a signed request routed to an endpoint is never refused for its
// signature. A changed body is refused.
func FuzzSignatureAgreement(f *testing.F) {
	f.Add("POST", "webhooks/deliveries/whd_1/redeliver", "cursor", "a b&c=d", []byte(`{"a":1}`))
	f.Add("PUT", "v1/x/ü/%2F/;a=b", "", "", []byte(""))
	f.Add("patch", "a//b/../c/./d", "k\x00", "v\u2028", []byte(`"\u00e9"`))
	f.Add("DELETE", "%zz%", "=&", "==", []byte("not json \xff"))
	f.Add("POST", "remit/payees", "limit", "100", []byte(`{"payee":{"name":"`+strings.Repeat("x", 3000)+`"}}`))
	f.Add("REPORT", "webhooks/deliveries/ %20+/redeliver", "+", "%2B", []byte(`[1,2,{"x":null}]`))
	// One simulator and client serve every input: nonces are fresh per
	// request and the token is cached, so inputs do not interfere.
	s := mustNewHandler()
	s.SetBaseURL("http://127.0.0.1:9")
	if err := s.Keys.Set(DefaultClientID, KeySettings{SignatureRequired: Bool(true)}); err != nil {
		f.Fatal(err)
	}
	tr := &wireTransport{s: s}
	c, err := s.newClient(mwallet.WithHTTPClient(&http.Client{Transport: tr}), mwallet.WithDefaultMaxAttempts(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, path, qk, qv string, body []byte) {
		tr.mu.Lock()
		tr.signed, tr.verified, tr.failures = 0, 0, nil
		tr.mu.Unlock()
		var raw json.RawMessage = body
		if !json.Valid(body) {
			raw, _ = json.Marshal(string(body))
		}
		req := &mwallet.Request{Method: method, Path: "/v1/" + path, Body: raw}
		if qk != "" || qv != "" {
			req.Query = url.Values{qk: {qv}}
		}
		type outcome struct {
			resp *mwallet.Response
			err  error
		}
		done := make(chan outcome, 1)
		go func() {
			resp, err := c.Do(context.Background(), req, nil)
			done <- outcome{resp, err}
		}()
		var resp *mwallet.Response
		var err error
		select {
		case o := <-done:
			resp, err = o.resp, o.err
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%q %q %q=%q: no answer within 10 s\n%s", method, path, qk, qv, buf[:n])
		}
		var pe *mwallet.ParamError
		if errors.As(err, &pe) || resp == nil {
			return // refused before sending (a method or path that cannot be sent)
		}
		var apiErr *mwallet.Error
		if errors.As(err, &apiErr) {
			switch apiErr.Code {
			case mwallet.CodeInvalidSignature, mwallet.CodeTimestampOutOfRange, mwallet.CodeNonceReused:
				t.Fatalf("%s %s: the simulator refused the SDK's signature: %v", method, path, apiErr)
			}
		}
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if len(tr.failures) > 0 {
			t.Fatalf("signatures refused by the verifier: %v", tr.failures)
		}
		m := strings.ToUpper(strings.TrimSpace(method))
		if m != http.MethodGet && m != http.MethodHead && tr.signed == 0 {
			t.Fatalf("%s was sent unsigned", m)
		}
	})
}

// TestSignatureRefusesTamperedRequests checks the other half of the
// agreement: the verifier refuses a signed request whose body, path,
// query or method was changed after signing.
func TestSignatureRefusesTamperedRequests(t *testing.T) {
	t.Parallel()
	s := mustNewHandler()
	s.SetBaseURL("http://127.0.0.1:9")
	var captured *http.Request
	var capturedBody []byte
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		var wire bytes.Buffer
		if err := req.Write(&wire); err != nil {
			return nil, err
		}
		sr, err := http.ReadRequest(bufio.NewReader(&wire))
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(sr.Body)
		if sr.Header.Get("X-Signature") != "" {
			captured, capturedBody = sr, b
		}
		sr.Body = io.NopCloser(bytes.NewReader(b))
		sr.RemoteAddr = "127.0.0.1:1"
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, sr)
		return rec.Result(), nil
	})
	c, err := s.newClient(mwallet.WithHTTPClient(&http.Client{Transport: rt}), mwallet.WithDefaultMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.Do(context.Background(), &mwallet.Request{Method: "POST", Path: "/v1/webhooks/deliveries/whd_1/redeliver",
		Query: url.Values{"a": {"1"}}, Body: json.RawMessage(`{"x":"y"}`)}, nil)
	if captured == nil {
		t.Fatal("no signed request was sent")
	}
	tests := []struct {
		name   string
		change func(r *http.Request, body []byte) (*http.Request, []byte)
	}{
		{"body", func(r *http.Request, b []byte) (*http.Request, []byte) { return r, []byte(`{"x":"z"}`) }},
		{"empty body", func(r *http.Request, b []byte) (*http.Request, []byte) { return r, nil }},
		{"query", func(r *http.Request, b []byte) (*http.Request, []byte) {
			r2 := r.Clone(context.Background())
			r2.RequestURI = strings.Replace(r.RequestURI, "a=1", "a=2", 1)
			return r2, b
		}},
		{"path", func(r *http.Request, b []byte) (*http.Request, []byte) {
			r2 := r.Clone(context.Background())
			r2.RequestURI = strings.Replace(r.RequestURI, "whd_1", "whd_2", 1)
			return r2, b
		}},
		{"method", func(r *http.Request, b []byte) (*http.Request, []byte) {
			r2 := r.Clone(context.Background())
			r2.Method = "PUT"
			return r2, b
		}},
		{"nonce", func(r *http.Request, b []byte) (*http.Request, []byte) {
			r2 := r.Clone(context.Background())
			r2.Header.Set("X-Nonce", r.Header.Get("X-Nonce")+"x")
			return r2, b
		}},
	}
	tx := s.k.Begin()
	defer tx.End()
	key, _ := s.st.keys.Get(tx, DefaultClientID)
	for _, tt := range tests {
		r, b := tt.change(captured, capturedBody)
		if ae := s.wiring.gw.ex.VerifySignature(tx, r, key.key(), b, s.st.clock.Now()); ae == nil || ae.Code != "invalid_signature" {
			t.Errorf("%s changed: verifier answered %v, want invalid_signature", tt.name, ae)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
