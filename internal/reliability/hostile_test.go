package reliability_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// rawCaller sends hand-built requests to a simulator, signed by the
// contract's algorithm, so bodies the SDK would never send can be tried.
type rawCaller struct {
	sim   *simulator.Simulator
	token string
	nonce int
}

func newRawCaller(t *testing.T, sim *simulator.Simulator) *rawCaller {
	t.Helper()
	creds := sim.Credentials()
	req, _ := http.NewRequest(http.MethodPost, sim.URL()+"/v1/connect/token", nil)
	req.Header.Set("X-Client-Id", creds.ClientID)
	req.Header.Set("X-Api-Key", creds.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AuthToken string `json:"auth_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AuthToken == "" {
		t.Fatalf("token: %v", err)
	}
	return &rawCaller{sim: sim, token: tok.AuthToken}
}

// post sends a signed POST with body and returns the status and error code.
func (c *rawCaller) post(t *testing.T, path, member string, body []byte) (int, string) {
	t.Helper()
	c.nonce++
	ts := strconv.FormatInt(c.sim.Clock.Now().Unix(), 10)
	nonce := "hostile-" + strconv.Itoa(c.nonce)
	sum := sha256.Sum256(body)
	mac := hmac.New(sha256.New, []byte(c.sim.Credentials().SigningKey))
	mac.Write([]byte("POST\n" + path + "\n" + ts + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])))
	req, _ := http.NewRequest(http.MethodPost, c.sim.URL()+path, bytes.NewReader(body))
	req.Header.Set("X-Auth-Token", "Bearer "+c.token)
	req.Header.Set("X-Timestamp", ts)
	req.Header.Set("X-Nonce", nonce)
	req.Header.Set("X-Signature", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	req.Header.Set("X-Idempotency-Key", newKey())
	req.Header.Set("X-On-Behalf-Of", member)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	var env struct {
		Code string `json:"code"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	_ = json.Unmarshal(b, &env)
	return resp.StatusCode, env.Code
}

// TestSimulatorRefusesHostileBodies sends garbage, deeply nested JSON, a
// body over 1 MiB, invalid UTF-8, trailing data and wrong types to every
// money-moving endpoint: each is refused with a 400 and changes nothing,
// and the simulator keeps serving (a normal deposit succeeds afterwards).
func TestSimulatorRefusesHostileBodies(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	c := newRawCaller(t, sim)
	const member = simulator.DefaultMemberExternalID
	before := sim.LedgerEntries()
	huge := append([]byte(`{"asset":"USDT","amount":"1","reference":"`), bytes.Repeat([]byte("x"), 1<<20+10)...)
	huge = append(huge, `"}`...)
	bodies := []struct {
		name string
		body []byte
		code string // "" accepts any 400 code
	}{
		{"garbage", []byte("\x00\x01garbage{{{"), "invalid_request"},
		{"truncated", []byte(`{"asset":"USDT","amount":"1`), "invalid_request"},
		{"nested arrays", []byte(strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)), "invalid_request"},
		{"nested objects", []byte(strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)), "invalid_request"},
		{"over 1 MiB", huge, "invalid_request"},
		{"trailing data", []byte(`{"asset":"USDT","amount":"1","reference":"r"} {"x":1}`), "invalid_request"},
		{"wrong types", []byte(`{"asset":["USDT"],"amount":{"v":1},"reference":7}`), ""},
		{"invalid UTF-8", []byte("{\"asset\":\"US\xff\xfeDT\",\"amount\":\"1\",\"reference\":\"r\xc3\x28\"}"), ""},
		{"number amount", []byte(`{"asset":"USDT","amount":1e400,"reference":"r"}`), ""},
		{"null", []byte(`null`), ""},
	}
	paths := []string{"/v1/deposits", "/v1/qrpay/payments", "/v1/qrpay/decode", "/v1/remittances", "/v1/cards/applications", "/v1/remit/payees"}
	tried := 0
	for _, b := range bodies {
		for _, p := range paths {
			status, code := c.post(t, p, member, b.body)
			tried++
			if status != http.StatusBadRequest || (b.code != "" && code != b.code) || code == "" {
				t.Errorf("%s to %s: %d %q, want 400 %s", b.name, p, status, code, b.code)
			}
		}
	}
	if after := sim.LedgerEntries(); len(after) != len(before) {
		t.Errorf("hostile bodies moved money: %d ledger entries, had %d", len(after), len(before))
	}
	// Still serving: a normal signed deposit through the SDK.
	dep, err := sim.Client().Deposits.Create(context.Background(), member, deposits.CreateParams{Asset: "USDT", Amount: usdt("5"), Reference: "after-hostile"})
	if err != nil || dep.ID == "" {
		t.Fatalf("normal deposit after hostile input: %+v, %v", dep, err)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Errorf("CheckLedger: %v", err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Errorf("CheckInvariants: %v", err)
	}
	t.Logf("%d hostile bodies refused with 400, nothing moved, the simulator kept serving", tried)
}

// bigServer answers token exchanges normally and every other request with
// size bytes of JSON whitespace under status, with a Content-Length when
// declare is set (else chunked).
func bigServer(t *testing.T, tokenSize int, status, size int, declare bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/connect/token" && tokenSize == 0 {
			fmt.Fprintf(w, `{"auth_token":"tok_1","expired_at":%d,"token_type":"Bearer"}`, time.Now().Add(time.Hour).Unix())
			return
		}
		n := size
		if r.URL.Path == "/v1/connect/token" {
			n = tokenSize
		}
		if declare {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		w.WriteHeader(status)
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for written := 0; written < n; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestResponsesAreBoundedReads points the client at a server answering
// 50 MiB bodies (a success, an error, a token exchange; chunked or with a
// Content-Length): every call fails cleanly, the client allocates at most
// about twice its 10 MiB limit, and nothing for a body declared too large. It does not
// run in parallel, so the allocation count is its own.
func TestResponsesAreBoundedReads(t *testing.T) {
	const body = 50 << 20
	tests := []struct {
		name      string
		tokenSize int
		status    int
		declare   bool
		maxAlloc  uint64
	}{
		{"50 MiB success body, chunked", 0, http.StatusOK, false, 2*mwallet.MaxResponseBytes + 1<<20},
		{"50 MiB error body, chunked", 0, http.StatusInternalServerError, false, 2*mwallet.MaxResponseBytes + 1<<20},
		{"50 MiB token exchange, chunked", body, http.StatusOK, false, 2*mwallet.MaxResponseBytes + 1<<20},
		{"50 MiB success body, declared", 0, http.StatusOK, true, 1 << 20},
		{"50 MiB token exchange, declared", body, http.StatusOK, true, 1 << 20},
	}
	for _, tt := range tests {
		srv := bigServer(t, tt.tokenSize, tt.status, body, tt.declare)
		c, err := mwclient.New(srv.URL, mwallet.Credentials{ClientID: "c", APIKey: "k", SigningKey: "s"},
			mwallet.WithDefaultMaxAttempts(2), mwallet.WithRetryBackoff(time.Millisecond, time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		var out map[string]any
		_, err = c.Do(context.Background(), &mwallet.Request{Method: http.MethodGet, Path: "/v1/x"}, &out)
		runtime.ReadMemStats(&m1)
		alloc := m1.TotalAlloc - m0.TotalAlloc
		if err == nil {
			t.Errorf("%s: no error", tt.name)
		} else if tt.status == http.StatusOK && !strings.Contains(err.Error(), "larger than") {
			t.Errorf("%s: %v, want the body limit error", tt.name, err)
		}
		// The limit is 10 MiB (MaxResponseBytes): reading stops there, and a
		// body declared larger is not read at all.
		if alloc > tt.maxAlloc {
			t.Errorf("%s: the client allocated %.1f MiB for a %d MiB body, want at most %.1f MiB", tt.name, float64(alloc)/(1<<20), body>>20, float64(tt.maxAlloc)/(1<<20))
		}
		t.Logf("%s: %v; allocated %.1f MiB", tt.name, err, float64(alloc)/(1<<20))
	}
}

// TestWebhookHandlerBoundsBodies sends a 50 MiB delivery to the webhook
// Handler: it answers 413 without reading it all, and serves the next
// delivery.
func TestWebhookHandlerBoundsBodies(t *testing.T) {
	t.Parallel()
	calls := 0
	h := webhooks.Handler("whsec_test", func(context.Context, webhooks.Event) error { calls++; return nil })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	pr, pw := io.Pipe()
	go func() {
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for i := 0; i < 800; i++ { // 50 MiB
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
		_ = pw.Close()
	}()
	resp, err := http.Post(srv.URL, "application/json", pr)
	if err != nil && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("POST: %v", err)
	}
	if resp != nil {
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("50 MiB delivery: %d, want 413", resp.StatusCode)
		}
	}
	_ = pr.Close()
	body := []byte(`{"event_id":"evt_1","event_type":"member.created","data":{"object":"member","id":"u1"}}`)
	now := time.Now().Unix()
	mac := hmac.New(sha256.New, []byte("whsec_test"))
	mac.Write([]byte(strconv.FormatInt(now, 10) + "."))
	mac.Write(body)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
	req.Header.Set(webhooks.SignatureHeader, fmt.Sprintf("t=%d,v1=%s", now, base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || calls != 1 {
		t.Errorf("normal delivery after the big one: %d, %d calls", resp.StatusCode, calls)
	}
}

// TestPlainHTTPOutsideLoopbackWarns checks that TLS stays the default: a
// plain-http base URL on another host is accepted with a warning, on a
// loopback host silently, and any other scheme is refused.
func TestPlainHTTPOutsideLoopbackWarns(t *testing.T) {
	t.Parallel()
	creds := mwallet.Credentials{ClientID: "c", APIKey: "k", SigningKey: "s"}
	tests := []struct {
		url     string
		warn    bool
		refused bool
	}{
		{"https://api.example.com", false, false},
		{"http://api.example.com", true, false},
		{"http://10.0.0.8:8080", true, false},
		{"http://127.0.0.1:8080", false, false},
		{"http://localhost:8080", false, false},
		{"ftp://api.example.com", false, true},
		{"api.example.com", false, true},
	}
	for _, tt := range tests {
		logs := &syncBuffer{}
		_, err := mwclient.New(tt.url, creds, mwallet.WithLogger(slogText(logs)))
		if (err != nil) != tt.refused {
			t.Errorf("%s: error %v, refused want %v", tt.url, err, tt.refused)
		}
		if warned := strings.Contains(logs.String(), "plain http"); warned != tt.warn {
			t.Errorf("%s: warned %v, want %v (%s)", tt.url, warned, tt.warn, logs.String())
		}
	}
}
