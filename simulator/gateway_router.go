package simulator

import (
	"net/http"
	"slices"
	"strings"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
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

// The request's path is read once (internal/gateway's Path, ReadPath):
// pathOf is the path the gateway read for r; record.go reads it too.
func pathOf(r *http.Request) pipeline.Path { return pipeline.PathOf(r) }

// isControlPath reports a path of the control API's namespace (a request
// target as a string); the recipes' host answers with it.
func isControlPath(target string) bool { return pipeline.IsControlPath(target) }

// ServeHTTP serves the business API and the control API (the gateway's
// serveHTTP).
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.wiring.gw.serveHTTP(w, r) }

// serveHTTP reads the request's path once and routes the request on it. A
// path under /_sim is the control API's: every route there is a control op
// behind its guard, and the router's own answers (a path not in canonical
// form, /_sim itself, a literal path with another method) are the guarded
// not_found of the control API. Any other path is the business API's.
func (g *gateway) serveHTTP(w http.ResponseWriter, r *http.Request) {
	// Date is the simulator's time, manual clock included, so a client can
	// measure its clock's skew against the clock that checks x-timestamp; a
	// business request sets it again when it runs (internal/exchange's
	// Pipeline.Begin).
	w.Header().Set("Date", g.st.clock.Now().UTC().Format(http.TimeFormat))
	// Every request's body is captured as it is read, so that the request
	// can be logged as an input with it (record.go).
	if _, ok := r.Body.(*captureBody); !ok {
		src := r.Body
		if src == nil {
			src = http.NoBody
		}
		r.Body = &captureBody{src: src}
	}
	p := pipeline.ReadPath(r)
	r = pipeline.WithPath(r, p)
	if p.Canonical {
		u := *r.URL
		u.Path, u.RawPath = p.Clean, p.Escaped
		r.URL = &u
	}
	methods, literal := g.literal[p.Escaped]
	switch {
	case p.Control && !p.Canonical:
		g.controlNotFound(w, r, "no control endpoint at the non-canonical path "+p.Sent)
	case p.Control && p.Clean == "/_sim":
		// ServeMux would redirect it to the /_sim/ subtree.
		g.controlNotFound(w, r, "no control endpoint "+r.Method+" /_sim")
	case !p.Canonical:
		g.serveNotFoundMessage(w, r, "no endpoint at the non-canonical path "+p.Sent+" (paths are never cleaned or redirected)")
	case literal && !slices.Contains(methods, r.Method):
		// A path registered as written belongs to its own methods: a
		// pattern with a wildcard in its place (GET /_sim/cards/{id} for
		// POST /_sim/cards/limits) does not serve it with another.
		if p.Control {
			g.controlNotFound(w, r, "")
			return
		}
		g.serveNotFound(w, r)
	default:
		g.mux.ServeHTTP(w, r)
	}
}

// indexLiteralPaths records the methods of every path registered without
// wildcards, the control routes' and the business endpoints'
// (internal/gateway's LiteralPaths, computed once per process).
func (g *gateway) indexLiteralPaths() {
	patterns := append([]string(nil), controlRoutes()...)
	for _, e := range g.endpoints {
		patterns = append(patterns, e.Method+" "+e.Pattern)
	}
	g.literal = pipeline.LiteralPaths(patterns, g.mux)
}

// allowedMethods lists the methods r's path is served with, other than by
// the catch-all patterns (internal/gateway's AllowedMethods).
func (g *gateway) allowedMethods(r *http.Request) []string {
	return pipeline.AllowedMethods(g.literal, g.mux, r, g.endpointServes)
}

// endpointServes applies the serves narrowing of the endpoint registered as
// pattern ("METHOD path"), if any.
func (g *gateway) endpointServes(pattern, path string) bool {
	for i := range g.endpoints {
		if e := &g.endpoints[i]; e.Serves != nil && e.Method+" "+e.Pattern == pattern {
			return e.Serves(path)
		}
	}
	return true
}

// notFoundAnswer is the not_found envelope of the router for r: message,
// or, without one, a message naming the methods the path serves with them
// in the Allow header.
func (g *gateway) notFoundAnswer(r *http.Request, message string) *apiError {
	ae := errNotFound("path " + pipeline.RawRequestPath(r))
	if message != "" {
		ae.Message = message
		return ae
	}
	if allow := g.allowedMethods(r); len(allow) > 0 {
		list := strings.Join(allow, ", ")
		ae.Message = r.Method + " " + pipeline.RawRequestPath(r) + ": no such endpoint; the path serves " + list
		ae.Header = map[string]string{"Allow": list}
	}
	return ae
}

// serveNotFound answers a business path no endpoint serves.
func (g *gateway) serveNotFound(w http.ResponseWriter, r *http.Request) {
	g.serveNotFoundMessage(w, r, "")
}

// serveNotFoundMessage answers a path no endpoint serves with message (or,
// without one, the methods the path serves), journaled as a business
// request; a control path is answered by controlNotFound.
func (g *gateway) serveNotFoundMessage(w http.ResponseWriter, r *http.Request, message string) {
	if pathOf(r).Control {
		g.controlNotFound(w, r, message)
		return
	}
	ae := g.notFoundAnswer(r, message)
	x := g.ex.Begin(w, r)
	if x.PreFault() {
		return
	}
	x.Delay()
	x.Finish(x.AfterFault(pipeline.ErrorResponse(ae, x.ID)))
}

// controlNotFoundAnswer is the control API's not_found for r: message,
// or the methods the path serves (with Allow), or "no control endpoint".
func (g *gateway) controlNotFoundAnswer(r *http.Request, message string) *apiError {
	ae := g.notFoundAnswer(r, message)
	if message == "" && ae.Header == nil {
		ae.Message = "no control endpoint " + r.Method + " " + pipeline.RawRequestPath(r)
	}
	return ae
}
