package simulator

import (
	"net/http"
)

// The router, its literal-path index and its own answers (a path not in
// canonical form, a known path with another method: the JSON not_found,
// never a redirect) are internal/exchange's Router (router.go,
// notfound.go), over the gateway's mux.

// ServeHTTP serves the business API and the control API (the gateway's
// router).
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.wiring.gw.router.ServeHTTP(w, r)
}
