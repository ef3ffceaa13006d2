package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/openapi"
)

// registerOpenAPI serves the OpenAPI documents embedded in the binary: the
// business API at GET /_sim/openapi.yaml and the control API at
// GET /_sim/openapi-sim.yaml.
func (s *Simulator) registerOpenAPI() {
	for pattern, doc := range map[string][]byte{
		"GET /_sim/openapi.yaml":     openapi.Business(),
		"GET /_sim/openapi-sim.yaml": openapi.Control(),
	} {
		s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			id := s.nextRequestID()
			s.mu.Unlock()
			w.Header().Set("X-Request-Id", id)
			w.Header().Set("Content-Type", "application/yaml")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(doc)
		})
	}
}
