package control

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// Guard holds what the control API's guard reads of the simulator: its
// token, the host names it answers for, and the header helpers of the
// gateway (one reading of Content-Type and one quoting of header values
// for both APIs).
//
// The control API hands out the credentials and drives the whole state,
// so it answers only requests a local developer, a test or an operator who
// holds its token can make; a web page the developer happens to visit
// cannot drive it:
//
//  1. Host names the simulator: an IP address literal, localhost or a name
//     under .localhost, the host of the simulator's own URL, or a name of
//     AllowedHosts. Anything else (a DNS-rebinding page's own name) answers
//     400 invalid_request, reads included.
//  2. With a Token, every control route but the dashboard's own files
//     (an op with NoToken) needs the token in TokenHeader: 401
//     invalid_token without it or with another one.
//  3. A control write (any method but GET and HEAD) with a body says
//     Content-Type: application/json: a cross-site form or text/plain POST,
//     which a browser sends without asking, is refused with 400
//     invalid_request. A write without a body may leave Content-Type out
//     (as generated clients do) but says no other type.
//  4. A control write that carries an Origin comes from a page of the
//     simulator itself (the dashboard): any other Origin, "null" included,
//     answers 400 invalid_request. Browsers send Origin with every POST, so
//     a page cannot send a bodyless write that passes 3 without meeting 4.
type Guard struct {
	// Token is the control token ("" requires none) and TokenHeader the
	// header that carries it.
	Token, TokenHeader string
	// AllowedHosts are the names (normalized by NormalHost) allowed besides
	// the built-in ones; "*" allows any Host.
	AllowedHosts []string
	// SelfURL is the simulator's own URL ("" when it serves none).
	SelfURL func() string
	// JSONContentType reports a Content-Type value of JSON, and QuoteHeader
	// quotes a header value for a message.
	JSONContentType func(string) bool
	QuoteHeader     func(string) string
}

// Check applies the rules to a request the router matched to a control
// route: noToken for a route that answers without the token, hasBody for a
// request with a body. A request Go code hands to ServeHTTP itself
// (FromNetwork false), and a replayed one (replayed), passes: it comes from
// a holder of the simulator, which drives it through its methods anyway.
func (g *Guard) Check(r *http.Request, noToken, hasBody, replayed bool) *api.Error {
	if !FromNetwork(r) || replayed {
		return nil
	}
	if !g.HostAllowed(r.Host) {
		return api.InvalidRequest("the control API does not answer for Host " + g.QuoteHeader(r.Host) +
			": it answers an IP address, localhost or the simulator's own address (WithAllowedHosts, mwallet-sim -allowed-hosts, adds names)")
	}
	if g.Token != "" && !noToken {
		got := r.Header.Values(g.TokenHeader)
		if len(got) != 1 || !TokenEqual(got[0], g.Token) {
			return api.NewErr("invalid_token", "the control API needs its token in "+g.TokenHeader)
		}
	}
	if !IsWrite(r.Method) {
		return nil
	}
	cts := r.Header.Values("Content-Type")
	if len(cts) > 1 || (len(cts) == 1 && !g.JSONContentType(cts[0])) || (hasBody && len(cts) == 0) {
		return api.InvalidRequest("a control write with a body needs Content-Type: application/json (a write without a body may leave it out, but says no other type)")
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 && (len(origins) > 1 || !SameOrigin(origins[0], r.Host)) {
		return api.InvalidRequest("a control write from another site is refused: Origin " + g.QuoteHeader(strings.Join(origins, ", ")) + " is not this simulator")
	}
	return nil
}

// IsWrite reports a method that writes: any but GET and HEAD.
func IsWrite(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// FromNetwork reports a request that came through an HTTP server (one that
// set http.LocalAddrContextKey).
func FromNetwork(r *http.Request) bool {
	return r.Context().Value(http.LocalAddrContextKey) != nil
}

// TokenEqual compares in constant time (of the digests, so the length of
// the token is not revealed either).
func TokenEqual(got, want string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// HostAllowed applies rule 1 to a Host value.
func (g *Guard) HostAllowed(hostport string) bool {
	h := NormalHost(hostport)
	if h == "" {
		return false
	}
	if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return true
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if g.SelfURL != nil {
		if u, err := url.Parse(g.SelfURL()); err == nil && u.Host != "" && NormalHost(u.Host) == h {
			return true
		}
	}
	for _, a := range g.AllowedHosts {
		if a == "*" || a == h {
			return true
		}
	}
	return false
}

// NormalHost is the host of a Host value or name, lower case, without port
// and trailing dot.
func NormalHost(hostport string) string {
	h := strings.TrimSpace(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	return h
}

// SameOrigin reports whether an Origin value names host (the request's
// Host, with its port) over http or https.
func SameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false
	}
	return strings.EqualFold(u.Host, host)
}
