package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// The control API (/_sim) hands out the credentials and drives the whole
// state, so it answers only requests a local developer, a test or an
// operator who holds its token can make; a web page the developer happens
// to visit cannot drive it. The guard belongs to the control routes as the
// router matched them (every declared op, control_decl.go, and the router's
// not_found answers under /_sim), on the path as the gateway read it once
// (internal/exchange's Router), so no spelling of a path reaches a control route
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
			if h = control.NormalHost(h); h != "" {
				o.allowedHosts = append(o.allowedHosts, h)
			}
		}
	}
}

// Guard applies the rules above (internal/control's Guard) to a request
// the router matched to the route of o. The rules hold for every control
// route, the router's own not_found answers under /_sim included (rules 3
// and 4 for writes). hasBody reports a request with a body.
func (ctl *controlAPI) Guard(r *http.Request, o *op, hasBody bool) *apiError {
	g := control.Guard{
		Token: ctl.sim.wiring.opts.controlToken, TokenHeader: ControlTokenHeader,
		AllowedHosts: ctl.sim.wiring.opts.allowedHosts, SelfURL: ctl.sim.URL,
		JSONContentType: pipeline.JSONContentType, QuoteHeader: pipeline.QuoteHeader,
	}
	return g.Check(r, o.NoToken, hasBody, replayedRequest(r))
}
