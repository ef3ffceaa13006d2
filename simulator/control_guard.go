package simulator

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// The control API (/_sim) hands out the credentials and drives the whole
// state, so it answers only requests a local developer, a test or an
// operator who holds its token can make; a web page the developer happens
// to visit cannot drive it. The guard belongs to the control routes as the
// router matched them (every declared op, control_decl.go, and the router's
// not_found answers under /_sim), on the path as the gateway read it once
// (gateway_router.go), so no spelling of a path reaches a control route
// around it:
//
//  1. Host names the simulator: an IP address literal, localhost or a name
//     under .localhost, the host of the simulator's own URL, or a name
//     allowed with WithAllowedHosts. Anything else (a DNS-rebinding page's
//     own name) answers 400 invalid_request, reads included.
//  2. With WithControlToken, every control route but the dashboard's own
//     files needs the token in ControlTokenHeader: 401 invalid_token
//     without it or with another one.
//  3. A control write (any method but GET and HEAD) with a body says
//     Content-Type: application/json: a cross-site form or text/plain POST,
//     which a browser sends without asking, is refused with 400
//     invalid_request. A write without a body may leave Content-Type out
//     (as generated clients do) but says no other type.
//  4. A control write that carries an Origin comes from a page of the
//     simulator itself (the dashboard): any other Origin, "null" included,
//     answers 400 invalid_request. Browsers send Origin with every POST, so
//     a page cannot send a bodyless write that passes 3 without meeting 4.
//
// The business API keeps the contract's rules (token, signature, scopes);
// none of these apply to it.

// ControlTokenHeader is the request header that carries the control token
// (WithControlToken).
const ControlTokenHeader = "X-Sim-Control-Token"

// WithControlToken makes every control route (/_sim/...) but the
// dashboard's files answer 401 invalid_token unless the request carries
// token in ControlTokenHeader. mwallet-sim requires one (or -trust-network)
// to listen beyond loopback. An empty token requires none (the default);
// a token that begins or ends with space is refused by New (no request can
// send it: header values are trimmed).
func WithControlToken(token string) Option { return func(o *options) { o.controlToken = token } }

// WithAllowedHosts adds host names (without port) the control API answers
// requests for, besides IP address literals, localhost, names under
// .localhost and the host of the simulator's URL; "*" allows any Host. The
// business API answers any Host.
func WithAllowedHosts(hosts ...string) Option {
	return func(o *options) {
		for _, h := range hosts {
			if h = normalHost(h); h != "" {
				o.allowedHosts = append(o.allowedHosts, h)
			}
		}
	}
}

// guard applies the rules above to a request the router matched to the
// route of o (a request Go code hands to ServeHTTP itself, and a replayed
// one, passes: it comes from a holder of the *Simulator). The rules hold
// for every control route, the router's own not_found answers under /_sim
// included (rules 3 and 4 for writes). hasBody reports a request with a
// body.
func (ctl *controlAPI) guard(r *http.Request, o *op, hasBody bool) *apiError {
	s := ctl.sim
	if !fromNetwork(r) || replayedRequest(r) {
		return nil
	}
	if !ctl.hostAllowed(r.Host) {
		return errInvalidRequest("the control API does not answer for Host " + quoteHeader(r.Host) +
			": it answers an IP address, localhost or the simulator's own address (WithAllowedHosts, mwallet-sim -allowed-hosts, adds names)")
	}
	if tok := s.wiring.opts.controlToken; tok != "" && !o.noToken {
		got := r.Header.Values(ControlTokenHeader)
		if len(got) != 1 || !tokenEqual(got[0], tok) {
			return newErr("invalid_token", "the control API needs its token in "+ControlTokenHeader)
		}
	}
	if !isWrite(r.Method) {
		return nil
	}
	cts := r.Header.Values("Content-Type")
	if len(cts) > 1 || (len(cts) == 1 && !jsonContentType(cts[0])) || (hasBody && len(cts) == 0) {
		return errInvalidRequest("a control write with a body needs Content-Type: application/json (a write without a body may leave it out, but says no other type)")
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 && (len(origins) > 1 || !sameOrigin(origins[0], r.Host)) {
		return errInvalidRequest("a control write from another site is refused: Origin " + quoteHeader(strings.Join(origins, ", ")) + " is not this simulator")
	}
	return nil
}

// fromNetwork reports a request that came through an HTTP server (New's,
// mwallet-sim's, or the caller's around NewHandler). A request Go code
// hands to ServeHTTP itself, and a replayed one, comes from a holder of the
// *Simulator, which drives it through its methods anyway.
func fromNetwork(r *http.Request) bool {
	return r.Context().Value(http.LocalAddrContextKey) != nil
}

// tokenEqual compares in constant time (of the digests, so the length of
// the token is not revealed either).
func tokenEqual(got, want string) bool {
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// hostAllowed applies rule 1 to a Host value.
func (ctl *controlAPI) hostAllowed(hostport string) bool {
	s := ctl.sim
	h := normalHost(hostport)
	if h == "" {
		return false
	}
	if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return true
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if u, err := url.Parse(s.URL()); err == nil && u.Host != "" && normalHost(u.Host) == h {
		return true
	}
	for _, a := range s.wiring.opts.allowedHosts {
		if a == "*" || a == h {
			return true
		}
	}
	return false
}

// normalHost is the host of a Host value or name, lower case, without port
// and trailing dot.
func normalHost(hostport string) string {
	h := strings.TrimSpace(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	return h
}

// sameOrigin reports whether an Origin value names host (the request's
// Host, with its port) over http or https.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false
	}
	return strings.EqualFold(u.Host, host)
}
