package simulator

import (
	"net/http"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// The router, its literal-path index and its own answers (a path not in
// canonical form, a known path with another method: the JSON not_found,
// never a redirect) are internal/exchange's Router (router.go,
// notfound.go), over the gateway's mux.

// The request's path is read once (internal/gateway's Path, ReadPath):
// pathOf is the path the gateway read for r; record.go reads it too.
func pathOf(r *http.Request) pipeline.Path { return pipeline.PathOf(r) }

// isControlPath reports a path of the control API's namespace (a request
// target as a string); the recipes' host answers with it.
func isControlPath(target string) bool { return pipeline.IsControlPath(target) }

// ServeHTTP serves the business API and the control API (the gateway's
// router).
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.wiring.gw.router.ServeHTTP(w, r)
}

// register adds an endpoint to the simulator's router.
func (g *gateway) register(e endpoint) {
	g.router.Register(e)
}

// indexLiteralPaths records the methods of every path registered without
// wildcards, the control routes' and the business endpoints'.
func (g *gateway) indexLiteralPaths() { g.router.IndexLiteralPaths(controlRoutes()) }

// allowedMethods lists the methods r's path is served with, other than by
// the catch-all patterns; the control API's business-path domains read it.
func (g *gateway) allowedMethods(r *http.Request) []string { return g.router.AllowedMethods(r) }

// controlNotFoundAnswer is the control API's not_found for r: message,
// or the methods the path serves (with Allow), or "no control endpoint".
func (g *gateway) controlNotFoundAnswer(r *http.Request, message string) *apiError {
	return g.router.ControlNotFoundAnswer(r, message)
}
