package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// The control API (/_sim) hands out the credentials and drives the whole
// state, so it answers only requests a local developer, a test or an
// operator who holds its token can make (internal/control's Guard: the
// Host, the control token, a write's Content-Type and Origin). The guard
// belongs to the control routes as the router matched them (every declared
// op, control_decl.go, and the router's not_found answers under /_sim), on
// the path as the gateway read it once (internal/exchange's Router), so no
// spelling of a path reaches a control route around it. The business API
// keeps the contract's rules (token, signature, scopes); none of these
// apply to it.

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

// Guard applies internal/control's Guard to a request the router matched
// to the route of o. Its rules hold for every control route, the router's
// own not_found answers under /_sim included (rules 3 and 4 for writes).
// hasBody reports a request with a body.
func (ctl *controlAPI) Guard(r *http.Request, o *op, hasBody bool) *apiError {
	g := control.Guard{
		Token: ctl.sim.wiring.opts.controlToken, TokenHeader: ControlTokenHeader,
		AllowedHosts: ctl.sim.wiring.opts.allowedHosts, SelfURL: ctl.sim.URL,
		JSONContentType: pipeline.JSONContentType, QuoteHeader: pipeline.QuoteHeader,
	}
	return g.Check(r, o.NoToken, hasBody, ctl.Replayed(r))
}
