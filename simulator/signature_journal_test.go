package simulator_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mwallet/mwallet-go/simulator"
)

// A refused signature is explained in the request journal, over the Go API
// and GET /_sim/requests: the canonical string and body hash the simulator
// computed, the clock it checked the timestamp against, the skew and what
// failed. The answer is the contract's unchanged (status, code, message,
// the plain envelope), and no secret reaches the journal: not the signing
// key, the API key, the token, the x-signature sent or the one expected.
// Every refusal of the signature check is a row; the rows that pass the
// check (a valid signature, and refusals after it) carry no explanation.
func TestRefusedSignatureIsExplainedInTheJournal(t *testing.T) {
	t.Parallel()
	type row struct {
		name    string
		target  string // default /v1/deposits
		mutate  func(c *raw, h http.Header, target string, body []byte)
		status  int
		code    string
		message string
		problem string // part of Signature.Problem; empty: no explanation
		skew    *int64 // want Signature.SkewSeconds
	}
	i64 := func(v int64) *int64 { return &v }
	at := func(c *raw, d time.Duration) string { return strconv.FormatInt(c.sim.Clock.Now().Add(d).Unix(), 10) }
	resign := func(c *raw, h http.Header, method, target string, body []byte) {
		h.Set("X-Signature", sign(c.creds.SigningKey, method, target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body))
	}
	const missing = "x-timestamp, x-nonce and x-signature are required on signed requests"
	rows := []row{
		{name: "missing timestamp", mutate: func(_ *raw, h http.Header, _ string, _ []byte) { h.Del("X-Timestamp") },
			status: 401, code: "invalid_signature", message: missing, problem: "missing x-timestamp"},
		{name: "missing nonce", mutate: func(_ *raw, h http.Header, _ string, _ []byte) { h.Del("X-Nonce") },
			status: 401, code: "invalid_signature", message: missing, problem: "missing x-nonce", skew: i64(0)},
		{name: "missing signature", mutate: func(_ *raw, h http.Header, _ string, _ []byte) { h.Del("X-Signature") },
			status: 401, code: "invalid_signature", message: missing, problem: "missing x-signature", skew: i64(0)},
		{name: "missing all three", mutate: func(_ *raw, h http.Header, _ string, _ []byte) {
			h.Del("X-Timestamp")
			h.Del("X-Nonce")
			h.Del("X-Signature")
		}, status: 401, code: "invalid_signature", message: missing, problem: "missing x-timestamp, x-nonce, x-signature"},
		{name: "timestamp not digits", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", "2026-01-01T00:00:00Z")
			resign(c, h, "POST", target, body)
		}, status: 401, code: "invalid_signature", message: "x-timestamp must be Unix seconds", problem: "not Unix seconds"},
		{name: "milliseconds", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", strconv.FormatInt(c.sim.Clock.Now().UnixMilli(), 10))
			resign(c, h, "POST", target, body)
		}, status: 401, code: "timestamp_out_of_range", message: "x-timestamp is more than 300 seconds from the server clock",
			problem: "milliseconds instead of seconds?"},
		{name: "301 s behind", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", at(c, -301*time.Second))
			resign(c, h, "POST", target, body)
		}, status: 401, code: "timestamp_out_of_range", message: "x-timestamp is more than 300 seconds from the server clock",
			problem: "x-timestamp is 301 s behind the simulator clock", skew: i64(-301)},
		{name: "an hour ahead", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", at(c, time.Hour))
			resign(c, h, "POST", target, body)
		}, status: 401, code: "timestamp_out_of_range", message: "x-timestamp is more than 300 seconds from the server clock",
			problem: "x-timestamp is 3600 s ahead of the simulator clock", skew: i64(3600)},
		{name: "hex signature", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Signature", hexOfBase64(t, sign(c.creds.SigningKey, "POST", target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body)))
		}, status: 401, code: "invalid_signature", message: "signature mismatch", problem: "a hex HMAC?", skew: i64(0)},
		{name: "base64 of 16 bytes", mutate: func(_ *raw, h http.Header, _ string, _ []byte) {
			h.Set("X-Signature", "AAAAAAAAAAAAAAAAAAAAAA==")
		}, status: 401, code: "invalid_signature", message: "signature mismatch", problem: "decodes to 16 bytes", skew: i64(0)},
		{name: "signed with the api key", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Signature", sign(c.creds.APIKey, "POST", target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body))
		}, status: 401, code: "invalid_signature", message: "signature mismatch", problem: "not the HMAC-SHA-256 of canonical_string", skew: i64(0)},
		{name: "query reordered in the signature", target: "/v1/deposits?b=2&a=1", mutate: func(c *raw, h http.Header, _ string, body []byte) {
			resign(c, h, "POST", "/v1/deposits?a=1&b=2", body)
		}, status: 401, code: "invalid_signature", message: "signature mismatch", problem: "not the HMAC-SHA-256", skew: i64(0)},
		{name: "body re-serialised", mutate: func(c *raw, h http.Header, target string, body []byte) {
			resign(c, h, "POST", target, append([]byte(" "), body...))
		}, status: 401, code: "invalid_signature", message: "signature mismatch", problem: "not the HMAC-SHA-256", skew: i64(0)},
		// Past the signature check: nothing to explain.
		{name: "valid", status: 201},
		{name: "valid, then refused for the member", mutate: func(_ *raw, h http.Header, _ string, _ []byte) { h.Del("X-On-Behalf-Of") },
			status: 400, code: "member_context_required", message: "x-on-behalf-of is required"},
	}
	for i, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			// The simulator clock is away from the wall clock, as under
			// -clock manual: the journal shows the clock it used.
			sim.Clock.Advance(90 * time.Minute)
			tok := c.token()
			target := tt.target
			if target == "" {
				target = "/v1/deposits"
			}
			body := depositBody(fmt.Sprintf("sig-%d", i), "2.5")
			h := authed(tok)
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", uuidN(i))
			c.signed(h, "POST", target, body)
			if tt.mutate != nil {
				tt.mutate(c, h, target, body)
			}
			r := c.send("POST", target, body, h)
			if tt.code == "" {
				wantStatus(t, r, tt.status)
			} else {
				wantCode(t, r, tt.status, tt.code)
				// The answer is the contract's envelope, nothing more.
				want := map[string]any{"type": r.body["type"], "code": tt.code, "message": tt.message, "request_id": r.header.Get("X-Request-Id")}
				if diff := cmp.Diff(want, r.body); diff != "" {
					t.Errorf("answer (-want +got):\n%s", diff)
				}
			}

			recs := sim.Requests.List()
			last := recs[len(recs)-1]
			ctl := c.mustControl("GET", "/_sim/requests", nil)
			var overHTTP struct{ Data []simulator.RequestRecord }
			if err := json.Unmarshal(ctl.raw, &overHTTP); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recs, overHTTP.Data, cmpopts.EquateApproxTime(0)); diff != "" {
				t.Errorf("GET /_sim/requests differs from sim.Requests.List (-go +http):\n%s", diff)
			}
			if tt.problem == "" {
				if last.Signature != nil {
					t.Errorf("explanation on a request past the signature check: %+v", last.Signature)
				}
				return
			}
			sum := sha256.Sum256(body)
			bodyHash := hex.EncodeToString(sum[:])
			now := sim.Clock.Now()
			want := &simulator.SignatureCheck{
				Problem:          last.Signature.Problem,
				CanonicalString:  "POST\n" + target + "\n" + h.Get("X-Timestamp") + "\n" + h.Get("X-Nonce") + "\n" + bodyHash,
				BodySHA256:       bodyHash,
				BodyBytes:        len(body),
				Timestamp:        h.Get("X-Timestamp"),
				Clock:            now,
				ClockUnix:        now.Unix(),
				SkewSeconds:      tt.skew,
				ToleranceSeconds: 300,
			}
			if tt.name == "milliseconds" {
				want.SkewSeconds = last.Signature.SkewSeconds // checked by its problem
			}
			if diff := cmp.Diff(want, last.Signature, cmpopts.EquateApproxTime(0)); diff != "" {
				t.Errorf("explanation (-want +got):\n%s", diff)
			}
			if !strings.Contains(last.Signature.Problem, tt.problem) {
				t.Errorf("problem %q, want it to say %q", last.Signature.Problem, tt.problem)
			}
			if last.Code != tt.code || last.Status != tt.status {
				t.Errorf("journal row %d %s, want %d %s", last.Status, last.Code, tt.status, tt.code)
			}
			expected := sign(c.creds.SigningKey, "POST", target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body)
			secrets := map[string]string{"signing key": c.creds.SigningKey, "API key": c.creds.APIKey, "token": tok,
				"webhook secret": c.creds.WebhookSecret, "expected signature": expected}
			if s := h.Get("X-Signature"); s != "" {
				secrets["signature sent"] = s
			}
			goJSON, _ := json.Marshal(recs)
			for _, blob := range []string{string(goJSON), string(ctl.raw)} {
				for what, secret := range secrets {
					if strings.Contains(blob, secret) || strings.Contains(blob, strings.ReplaceAll(secret, "/", `\/`)) {
						t.Errorf("the journal holds the %s", what)
					}
				}
			}
		})
	}
}

// The explanation of a refused signature is part of the state: a restart on
// the data directory (from a snapshot and from the log alone) and a replay
// of the recording give the same journal rows, explanation included.
func TestRefusedSignatureSurvivesRestartAndReplay(t *testing.T) {
	t.Parallel()
	for _, every := range []int{0, 1} {
		t.Run(fmt.Sprintf("snapshot every %d", every), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var diag bytes.Buffer
			sim := openDir(t, dir, &diag, simulator.WithSnapshotEvery(every))
			c := rawFor(t, sim)
			tok := c.token()
			body := depositBody("restart", "1")
			for i, ts := range []string{"", "1767225000", strconv.FormatInt(sim.Clock.Now().Unix(), 10)} {
				h := authed(tok)
				h.Set("X-On-Behalf-Of", member1)
				h.Set("X-Idempotency-Key", uuidN(i))
				c.signed(h, "POST", "/v1/deposits", body)
				h.Set("X-Timestamp", ts)
				if ts == "" {
					h.Del("X-Timestamp")
				}
				h.Set("X-Signature", "AAAA")
				if r := c.send("POST", "/v1/deposits", body, h); r.status != http.StatusUnauthorized {
					t.Fatalf("request %d: %v", i, r)
				}
			}
			before := sim.Requests.List()
			if n := len(before); n != 4 || before[1].Signature == nil || before[2].Signature.SkewSeconds == nil {
				t.Fatalf("journal before the restart: %+v", before)
			}
			sim.Close()
			again := openDir(t, dir, &diag)
			t.Cleanup(again.Close)
			if diff := cmp.Diff(before, again.Requests.List(), cmpopts.EquateApproxTime(0)); diff != "" {
				t.Errorf("journal after the restart (-before +after):\n%s", diff)
			}
			sameState(t, again, replayOf(t, again))
		})
	}
}
