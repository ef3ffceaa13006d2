package simulator_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// raw drives a simulator over plain net/http with hand-signed requests, so
// every gateway rule is checked without the SDK in between.
type raw struct {
	t     testing.TB
	sim   *simulator.Simulator
	hc    *http.Client
	creds simulator.Credentials
	nonce atomic.Int64
}

// newRaw starts a simulator for t and a raw client for it.
func newRaw(t *testing.T, opts ...simulator.Option) (*simulator.Simulator, *raw) {
	t.Helper()
	sim := simtest.Start(t, opts...)
	// A fresh connection per request: net/http silently resends a request
	// carrying X-Idempotency-Key when a reused connection drops, which would
	// hide the dropped-connection faults under test.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return sim, &raw{t: t, sim: sim, hc: hc, creds: sim.Credentials()}
}

// result is one HTTP answer, or the transport error.
type result struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
	err    error
}

func (r result) code() string {
	if r.err != nil {
		return "transport: " + r.err.Error()
	}
	c, _ := r.body["code"].(string)
	return c
}

func (r result) String() string {
	if r.err != nil {
		return "transport error: " + r.err.Error()
	}
	return fmt.Sprintf("%d %s", r.status, r.raw)
}

// send sends the given request, with Content-Type application/json on a
// write with a body unless h names Content-Type (an empty list sends none).
func (c *raw) send(method, target string, body []byte, h http.Header) result {
	c.t.Helper()
	req, err := http.NewRequest(method, c.sim.URL()+target, bytes.NewReader(body))
	if err != nil {
		c.t.Fatalf("NewRequest: %v", err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if _, named := h["Content-Type"]; !named && len(body) > 0 && method != http.MethodGet && method != http.MethodHead {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{err: err}
	}
	out := result{status: resp.StatusCode, header: resp.Header, raw: b}
	_ = json.Unmarshal(b, &out.body)
	return out
}

// exchangeToken runs the token exchange with the given credentials.
func (c *raw) exchangeToken(clientID, apiKey string) result {
	c.t.Helper()
	h := http.Header{}
	if clientID != "" {
		h.Set("X-Client-Id", clientID)
	}
	if apiKey != "" {
		h.Set("X-Api-Key", apiKey)
	}
	return c.send(http.MethodPost, "/v1/connect/token", nil, h)
}

// token obtains a token for the fixture Key.
func (c *raw) token() string {
	c.t.Helper()
	r := c.exchangeToken(c.creds.ClientID, c.creds.APIKey)
	tok, _ := r.body["auth_token"].(string)
	if r.status != http.StatusOK || tok == "" {
		c.t.Fatalf("token exchange: %v", r)
	}
	return tok
}

// sign computes x-signature as the contract defines it.
func sign(signingKey, method, target, ts, nonce string, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, []byte(signingKey))
	m.Write([]byte(method + "\n" + target + "\n" + ts + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// nextNonce returns a fresh nonce.
func (c *raw) nextNonce() string { return "nonce-" + strconv.FormatInt(c.nonce.Add(1), 10) }

// authed returns headers carrying tok.
func authed(tok string) http.Header {
	h := http.Header{}
	h.Set("X-Auth-Token", "Bearer "+tok)
	return h
}

// signed adds a valid signature for method, target and body, at the
// simulator's clock, to h (which it returns).
func (c *raw) signed(h http.Header, method, target string, body []byte) http.Header {
	ts := strconv.FormatInt(c.sim.Clock.Now().Unix(), 10)
	nonce := c.nextNonce()
	h.Set("X-Timestamp", ts)
	h.Set("X-Nonce", nonce)
	h.Set("X-Signature", sign(c.creds.SigningKey, method, target, ts, nonce, body))
	return h
}

// write sends a signed write with a token, member and idempotency key (empty
// values are left out), and Content-Type application/json with a body.
func (c *raw) write(tok, method, target, member, idemKey string, body []byte) result {
	c.t.Helper()
	h := authed(tok)
	if member != "" {
		h.Set("X-On-Behalf-Of", member)
	}
	if idemKey != "" {
		h.Set("X-Idempotency-Key", idemKey)
	}
	if len(body) > 0 {
		h.Set("Content-Type", "application/json")
	}
	return c.send(method, target, body, c.signed(h, method, target, body))
}

// get sends an authenticated GET.
func (c *raw) get(tok, target, member string) result {
	c.t.Helper()
	h := authed(tok)
	if member != "" {
		h.Set("X-On-Behalf-Of", member)
	}
	return c.send(http.MethodGet, target, nil, h)
}

// control calls the control API and decodes the answer.
func (c *raw) control(method, path string, in any) result {
	c.t.Helper()
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			c.t.Fatalf("marshal: %v", err)
		}
	}
	return c.send(method, path, body, http.Header{"Content-Type": {"application/json"}})
}

// mustControl calls the control API and fails the test unless it answers 2xx.
func (c *raw) mustControl(method, path string, in any) result {
	c.t.Helper()
	r := c.control(method, path, in)
	if r.err != nil || r.status/100 != 2 {
		c.t.Fatalf("%s %s: %v", method, path, r)
	}
	return r
}

// uuidN returns a distinct UUID-shaped idempotency key.
func uuidN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// depositBody is a deposit of amount USDT with reference ref.
func depositBody(ref, amount string) []byte {
	return []byte(`{"asset":"USDT","amount":"` + amount + `","reference":"` + ref + `"}`)
}

// balance returns the member's available balance in asset as a string, or
// the error for a member the simulator does not have.
func balance(sim *simulator.Simulator, member, asset string) string {
	a, _, err := sim.Members.Balance(member, asset)
	if err != nil {
		return err.Error()
	}
	return a.String()
}

// wantCode fails unless r answered status with the error code.
func wantCode(t *testing.T, r result, status int, code string) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("want %d %s, got %v", status, code, r)
	}
	if r.status != status || r.code() != code {
		t.Fatalf("want %d %s, got %v", status, code, r)
	}
	checkEnvelope(t, r)
}

// checkEnvelope checks the error envelope: type matching the status, code,
// message, request_id equal to X-Request-Id.
func checkEnvelope(t *testing.T, r result) {
	t.Helper()
	types := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found", 409: "idempotency_error", 429: "rate_limit_error", 500: "api_error", 502: "upstream_error", 504: "upstream_timeout"}
	if got := r.body["type"]; got != types[r.status] {
		t.Errorf("type = %v, want %q for %d", got, types[r.status], r.status)
	}
	if msg, _ := r.body["message"].(string); strings.TrimSpace(msg) == "" {
		t.Errorf("empty message in %s", r.raw)
	}
	rid := r.header.Get("X-Request-Id")
	if rid == "" {
		t.Errorf("no X-Request-Id header")
	}
	if r.header.Get("X-Idempotent-Replay") == "" && r.body["request_id"] != rid {
		t.Errorf("request_id %v differs from X-Request-Id %q", r.body["request_id"], rid)
	}
}

// wantStatus fails unless r answered status.
func wantStatus(t *testing.T, r result, status int) {
	t.Helper()
	if r.err != nil || r.status != status {
		t.Fatalf("want %d, got %v", status, r)
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Errorf("no X-Request-Id header")
	}
}
