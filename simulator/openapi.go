package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/openapi"
)

// registerOpenAPI serves the OpenAPI documents embedded in the binary: the
// business API at GET /_sim/openapi.yaml and the control API at
// GET /_sim/openapi-sim.yaml.
func (ctl *controlAPI) registerOpenAPI() {
	s := ctl.sim
	s.wiring.mux.HandleFunc("GET /_sim/openapi.yaml", ctl.serveDocument(openapi.Business()))
	s.wiring.mux.HandleFunc("GET /_sim/openapi-sim.yaml", ctl.serveDocument(openapi.Control()))
}

// serveDocument answers one embedded document (a read: nothing is logged).
func (ctl *controlAPI) serveDocument(doc []byte) http.HandlerFunc {
	s := ctl.sim
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", s.wiring.rec.controlID())
		w.Header().Set("Content-Type", "application/yaml")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(doc)
	}
}
