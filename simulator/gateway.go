package simulator

import (
	"crypto/x509"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/exchange"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/gatewayhost"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/tlsserver"
)

// Contract windows and gateway bounds.
const (
	// maxBodyBytes caps request bodies; larger ones get invalid_request
	// (internal/exchange's MaxBodyBytes).
	maxBodyBytes = exchange.MaxBodyBytes
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
// The exchange of one request (its input, request id, faults, the checks of
// the caller, idempotency step, handler, journal row and answer) and the
// token exchange are internal/exchange's Pipeline (ex), over its Host
// (host, internal/gatewayhost's: gateway_host.go).
//
// It holds the kernel (k), the state (st), the mux (which the control API
// registers on too) and the exchange's router over it (router: its
// routing, the literal-path index and its own answers, internal/exchange's
// Router, which keeps the business endpoints as registered) and the server
// New started (served: httptest's, or the HTTPS one of WithTLS or WithHTTP2,
// internal/tlsserver's Served).
type gateway struct {
	k      *kernel.Kernel
	st     *simState
	mux    *http.ServeMux
	served tlsserver.Served
	host   *gatewayhost.Host
	ex     *exchange.Pipeline
	router *exchange.Router
}

// newGateway is the gateway over k and st with its exchange over host
// (which it hands the state's keys and tokens and the capture of a
// request's body) and its router over mux.
func newGateway(g *gateway, host *gatewayhost.Host) *gateway {
	host.Keys, host.Tokens = keyTableOf(g.st.keys), tokenTable{g.st.tokens}
	host.CaptureBody, host.ReplayHooks = inputlog.CaptureBody, inputlog.Replayed
	g.host = host
	g.ex = exchange.New(g.k, g.st.gw, host)
	g.router = g.ex.NewRouter(g.mux)
	return g
}

// registerGateway registers the token exchange and the catch-all answer of
// paths no endpoint serves.
func (g *gateway) registerGateway() {
	g.mux.HandleFunc("POST /v1/connect/token", g.ex.ServeToken)
	g.mux.HandleFunc("/", g.router.ServeNotFound)
}

// HTTPClient returns the HTTP client of the embedded server: it trusts the
// certificate of a simulator started with WithTLS or WithHTTP2 and speaks
// HTTP/2 to one started with WithHTTP2. Client uses it. Nil for a
// simulator from NewHandler.
func (s *Simulator) HTTPClient() *http.Client { return s.wiring.gw.served.Client() }

// Certificate returns the certificate of a simulator started with WithTLS
// or WithHTTP2 (self-signed, for localhost, 127.0.0.1 and ::1), so other
// clients can trust it; nil otherwise.
func (s *Simulator) Certificate() *x509.Certificate { return s.wiring.gw.served.Certificate() }

// The router, its literal-path index and its own answers (a path not in
// canonical form, a known path with another method: the JSON not_found,
// never a redirect) are internal/exchange's Router (router.go,
// notfound.go), over the gateway's mux.

// ServeHTTP serves the business API and the control API (the gateway's
// router).
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.wiring.gw.router.ServeHTTP(w, r)
}

// The request headers of the contract and their edge rules (a header sent
// twice, two different tokens, a write's Content-Type) are internal/gateway's
// (headers.go).

// ContractHeaders lists the request headers of the contract (canonical
// form), each of which a request may carry at most once.
func ContractHeaders() []string { return append([]string(nil), pipeline.ContractHeaders...) }
