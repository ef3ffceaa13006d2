package simulator

import (
	"net/http"
)

// register adds an endpoint to the simulator's router.
func (g *gateway) register(e endpoint) {
	e2 := e
	g.mux.HandleFunc(e.Method+" "+e.Pattern, func(w http.ResponseWriter, r *http.Request) {
		if e2.Serves != nil && !e2.Serves(r.URL.Path) {
			g.serveNotFound(w, r)
			return
		}
		g.ex.Serve(w, r, &e2)
	})
	g.endpoints = append(g.endpoints, e2)
}
