package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// nonLoopbackAddrs lists listen addresses beyond loopback on this machine:
// the wildcard addresses and any non-loopback address of an interface.
func nonLoopbackAddrs(t *testing.T) []string {
	t.Helper()
	out := []string{"0.0.0.0:0"}
	if ln, err := net.Listen("tcp", "[::]:0"); err == nil {
		ln.Close()
		out = append(out, "[::]:0")
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
			out = append(out, net.JoinHostPort(ipn.IP.String(), "0"))
			break
		}
	}
	return out
}

// TestServeRefusesAnOpenControlAPI: serve on an address beyond loopback
// without -control-token or -trust-network stops before serving, with a
// usage error (exit status 2) that names both ways out.
func TestServeRefusesAnOpenControlAPI(t *testing.T) {
	t.Parallel()
	for _, addr := range nonLoopbackAddrs(t) {
		var stdout, stderr bytes.Buffer
		served := false
		err := run(context.Background(), []string{"serve", "-addr", addr}, &stdout, &stderr, func(string) { served = true })
		if err == nil || served {
			t.Fatalf("-addr %s: served without a token (err %v)", addr, err)
		}
		if !errors.Is(err, errOpenControl) {
			t.Errorf("-addr %s: %v, want the open-control refusal", addr, err)
		}
		var status bytes.Buffer
		if got := exitStatus(err, &status); got != 2 {
			t.Errorf("-addr %s: exit status %d, want 2", addr, got)
		}
		for _, want := range []string{"beyond loopback", "-control-token", "-trust-network", controlTokenEnv} {
			if !strings.Contains(status.String(), want) {
				t.Errorf("-addr %s: the message lacks %q: %s", addr, want, status.String())
			}
		}
		if strings.Contains(stdout.String(), simulator.DefaultAPIKey) {
			t.Errorf("-addr %s: the banner was printed: %s", addr, stdout.String())
		}
	}
}

// viaLoopback turns the base URL of a wildcard listener into one that
// connects through 127.0.0.1 (the listener is bound to every address).
func viaLoopback(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return "http://127.0.0.1:" + u.Port()
}

// getStatus sends GET base+path with the headers in kv and returns the
// status, the error code and the body.
func getStatus(t *testing.T, base, path string, kv ...string) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var env struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(b, &env)
	if resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("GET %s: no X-Request-Id", path)
	}
	return resp.StatusCode, env.Code, b
}

// TestServeWithAControlToken: on 0.0.0.0 with -control-token the control
// API answers 401 invalid_token without the token and works with it; the
// CLI's own commands (recipes, trigger) work with -control-token and are
// refused without it; the business API keeps its own authentication; the
// banner says a token is required and does not print it.
func TestServeWithAControlToken(t *testing.T) {
	t.Parallel()
	const tok = "ctl-7e1d2c3b4a59"
	base, stop := serveFor(t, "-addr", "0.0.0.0:0", "-control-token", tok)
	local := viaLoopback(t, base)

	if status, code, _ := getStatus(t, local, "/_sim/credentials"); status != 401 || code != "invalid_token" {
		t.Errorf("credentials without the token: %d %s, want 401 invalid_token", status, code)
	}
	if status, code, _ := getStatus(t, local, "/_sim/credentials", simulator.ControlTokenHeader, "guess"); status != 401 || code != "invalid_token" {
		t.Errorf("credentials with another token: %d %s, want 401 invalid_token", status, code)
	}
	status, _, b := getStatus(t, local, "/_sim/credentials", simulator.ControlTokenHeader, tok)
	if status != 200 || !bytes.Contains(b, []byte(simulator.DefaultAPIKey)) {
		t.Errorf("credentials with the token: %d %s", status, b)
	}
	if status, _, _ := getStatus(t, local, "/_sim/ui/"); status != 200 {
		t.Errorf("the dashboard's page: %d, want 200 (its files need no token)", status)
	}

	// The CLI's commands: without the token refused, with it they run.
	ctx := context.Background()
	var out bytes.Buffer
	if err := run(ctx, []string{"recipes", "-url", local, "-run", "request_rejected"}, &out, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "invalid_token") {
		t.Errorf("recipes without the token: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"recipes", "-url", local, "-run", "request_rejected", "-control-token", tok}, &out, io.Discard, nil); err != nil {
		t.Errorf("recipes with the token: %v\n%s", err, out.String())
	}
	if err := run(ctx, []string{"trigger", "card.application.submitted", "-base-url", local}, io.Discard, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "invalid_token") {
		t.Errorf("trigger without the token: %v, want invalid_token", err)
	}
	out.Reset()
	if err := run(ctx, []string{"trigger", "card.status.updated", "-base-url", local, "-control-token", tok}, &out, io.Discard, nil); err != nil {
		t.Errorf("trigger with the token: %v\n%s", err, out.String())
	}

	// The business API: the contract's token, no control token.
	req, _ := http.NewRequest(http.MethodPost, local+"/v1/connect/token", nil)
	req.Header.Set("X-Client-Id", simulator.DefaultClientID)
	req.Header.Set("X-Api-Key", simulator.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("token exchange: %d", resp.StatusCode)
	}

	banner, err := stop()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(banner, "control API     token required in "+simulator.ControlTokenHeader) {
		t.Errorf("the banner does not say a token is required:\n%s", banner)
	}
	if strings.Contains(banner, tok) {
		t.Errorf("the banner prints the control token:\n%s", banner)
	}
}

// TestServeTrustNetworkAndLoopback: -trust-network serves beyond loopback
// without a token and the banner says the control API is open to the
// network; on loopback nothing changes (no token asked, the banner says
// loopback only).
func TestServeTrustNetworkAndLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		banner string
	}{
		{[]string{"-addr", "0.0.0.0:0", "-trust-network"}, "control API     OPEN TO THE NETWORK without a token"},
		{[]string{"-addr", "127.0.0.1:0"}, "control API     loopback only, no token"},
	} {
		base, stop := serveFor(t, tc.args...)
		if status, _, b := getStatus(t, viaLoopback(t, base), "/_sim/credentials"); status != 200 || !bytes.Contains(b, []byte(simulator.DefaultAPIKey)) {
			t.Errorf("%v: credentials %d %s", tc.args, status, b)
		}
		out, err := stop()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, tc.banner) {
			t.Errorf("%v: the banner lacks %q:\n%s", tc.args, tc.banner, out)
		}
	}
}

// TestServeAllowedHosts: the control API refuses a foreign Host (a
// DNS-rebinding page) and answers a name given with -allowed-hosts.
func TestServeAllowedHosts(t *testing.T) {
	t.Parallel()
	base, _ := serveFor(t, "-allowed-hosts", "sim.internal, other.internal")
	u, _ := url.Parse(base)
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"attacker.example:" + u.Port(), 400},
		{"sim.internal:" + u.Port(), 200},
		{"other.internal", 200},
		{"localhost:" + u.Port(), 200},
	} {
		req, _ := http.NewRequest(http.MethodGet, base+"/_sim/credentials", nil)
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("Host %s: %d, want %d", tc.host, resp.StatusCode, tc.status)
		}
	}
}

// TestListenSendsTheControlToken: listen against a simulator that requires
// a control token registers its endpoint with -control-token, removes it when
// stopped, and is refused without the token.
func TestListenSendsTheControlToken(t *testing.T) {
	t.Parallel()
	const tok = "ctl-listen-42"
	sim := simtest.Start(t, simulator.WithControlToken(tok))
	err := run(context.Background(), []string{"listen", "-forward-to", "http://127.0.0.1:1/", "-base-url", sim.URL()}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "invalid_token") {
		t.Errorf("listen without the token: %v, want invalid_token", err)
	}
	stop, out := startListen(t, "-forward-to", "http://127.0.0.1:1/", "-base-url", sim.URL(), "-control-token", tok, "-flush-interval", "0")
	if n := len(sim.Webhooks.Endpoints()); n != 1 {
		t.Errorf("%d webhook endpoints while listening, want 1\n%s", n, out.String())
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if n := len(sim.Webhooks.Endpoints()); n != 0 {
		t.Errorf("%d webhook endpoints after listen stopped, want 0 (removed with the token)\n%s", n, out.String())
	}
}
