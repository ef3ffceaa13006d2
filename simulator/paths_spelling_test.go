package simulator_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// The path read once (internal/exchange's Router): every control route and every
// business route, generated from their declarations, under every spelling
// of its path a client (or a browser) can send, answers as the plain
// spelling does, or is refused as a path that reaches no route.

// spellings are the ways of writing a plain path p ("/_sim/cards/x1/ship"),
// by name. Each is sent on the wire as written.
func spellings(p string) map[string]string {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	join := func(s []string) string { return "/" + strings.Join(s, "/") }
	with := func(i int, seg string) string {
		c := append([]string(nil), segs...)
		c[i] = seg
		return join(c)
	}
	enc := func(r byte, lower bool) string {
		h := fmt.Sprintf("%%%02X", r)
		if lower {
			h = strings.ToLower(h)
		}
		return h
	}
	out := map[string]string{}
	for i, seg := range segs {
		out[fmt.Sprintf("segment %d: first character percent-encoded", i)] = with(i, enc(seg[0], false)+seg[1:])
		out[fmt.Sprintf("segment %d: last character percent-encoded, lower-case hex", i)] = with(i, seg[:len(seg)-1]+enc(seg[len(seg)-1], true))
	}
	all := ""
	for j := 0; j < len(segs[0]); j++ {
		all += enc(segs[0][j], false)
	}
	out["first segment wholly percent-encoded"] = with(0, all)
	out["double encoding"] = with(0, "%25"+fmt.Sprintf("%02X", segs[0][0])+segs[0][1:])
	out["leading //"] = "/" + join(segs)
	out["// inside"] = join(append(segs[:1:1], append([]string{""}, segs[1:]...)...))
	out["/./ inside"] = join(append(segs[:1:1], append([]string{"."}, segs[1:]...)...))
	out["/%2e/ inside"] = join(append(segs[:1:1], append([]string{"%2e"}, segs[1:]...)...))
	out["/../ back to the path"] = join(append(segs[:1:1], append([]string{"zz", ".."}, segs[1:]...)...))
	out["/%2E%2E/ back to the path"] = join(append(segs[:1:1], append([]string{"zz", "%2E%2E"}, segs[1:]...)...))
	out["trailing slash"] = p + "/"
	out[";params on the last segment"] = p + ";x=1"
	out[";params on the first segment"] = with(0, segs[0]+";x=1")
	out["backslash for the first /"] = "/" + segs[0] + "\\" + strings.Join(segs[1:], "/")
	out["%5C for the first /"] = "/" + segs[0] + "%5C" + strings.Join(segs[1:], "/")
	out["%2F for the first /"] = "/" + segs[0] + "%2F" + strings.Join(segs[1:], "/")
	return out
}

// wireAnswer is an answer read off the connection.
type wireAnswer struct {
	status int
	code   string
	msg    string
}

// sendWire writes one request on a connection of its own, its target
// exactly as given, and reads the answer.
func sendWire(t *testing.T, base, method, target, host string, header map[string]string, body string) wireAnswer {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if host == "" {
		host = u.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Length: %d\r\n", method, target, host, len(body))
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n" + body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env struct{ Code, Message string }
	_ = json.Unmarshal(raw, &env)
	return wireAnswer{status: resp.StatusCode, code: env.Code, msg: env.Message}
}

// routerRefusal reports an answer of the router that no route gave: a
// not_found for a path no endpoint serves.
func routerRefusal(a wireAnswer) bool {
	return a.status == http.StatusNotFound && a.code == "not_found" &&
		(strings.Contains(a.msg, "no control endpoint") || strings.Contains(a.msg, "no endpoint") || strings.Contains(a.msg, "no such endpoint") ||
			strings.HasPrefix(a.msg, "path ") && strings.HasSuffix(a.msg, " not found"))
}

// TestPathSpellingsOfEveryRoute sends every declared control route (its
// wildcards filled) under every spelling, and under each of the guard's
// refusals (no control token, a foreign Host, a foreign Origin, Origin
// null; writes carry a JSON body): each is refused exactly as the plain
// spelling is, or answered as a path that reaches no route (the router's
// not_found), and the state digest does not move. Every business route,
// under the same spellings, without a token answers 401 or the router's
// 404, never anything served.
func TestPathSpellingsOfEveryRoute(t *testing.T) {
	t.Parallel()
	const token = "spell-token"
	sim, rc := newRaw(t, simulator.WithControlToken(token))
	u, _ := url.Parse(sim.URL())
	type variant struct {
		name   string
		host   string
		header map[string]string
	}
	variants := []variant{
		{"no control token", "", map[string]string{}},
		{"foreign Host", "rebind.attacker.example:" + u.Port(), map[string]string{simulator.ControlTokenHeader: token}},
		{"foreign Origin", "", map[string]string{simulator.ControlTokenHeader: token, "Origin": "http://evil.example"}},
		{"Origin null", "", map[string]string{simulator.ControlTokenHeader: token, "Origin": "null"}},
	}
	routes, _ := simulator.DeclaredControlRoutes()
	cases, sameAsPlain, routerRefused := 0, 0, 0
	// A spelling whose first segment is not _sim once decoded is a
	// business request: the router's 404, journaled with a request id.
	journal := []string{"gatewayState.requestSeq", "gatewayState.rng", "gatewayState.pcg", "gatewayState.journal"}
	before, err := simulator.DigestLeaving(sim, journal...)
	if err != nil {
		t.Fatal(err)
	}
	for _, route := range routes {
		method, pattern, ok := strings.Cut(route, " ")
		if !ok {
			method, pattern = "GET", route // the router's not_found under /_sim
		}
		plain := wildcardRE.ReplaceAllString(pattern, "x1")
		plain = strings.ReplaceAll(plain, "x1...", "x1")
		body := ""
		if method != "GET" && method != "HEAD" {
			body = "{}"
		}
		for _, v := range variants {
			h := map[string]string{}
			for k, x := range v.header {
				h[k] = x
			}
			if body != "" {
				h["Content-Type"] = "application/json"
			}
			want := sendWire(t, sim.URL(), method, plain, v.host, h, body)
			for name, target := range spellings(plain) {
				if route == "GET /_sim/ui" && name == "trailing slash" {
					continue // /_sim/ui/ is the dashboard's page, a route of its own
				}
				got := sendWire(t, sim.URL(), method, target, v.host, h, body)
				cases++
				switch {
				case got.status == want.status && got.code == want.code:
					sameAsPlain++
				case routerRefusal(got):
					routerRefused++
				case got.status == http.StatusUnauthorized && got.code == "invalid_token" && v.name == "no control token":
					// A spelling that is not the dashboard's route is not
					// its exception: the control namespace needs the token.
					routerRefused++
				default:
					t.Errorf("%s, %s, %s %s: %d %s %q; the plain spelling %d %s", route, v.name, name, target, got.status, got.code, got.msg, want.status, want.code)
				}
			}
		}
	}
	if after, _ := simulator.DigestLeaving(sim, journal...); after != before {
		t.Errorf("the refused spellings changed the state")
	}
	t.Logf("control: %d cases (%d routes x 14 to 24 spellings, by their segments, x %d guard refusals): %d refused as the plain spelling, %d refused by the router",
		cases, len(routes), len(variants), sameAsPlain, routerRefused)

	// The business API: without a token, never served.
	bcases := 0
	for _, route := range simulator.Routes(sim) {
		method, pattern, _ := strings.Cut(route, " ")
		plain := wildcardRE.ReplaceAllString(pattern, "x1")
		for name, target := range spellings(plain) {
			got := sendWire(t, sim.URL(), method, target, "", map[string]string{"Content-Type": "application/json"}, "")
			bcases++
			if !(got.status == http.StatusUnauthorized || routerRefusal(got)) {
				t.Errorf("business %s, %s %s without a token: %d %s %q, want 401 or the router's 404", route, name, target, got.status, got.code, got.msg)
			}
		}
	}
	// With a token (and a signature over the path as sent, for a write):
	// as the plain spelling, or the router's 404.
	tok := rc.token()
	key := 0
	for _, route := range simulator.Routes(sim) {
		method, pattern, _ := strings.Cut(route, " ")
		if method == "POST" && pattern == "/v1/connect/token" {
			continue
		}
		plain := wildcardRE.ReplaceAllString(pattern, "x1")
		send := func(target string) wireAnswer {
			key++
			var r result
			if method == "GET" {
				r = rc.get(tok, target, member1)
			} else {
				r = rc.write(tok, method, target, member1, uuidN(5000+key), []byte("{}"))
			}
			msg, _ := r.body["message"].(string)
			return wireAnswer{status: r.status, code: r.code(), msg: msg}
		}
		want := send(plain)
		for name, target := range spellings(plain) {
			if strings.ContainsAny(target, "\\") {
				continue // the Go client does not send a backslash as written
			}
			got := send(target)
			bcases++
			same := func(w wireAnswer) bool { return got.status == w.status && got.code == w.code }
			if !same(want) && !routerRefusal(got) && got.status != http.StatusNotFound && method != "GET" {
				// A write moves the state (a quota reached): the plain
				// spelling again.
				want = send(plain)
			}
			if !(same(want) || routerRefusal(got) || got.status == http.StatusNotFound) {
				t.Errorf("business %s with a token, %s %s: %d %s %q; the plain spelling %d %s", route, name, target, got.status, got.code, got.msg, want.status, want.code)
			}
		}
	}
	t.Logf("business: %d cases (%d routes, without a token and with one)", bcases, len(simulator.Routes(sim)))
}
