package simulator_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// rawLine sends one HTTP/1.1 request line as written (no client cleaning)
// and returns the answer.
func rawLine(t *testing.T, sim *simulator.Simulator, method, target string, h http.Header) result {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(sim.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
	for k, vs := range h {
		for _, v := range vs {
			req += k + ": " + v + "\r\n"
		}
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(newBufReader(conn), &http.Request{Method: method})
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := result{status: resp.StatusCode, header: resp.Header, raw: b}
	_ = jsonUnmarshal(b, &out.body)
	return out
}

// routerAnswer checks one answer of the router: the status, the JSON error
// envelope (for bodies), X-Request-Id, Content-Type and no redirect.
func routerAnswer(t *testing.T, what string, r result, status int, code string) {
	t.Helper()
	if r.err != nil {
		t.Errorf("%s: %v", what, r.err)
		return
	}
	if r.status != status {
		t.Errorf("%s: status %d, want %d (%s)", what, r.status, status, r.raw)
		return
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Errorf("%s: no X-Request-Id", what)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", what, ct)
	}
	if loc := r.header.Get("Location"); loc != "" {
		t.Errorf("%s: redirected to %q", what, loc)
	}
	if code == "" {
		return
	}
	if r.code() != code {
		t.Errorf("%s: code %q, want %q (%s)", what, r.code(), code, r.raw)
		return
	}
	checkEnvelope(t, r)
}

// TestRouterOddities sends path and method oddities to the business API
// and to the control API, as raw request lines: every answer is the JSON
// envelope with X-Request-Id, never a redirect.
func TestRouterOddities(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	auth := authed(tok)
	auth.Set("X-On-Behalf-Of", member1)
	tests := []struct {
		method, target string
		status         int
		code           string
		allow          string // the Allow header wanted ("" for none)
	}{
		// Non-canonical paths, business API.
		{"GET", "//v1/assets", 404, "not_found", ""},
		{"GET", "/v1//assets", 404, "not_found", ""},
		{"GET", "/v1/./assets", 404, "not_found", ""},
		{"GET", "/v1/../v1/assets", 404, "not_found", ""},
		{"GET", "/v1/x/../assets", 404, "not_found", ""},
		{"GET", "/v1/assets/.", 404, "not_found", ""},
		{"GET", "/v1/assets/..", 404, "not_found", ""},
		{"GET", "/v1/%2e%2e/v1/assets", 404, "not_found", ""},
		{"GET", "/v1/%2E/assets", 404, "not_found", ""},
		{"GET", "/v1/cards/crd_x%2F..%2F..%2Fassets", 404, "not_found", ""},
		{"POST", "//v1/deposits", 404, "not_found", ""},
		{"GET", "//v1/assets?x=1", 404, "not_found", ""},
		// Encoded slashes stay inside their segment.
		{"GET", "/v1%2Fassets", 404, "not_found", ""},
		{"GET", "/v1/remittances/rmt_a%2Fb", 404, "not_found", ""},
		// Trailing slashes name no endpoint.
		{"GET", "/v1/assets/", 404, "not_found", ""},
		{"GET", "/v1/remittances/", 404, "not_found", ""},
		{"POST", "/v1/deposits/", 404, "not_found", ""},
		// Unknown paths, under /v1 and outside.
		{"GET", "/v1/nope", 404, "not_found", ""},
		{"GET", "/v1/assets/extra", 404, "not_found", ""},
		{"GET", "/v1", 404, "not_found", ""},
		{"GET", "/v2/assets", 404, "not_found", ""},
		{"GET", "/", 404, "not_found", ""},
		{"GET", "/favicon.ico", 404, "not_found", ""},
		{"OPTIONS", "*", 404, "not_found", ""},
		// HEAD is GET without a body.
		{"HEAD", "/v1/assets", 200, "", ""},
		{"OPTIONS", "/v1/assets", 404, "not_found", "GET, HEAD"},
		{"PUT", "/v1/remittances", 404, "not_found", "GET, HEAD, POST"},
		// A path registered as written serves only its own methods, also
		// where a pattern with a wildcard would match it with another.
		{"GET", "/v1/cards/applications", 404, "not_found", "POST"},
		// Control API: the same answers, its own envelope.
		{"GET", "//_sim/clock", 404, "not_found", ""},
		{"GET", "/_sim//clock", 404, "not_found", ""},
		{"GET", "/_sim/./clock", 404, "not_found", ""},
		{"GET", "/_sim/x/../clock", 404, "not_found", ""},
		{"GET", "/_sim/clock/", 404, "not_found", ""},
		{"GET", "/_sim", 404, "not_found", ""},
		{"GET", "/_sim/", 404, "not_found", ""},
		{"GET", "/_sim/nope", 404, "not_found", ""},
		{"POST", "/_sim/nope/x/y", 404, "not_found", ""},
		{"PUT", "/_sim/clock", 404, "not_found", "GET, HEAD, POST"},
		{"OPTIONS", "/_sim/clock", 404, "not_found", "GET, HEAD, POST"},
		{"DELETE", "/_sim/members", 404, "not_found", "GET, HEAD, POST"},
		{"GET", "/_sim/qrpay/orders/x/complete", 404, "not_found", "POST"},
		{"GET", "/_sim/cards/limits", 404, "not_found", "POST"},
		{"HEAD", "/_sim/cards/bin_authorizations", 404, "", "POST"},
		{"PUT", "/_sim/cards/limits", 404, "not_found", "POST"},
		{"GET", "/_sim/cards/topups/upstream_timeout", 404, "not_found", "POST"},
		{"GET", "/_sim/cards/crd_x", 404, "not_found", ""},
		{"PUT", "/_sim/merchant/prepaid/topup", 404, "not_found", "POST"},
		{"GET", "/_sim/qrpay/orders/x/nope", 404, "not_found", ""},
		{"POST", "/_sim/stats", 404, "not_found", "GET, HEAD"},
		{"POST", "/_sim/webhooks/endpoints/x", 404, "not_found", "DELETE"},
		{"POST", "/_sim/ui/", 404, "not_found", "GET, HEAD"},
		{"HEAD", "/_sim/clock", 200, "", ""},
		{"GET", "/_sim/ui/nope.js", 404, "not_found", ""},
		{"GET", "/_sim/ui/index.html", 404, "not_found", ""},
	}
	for _, tt := range tests {
		what := tt.method + " " + tt.target
		r := rawLine(t, sim, tt.method, tt.target, auth)
		routerAnswer(t, what, r, tt.status, tt.code)
		if got := r.header.Get("Allow"); got != tt.allow {
			t.Errorf("%s: Allow %q, want %q", what, got, tt.allow)
		}
		if tt.method == "HEAD" && len(r.raw) != 0 {
			t.Errorf("%s: body %q", what, r.raw)
		}
	}

	// The router's business answers are journaled like any request.
	var journaled bool
	for _, rec := range sim.Requests.List() {
		journaled = journaled || rec.Path == "//v1/assets" && rec.Status == 404 && rec.Code == "not_found"
	}
	if !journaled {
		t.Error("GET //v1/assets is not in the request journal with its path as sent")
	}

	// The one redirect of the simulator: the dashboard page for browsers.
	r := rawLine(t, sim, "GET", "/_sim/ui", nil)
	if r.status != http.StatusMovedPermanently || r.header.Get("Location") != "/_sim/ui/" || r.header.Get("X-Request-Id") == "" {
		t.Errorf("GET /_sim/ui: %v %v", r.status, r.header)
	}
}

// TestRouterWrongMethodEveryEndpoint sends every method an endpoint does
// not serve to every business endpoint: 404 not_found with the envelope,
// X-Request-Id, and Allow naming the methods the path serves.
func TestRouterWrongMethodEveryEndpoint(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	auth := authed(c.token())
	auth.Set("X-On-Behalf-Of", member1)
	served := map[string][]string{} // concrete path -> methods
	var paths []string
	for _, route := range simulator.Routes(sim) {
		method, pattern, _ := strings.Cut(route, " ")
		p := strings.NewReplacer("{id}", "x1", "{sub}", "transactions").Replace(pattern)
		if _, ok := served[p]; !ok {
			paths = append(paths, p)
		}
		served[p] = append(served[p], method)
		if method == http.MethodGet {
			served[p] = append(served[p], http.MethodHead)
		}
	}
	n := 0
	for _, p := range paths {
		allow := served[p]
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
			if slices.Contains(allow, m) {
				continue
			}
			r := rawLine(t, sim, m, p, auth)
			what := m + " " + p
			code := "not_found"
			if m == "HEAD" {
				code = "" // no body on HEAD
			}
			routerAnswer(t, what, r, 404, code)
			got := strings.Split(r.header.Get("Allow"), ", ")
			if !sameSet(got, allow) {
				t.Errorf("%s: Allow %q, want %v", what, r.header.Get("Allow"), allow)
			}
			n++
		}
	}
	t.Logf("%d wrong-method requests over %d paths", n, len(paths))
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func newBufReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
