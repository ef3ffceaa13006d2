package exchange

import (
	"net/http"
	"slices"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// The router's own answers. http.ServeMux alone answers a path that is not
// in canonical form (//v1/assets, /v1/./assets, /v1/x/../assets) with a
// redirect and an HTML body, and a known path with a method it does not
// serve with a plain-text 405. The simulator never redirects: every answer,
// the router's included, is the JSON error envelope with X-Request-Id.
//
//   - A path that is not canonical (empty segments, "." or ".." segments,
//     also when percent-encoded) names no endpoint: 404 not_found.
//   - A known path with a method it does not serve (PUT, PATCH, OPTIONS, a
//     POST on a read, a GET on a write): 404 not_found, since the contract's
//     codes keep not_found on 404 and give 405 no code, with an Allow header
//     listing the methods the path serves.
//   - HEAD is GET without the body (net/http drops it).
//   - %2F inside a segment is part of that segment, never a separator.
//
// Business paths are journaled like any other business request; control
// paths (/_sim...) answer the same way without being journaled.

// Router routes the business API's and the control API's requests on the
// path read once (gateway.ReadPath) over mux, on which the endpoints and
// the control routes are registered, and gives the router's own answers.
type Router struct {
	p   *Pipeline
	mux *http.ServeMux
	// endpoints are the business endpoints as registered.
	endpoints []api.Endpoint
	// literal maps each path registered without wildcards (business
	// endpoints and control routes) to the methods it serves.
	literal map[string][]string
}

// NewRouter is the router of p's requests over mux.
func (p *Pipeline) NewRouter(mux *http.ServeMux) *Router {
	return &Router{p: p, mux: mux}
}

// ServeHTTP reads the request's path once and routes the request on it. A
// path under /_sim is the control API's: every route there is a control op
// behind its guard, and the router's own answers (a path not in canonical
// form, /_sim itself, a literal path with another method) are the guarded
// not_found of the control API (Host.ControlNotFound). Any other path is
// the business API's.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := rt.p.host
	// Date is the simulator's time, manual clock included, so a client can
	// measure its clock's skew against the clock that checks x-timestamp; a
	// business request sets it again when it runs (Pipeline.Begin).
	w.Header().Set("Date", h.Now().UTC().Format(http.TimeFormat))
	// Every request's body is captured as it is read, so that the request
	// can be logged as an input with it.
	h.Capture(r)
	p := gateway.ReadPath(r)
	r = gateway.WithPath(r, p)
	if p.Canonical {
		u := *r.URL
		u.Path, u.RawPath = p.Clean, p.Escaped
		r.URL = &u
	}
	methods, literal := rt.literal[p.Escaped]
	switch {
	case p.Control && !p.Canonical:
		h.ControlNotFound(w, r, "no control endpoint at the non-canonical path "+p.Sent)
	case p.Control && p.Clean == "/_sim":
		// ServeMux would redirect it to the /_sim/ subtree.
		h.ControlNotFound(w, r, "no control endpoint "+r.Method+" /_sim")
	case !p.Canonical:
		rt.serveNotFound(w, r, "no endpoint at the non-canonical path "+p.Sent+" (paths are never cleaned or redirected)")
	case literal && !slices.Contains(methods, r.Method):
		// A path registered as written belongs to its own methods: a
		// pattern with a wildcard in its place (GET /_sim/cards/{id} for
		// POST /_sim/cards/limits) does not serve it with another.
		if p.Control {
			h.ControlNotFound(w, r, "")
			return
		}
		rt.serveNotFound(w, r, "")
	default:
		rt.mux.ServeHTTP(w, r)
	}
}

// Register adds the business endpoint e to the router: the exchange
// serves it (Serve), but a path its Serves narrowing refuses is the
// router's not_found.
func (rt *Router) Register(e api.Endpoint) {
	rt.mux.HandleFunc(e.Method+" "+e.Pattern, func(w http.ResponseWriter, r *http.Request) {
		if e.Serves != nil && !e.Serves(r.URL.Path) {
			rt.ServeNotFound(w, r)
			return
		}
		rt.p.Serve(w, r, &e)
	})
	rt.endpoints = append(rt.endpoints, e)
}

// Endpoints are the business endpoints as registered, in their order; the
// list is built at setup and never changes after.
func (rt *Router) Endpoints() []api.Endpoint { return rt.endpoints }

// IndexLiteralPaths records the methods of every path registered without
// wildcards, the control routes' (controlRoutes, "METHOD path") and the
// business endpoints' (gateway.LiteralPaths, computed once per process).
func (rt *Router) IndexLiteralPaths(controlRoutes []string) {
	patterns := append([]string(nil), controlRoutes...)
	for _, e := range rt.endpoints {
		patterns = append(patterns, e.Method+" "+e.Pattern)
	}
	rt.literal = gateway.LiteralPaths(patterns, rt.mux)
}

// AllowedMethods lists the methods r's path is served with, other than by
// the catch-all patterns (gateway.AllowedMethods).
func (rt *Router) AllowedMethods(r *http.Request) []string {
	return gateway.AllowedMethods(rt.literal, rt.mux, r, rt.endpointServes)
}

// endpointServes applies the Serves narrowing of the endpoint registered as
// pattern ("METHOD path"), if any.
func (rt *Router) endpointServes(pattern, path string) bool {
	for i := range rt.endpoints {
		if e := &rt.endpoints[i]; e.Serves != nil && e.Method+" "+e.Pattern == pattern {
			return e.Serves(path)
		}
	}
	return true
}
