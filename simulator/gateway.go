package simulator

import (
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/exchange"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Contract windows and gateway bounds.
const (
	// maxBodyBytes caps request bodies; larger ones get invalid_request
	// (internal/exchange's MaxBodyBytes).
	maxBodyBytes = exchange.MaxBodyBytes
	// tokenTTL is the access token validity.
	tokenTTL = 30 * time.Minute
)

// gatewayState holds the gateway's windows: nonces, idempotency records,
// token-exchange rate, request journal and faults, as kernel tables
// (internal/gateway's State).
type gatewayState = pipeline.State

// gateway is the business API's one pipeline: routing and the router's own
// answers, the token exchange and the API Keys' checks, signatures,
// idempotency, the windows' expiry sweeps, the write quota, faults, staged
// requests, the request journal, and the HTTP server New starts. It holds
// no state of its own: its windows are st.gw, read and written through st.
// The exchange of one request (its input, request id, faults, idempotency
// step, handler, journal row and answer) is internal/exchange's Pipeline
// (ex), whose Host it answers (exchangeHost, gateway_host.go).
//
// It holds the kernel (k), the state (st), the input log (rec), the router
// (mux, which the control API registers on too), the business endpoints as
// registered (endpoints) and the server New started (server, or tls with
// WithTLS or WithHTTP2). What it needs from the rest of the simulator comes
// as callbacks:
//
//   - logRequest logs a request as an input, admit any other input
//     (record.go);
//   - runDue runs the timers due at the current time (simulator.go);
//   - controlID draws the request id of a control answer (the recorder's
//     ControlID, internal/inputlog);
//   - controlNotFound answers the router's not_found of a path under /_sim
//     behind the control API's guard (control_guard.go).
type gateway struct {
	k         *kernel.Kernel
	st        *simState
	rec       *recorder
	mux       *http.ServeMux
	endpoints []endpoint
	server    *httptest.Server
	tls       *tlsServer
	ex        *exchange.Pipeline

	// literal maps each path registered without wildcards (business
	// endpoints and control routes) to the methods it serves.
	literal map[string][]string

	logRequest      func(tx *kernel.Tx, r *http.Request) (*recordedInput, int64, error)
	admit           func(tx *kernel.Tx, in *recordedInput) (int64, error)
	runDue          func(tx *kernel.Tx)
	controlID       func() string
	controlNotFound func(w http.ResponseWriter, r *http.Request, message string)
}

// newGateway is the gateway over k and st with its exchange.
func newGateway(g *gateway) *gateway {
	g.ex = exchange.New(g.k, g.st.gw, exchangeHost{g})
	return g
}

// registerGateway registers the token exchange and the catch-all answer of
// paths no endpoint serves.
func (g *gateway) registerGateway() {
	g.mux.HandleFunc("POST /v1/connect/token", g.serveToken)
	g.mux.HandleFunc("/", g.serveNotFound)
}

// response is one answer of the gateway (internal/gateway's Response).
type response = pipeline.Response

// authorize applies the checks of the caller for e to the request of x, in
// the order internal/exchange's Pipeline.Serve lists: token, IP allowlist,
// environment, merchant status, scope, body size, signature, write quota.
func (g *gateway) authorize(x *exchange.Exchange, e *endpoint, body []byte, bodyTooLarge bool, now time.Time) *apiError {
	r := x.R
	if ae := pipeline.HeaderAmbiguity(r.Header); ae != nil {
		return ae
	}
	tok, ok := g.st.tokens.Get(x.Tx, bearer(r))
	if !ok || !now.Before(tok.ExpiresAt) {
		return newErr("invalid_token", "access token missing, malformed or expired")
	}
	key, ok := g.st.keys.Get(x.Tx, tok.ClientID)
	if !ok || !key.usable(now) {
		return newErr("invalid_token", "access token missing, malformed or expired")
	}
	x.Rec.ClientID = key.ClientID
	if !key.ipAllowed(pipeline.RemoteIP(r)) {
		return newErr("ip_not_allowed", "the caller address is not allowed for this key")
	}
	if tok.Env != Environment(g.st.merchant.Env(x.Tx)) || key.Env != Environment(g.st.merchant.Env(x.Tx)) {
		return newErr("environment_mismatch", "the access token belongs to another environment")
	}
	switch MerchantStatus(g.st.merchant.Status(x.Tx)) {
	case MerchantActive:
	case MerchantSuspended:
		if pipeline.IsWrite(r.Method) {
			return newErr("merchant_disabled", "the merchant is suspended: reads only")
		}
	default:
		return newErr("merchant_disabled", "the merchant is disabled")
	}
	if e.Scope != "" && !key.allows(e.Scope) {
		return newErr("insufficient_scope", "the key lacks the scope "+e.Scope)
	}
	if bodyTooLarge {
		return errInvalidRequest("request body unreadable or larger than 1 MiB")
	}
	if ae := pipeline.ContentTypeRule(r, body); ae != nil {
		return ae
	}
	if pipeline.IsWrite(r.Method) && (key.SignatureRequired || alwaysSigned(e)) {
		if ae := g.verifySignature(x.Tx, r, key, body, now); ae != nil {
			if sr, ok := ae.Signature.(pipeline.SignatureRow); ok {
				x.Rec.Signature, x.Rec.HasSignature = sr, true
			}
			return ae
		}
	}
	if ae := g.takeWriteQuota(x.Tx, r, now); ae != nil {
		return ae
	}
	return nil
}
