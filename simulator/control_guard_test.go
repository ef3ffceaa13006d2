package simulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// guardReq is one request of the control guard's table.
type guardReq struct {
	name    string
	method  string
	path    string
	host    string // "" keeps the simulator's own address
	body    string
	header  map[string]string
	status  int
	code    string // the refusal's code; "" for an answer that is served
	changes bool   // a served write that changes the state
}

// sendGuard sends r to sim over HTTP and decodes the answer.
func sendGuard(t *testing.T, sim *simulator.Simulator, r guardReq) result {
	t.Helper()
	req, err := http.NewRequest(r.method, sim.URL()+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.host != "" {
		req.Host = r.host
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := result{status: resp.StatusCode, header: resp.Header, raw: b}
	_ = json.Unmarshal(b, &out.body)
	return out
}

// TestControlGuard holds the control API to its rules (control_guard.go)
// over a real connection: the DNS-rebinding read (a foreign Host), the
// cross-site writes a browser sends without asking (text/plain, a form, no
// type, a foreign or null Origin) are refused and change nothing; the
// loopback names, IP addresses, an allowed name, the dashboard's own
// same-origin write and the CLI's Origin-less JSON write are served; the
// business API answers any Host by its own rules.
func TestControlGuard(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t, simulator.WithAllowedHosts("sim.test"))
	u, _ := url.Parse(sim.URL())
	port := u.Port()
	self := "http://" + u.Host
	json := map[string]string{"Content-Type": "application/json"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	freeze := `{"status":"frozen"}`
	cases := []guardReq{
		// Rule 1: Host.
		{name: "rebinding read of the credentials", method: "GET", path: "/_sim/credentials", host: "attacker.example:" + port, status: 400, code: "invalid_request"},
		{name: "rebinding name without port", method: "GET", path: "/_sim/credentials", host: "attacker.example", status: 400, code: "invalid_request"},
		{name: "rebinding write", method: "POST", path: "/_sim/merchant", host: "attacker.example:" + port, body: freeze, header: json, status: 400, code: "invalid_request"},
		{name: "a name ending in localhost but not under it", method: "GET", path: "/_sim/credentials", host: "evillocalhost:" + port, status: 400, code: "invalid_request"},
		{name: "localhost", method: "GET", path: "/_sim/credentials", host: "localhost:" + port, status: 200},
		{name: "LOCALHOST. (case, trailing dot)", method: "GET", path: "/_sim/credentials", host: "LOCALHOST.:" + port, status: 200},
		{name: "a name under .localhost", method: "GET", path: "/_sim/credentials", host: "app.localhost:" + port, status: 200},
		{name: "IPv4 loopback", method: "GET", path: "/_sim/credentials", host: "127.0.0.1:" + port, status: 200},
		{name: "IPv6 loopback", method: "GET", path: "/_sim/credentials", host: "[::1]:" + port, status: 200},
		{name: "another address of the machine", method: "GET", path: "/_sim/credentials", host: "10.0.0.7:" + port, status: 200},
		{name: "a name allowed by WithAllowedHosts", method: "GET", path: "/_sim/credentials", host: "sim.test:" + port, status: 200},
		{name: "the dashboard's files answer only for allowed hosts", method: "GET", path: "/_sim/ui/", host: "attacker.example:" + port, status: 400, code: "invalid_request"},
		// Rule 3: the type of a control write.
		{name: "cross-site text/plain POST", method: "POST", path: "/_sim/merchant", body: freeze, header: with("Content-Type", "text/plain", "Origin", "https://attacker.example"), status: 400, code: "invalid_request"},
		{name: "text/plain POST without Origin", method: "POST", path: "/_sim/merchant", body: freeze, header: with("Content-Type", "text/plain;charset=UTF-8"), status: 400, code: "invalid_request"},
		{name: "form POST", method: "POST", path: "/_sim/merchant", body: "status=frozen", header: with("Content-Type", "application/x-www-form-urlencoded"), status: 400, code: "invalid_request"},
		{name: "multipart POST", method: "POST", path: "/_sim/merchant", body: freeze, header: with("Content-Type", "multipart/form-data; boundary=x"), status: 400, code: "invalid_request"},
		{name: "a body without a type", method: "POST", path: "/_sim/merchant", body: freeze, status: 400, code: "invalid_request"},
		{name: "a bodyless write that says text/plain", method: "POST", path: "/_sim/webhooks/flush", header: with("Content-Type", "text/plain"), status: 400, code: "invalid_request"},
		{name: "a bodyless write from another site", method: "POST", path: "/_sim/webhooks/flush", header: with("Origin", "https://attacker.example"), status: 400, code: "invalid_request"},
		{name: "a bodyless write from a sandboxed page", method: "DELETE", path: "/_sim/faults", header: with("Origin", "null"), status: 400, code: "invalid_request"},
		{name: "a bodyless write without a type (a generated client's)", method: "DELETE", path: "/_sim/faults", status: 200},
		{name: "a bodyless POST without a type", method: "POST", path: "/_sim/webhooks/flush", status: 200},
		// Rule 4: Origin.
		{name: "JSON POST from another site", method: "POST", path: "/_sim/merchant", body: freeze, header: with("Content-Type", "application/json", "Origin", "https://attacker.example"), status: 400, code: "invalid_request"},
		{name: "JSON POST from a sandboxed page (Origin null)", method: "POST", path: "/_sim/merchant", body: freeze, header: with("Content-Type", "application/json", "Origin", "null"), status: 400, code: "invalid_request"},
		{name: "JSON POST from the same host on another port", method: "POST", path: "/_sim/merchant", body: freeze, header: with("Content-Type", "application/json", "Origin", "http://127.0.0.1:1"), status: 400, code: "invalid_request"},
		// Served.
		{name: "the router's own not_found is unchanged", method: "PUT", path: "/_sim/merchant", status: 404, code: "not_found"},
		{name: "the dashboard's same-origin write", method: "POST", path: "/_sim/clock", body: `{"advance_seconds":1}`, header: with("Content-Type", "application/json", "Origin", self), status: 200, changes: true},
		{name: "the CLI's JSON write (no Origin)", method: "POST", path: "/_sim/clock", body: `{"advance_seconds":1}`, header: json, status: 200, changes: true},
		{name: "a JSON write with charset", method: "POST", path: "/_sim/webhooks/auto", body: `{"enabled":false}`, header: with("Content-Type", "application/json; charset=utf-8"), status: 200, changes: true},
	}
	for _, r := range cases {
		before := fingerprint(t, sim)
		got := sendGuard(t, sim, r)
		if got.status != r.status || got.code() != r.code {
			t.Errorf("%s: %d %q, want %d %q: %s", r.name, got.status, got.code(), r.status, r.code, got.raw)
		}
		if got.header.Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", r.name)
		}
		if r.code != "" && bytes.Contains(got.raw, []byte(c.creds.APIKey)) {
			t.Errorf("%s: a refusal carries the API key: %s", r.name, got.raw)
		}
		if !r.changes {
			unchanged(t, sim, before)
		}
	}

	// The business API keeps the contract's rules, whatever the Host.
	tok := c.token()
	biz := guardReq{name: "business read, foreign Host", method: "GET", path: "/v1/assets", host: "attacker.example", header: with("X-Auth-Token", "Bearer "+tok)}
	if r := sendGuard(t, sim, biz); r.status != 200 {
		t.Errorf("%s: %v", biz.name, r)
	}
	biz = guardReq{name: "business read, no token", method: "GET", path: "/v1/assets", host: "attacker.example"}
	wantCode(t, sendGuard(t, sim, biz), 401, "invalid_token")
}

// TestControlToken: with WithControlToken every control route but the
// dashboard's files answers 401 invalid_token without the token (or with
// another, or with it twice) and works with it; the business API does not
// ask for it; the refusal does not echo the token.
func TestControlToken(t *testing.T) {
	t.Parallel()
	const secret = "ctl-9f8e7d6c5b4a"
	sim, c := newRaw(t, simulator.WithControlToken(secret))
	tokenH := func(vals ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		for _, v := range vals {
			h.Add(simulator.ControlTokenHeader, v)
		}
		return h
	}
	before := fingerprint(t, sim)
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   string
		h      http.Header
		status int
		code   string
	}{
		{"credentials without the token", "GET", "/_sim/credentials", "", tokenH(), 401, "invalid_token"},
		{"credentials with another token", "GET", "/_sim/credentials", "", tokenH("wrong"), 401, "invalid_token"},
		{"credentials with the token twice", "GET", "/_sim/credentials", "", tokenH(secret, secret), 401, "invalid_token"},
		{"recording without the token", "GET", "/_sim/recording", "", tokenH(), 401, "invalid_token"},
		{"clock write without the token", "POST", "/_sim/clock", `{"advance_seconds":60}`, tokenH(), 401, "invalid_token"},
		{"action without the token", "POST", "/_sim/merchant/prepaid/topup", `{"asset":"USDT","amount":"1"}`, tokenH(), 401, "invalid_token"},
		{"an unknown control path without the token", "GET", "/_sim/nothing", "", tokenH(), 401, "invalid_token"},
		{"the dashboard's page needs none", "GET", "/_sim/ui/", "", tokenH(), 200, ""},
		{"the dashboard's script needs none", "GET", "/_sim/ui/app.js", "", tokenH(), 200, ""},
		{"the dashboard's state needs it", "GET", "/_sim/state", "", tokenH(), 401, "invalid_token"},
		{"credentials with the token", "GET", "/_sim/credentials", "", tokenH(secret), 200, ""},
	} {
		r := c.send(tc.method, tc.path, []byte(tc.body), tc.h)
		if r.status != tc.status || r.code() != tc.code {
			t.Errorf("%s: %d %q, want %d %q: %s", tc.name, r.status, r.code(), tc.status, tc.code, r.raw)
		}
		if strings.Contains(string(r.raw), secret) {
			t.Errorf("%s: the answer carries the control token", tc.name)
		}
		if tc.status == 401 && strings.Contains(string(r.raw), c.creds.APIKey) {
			t.Errorf("%s: a refusal carries the API key", tc.name)
		}
	}
	unchanged(t, sim, before)
	r := c.send("POST", "/_sim/clock", []byte(`{"advance_seconds":60}`), tokenH(secret))
	wantStatus(t, r, 200)
	if got := sim.Clock.Now(); !got.Equal(simulator.DefaultStart.Add(60e9)) {
		t.Errorf("clock %s after the write with the token", got)
	}
	// The business API keeps its own authentication only.
	wantStatus(t, c.get(c.token(), "/v1/assets", ""), 200)
	// The recording keeps the control write, never the token.
	rec := c.send("GET", "/_sim/recording", nil, tokenH(secret))
	wantStatus(t, rec, 200)
	if !strings.Contains(string(rec.raw), `"/_sim/clock"`) || strings.Contains(string(rec.raw), secret) {
		t.Errorf("recording: the clock write missing or the token kept:\n%s", rec.raw)
	}
	// It replays to the same state without the token.
	recording, err := simulator.ReadRecording(bytes.NewReader(rec.raw))
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := simulator.New(simulator.WithRecording(recording))
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	t.Cleanup(replayed.Close)
	want, _ := sim.Digest()
	if got, _ := replayed.Digest(); got != want {
		t.Errorf("replayed digest %s, want %s", got, want)
	}
}

// TestRecipeRunnerSendsTheControlToken runs a recipe whose steps use the
// control API against a simulator that requires a token: without
// ControlToken the first control call is refused, with it the recipe runs
// as documented.
func TestRecipeRunnerSendsTheControlToken(t *testing.T) {
	t.Parallel()
	var recipe simulator.ErrorRecipe
	for _, r := range simulator.ErrorRecipes() {
		if r.Code == "request_rejected" {
			recipe = r
		}
	}
	if recipe.Code == "" || recipe.Steps[0].Call != "control" {
		t.Fatalf("recipe request_rejected not found or not starting with a control step: %+v", recipe)
	}
	ctx := context.Background()
	sim, _ := newRaw(t, simulator.WithControlToken("tok-recipes"))
	if _, err := (&simulator.RecipeRunner{BaseURL: sim.URL()}).Run(ctx, recipe); err == nil || !strings.Contains(err.Error(), "invalid_token") {
		t.Errorf("without the token: %v, want a refusal naming invalid_token", err)
	}
	sim2, _ := newRaw(t, simulator.WithControlToken("tok-recipes"))
	res, err := (&simulator.RecipeRunner{BaseURL: sim2.URL(), ControlToken: "tok-recipes"}).Run(ctx, recipe)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{recipe.Expect.Status, recipe.Expect.Code}, []any{res.Status, res.Code}); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

// TestControlGuardOverHTTP2 checks the guard on a simulator serving HTTPS
// with HTTP/2 (its own server, not httptest's): the rebinding Host and the
// text/plain write are refused there too, and a JSON write is served.
func TestControlGuardOverHTTP2(t *testing.T) {
	t.Parallel()
	sim, _ := newRaw(t, simulator.WithHTTP2())
	hc := sim.HTTPClient()
	send := func(method, path, host, ct, body string) (int, string, string) {
		req, err := http.NewRequest(method, sim.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct {
			Code string `json:"code"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&env)
		return resp.StatusCode, env.Code, resp.Proto
	}
	if st, code, proto := send("GET", "/_sim/credentials", "attacker.example", "", ""); st != 400 || code != "invalid_request" || proto != "HTTP/2.0" {
		t.Errorf("rebinding read over %s: %d %s, want 400 invalid_request over HTTP/2.0", proto, st, code)
	}
	if st, code, _ := send("POST", "/_sim/clock", "", "text/plain", `{"advance_seconds":60}`); st != 400 || code != "invalid_request" {
		t.Errorf("text/plain write: %d %s, want 400 invalid_request", st, code)
	}
	if st, _, _ := send("POST", "/_sim/clock", "", "application/json", `{"advance_seconds":60}`); st != 200 {
		t.Errorf("JSON write: %d, want 200", st)
	}
	if got := sim.Clock.Now(); !got.Equal(simulator.DefaultStart.Add(60e9)) {
		t.Errorf("clock %s, want one minute after the start", got)
	}
}
