package simulator

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
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

// routeMethods are the methods probed for the Allow header.
var routeMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// catchAllPatterns are the patterns that answer "no such endpoint".
var catchAllPatterns = map[string]bool{"/": true, "/_sim/{rest...}": true}

// reqPath is a request's path as the gateway reads it, once, before
// anything else looks at it: the router, the control guard (which belongs
// to the control routes as the router matched them on this form), the
// journal, the faults, the endpoints. It is kept in the request's context
// (pathOf); the request's URL carries clean as its path.
type reqPath struct {
	// sent is the path as the client sent it: the request target up to the
	// query (the escaped path for an absolute-form target). The signature
	// covers it, the journal and the router's messages show it.
	sent string
	// clean is the path decoded once, segment by segment (a %2F stays inside
	// its segment); escaped is the same path escaped the one canonical way.
	clean, escaped string
	// canonical: sent starts with /, decodes, and has no empty, "." or ".."
	// segment once decoded (a trailing slash is a path of its own).
	canonical bool
	// control: the first non-empty decoded segment is _sim, the control
	// API's namespace.
	control bool
}

// pathKey is the context key of a request's reqPath.
type pathKey struct{}

// readPath reads r's path.
func readPath(r *http.Request) reqPath {
	p := reqPath{sent: rawRequestPath(r)}
	segs := strings.Split(p.sent, "/")
	dec := make([]string, len(segs))
	esc := make([]string, len(segs))
	p.canonical = strings.HasPrefix(p.sent, "/")
	first := true
	for i, seg := range segs {
		d, err := url.PathUnescape(seg)
		if err != nil {
			p.canonical = false
			d = seg
		}
		dec[i], esc[i] = d, url.PathEscape(d)
		if i == 0 {
			continue
		}
		if (d == "" && i < len(segs)-1) || d == "." || d == ".." {
			p.canonical = false
		}
		if first && d != "" {
			p.control, first = d == "_sim", false
		}
	}
	p.clean, p.escaped = strings.Join(dec, "/"), strings.Join(esc, "/")
	return p
}

// pathOf is the path the gateway read for r.
func pathOf(r *http.Request) reqPath {
	if p, ok := r.Context().Value(pathKey{}).(reqPath); ok {
		return p
	}
	return readPath(r)
}

// rawRequestPath is the path as the client sent it: the request target up
// to the query, or the escaped path for an absolute-form target.
func rawRequestPath(r *http.Request) string {
	p := r.RequestURI
	if !strings.HasPrefix(p, "/") {
		return r.URL.EscapedPath()
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}

// isControlPath reports a path of the control API's namespace (a request
// target as a string, the first non-empty segment decoded).
func isControlPath(target string) bool {
	p, _, _ := strings.Cut(target, "?")
	return readPath(&http.Request{RequestURI: p, URL: &url.URL{Path: p}}).control
}

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
	// business request sets it again when it runs (gateway.begin).
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
	p := readPath(r)
	r = r.WithContext(context.WithValue(r.Context(), pathKey{}, p))
	if p.canonical {
		u := *r.URL
		u.Path, u.RawPath = p.clean, p.escaped
		r.URL = &u
	}
	methods, literal := g.literal[p.escaped]
	switch {
	case p.control && !p.canonical:
		g.controlNotFound(w, r, "no control endpoint at the non-canonical path "+p.sent)
	case p.control && p.clean == "/_sim":
		// ServeMux would redirect it to the /_sim/ subtree.
		g.controlNotFound(w, r, "no control endpoint "+r.Method+" /_sim")
	case !p.canonical:
		g.serveNotFoundMessage(w, r, "no endpoint at the non-canonical path "+p.sent+" (paths are never cleaned or redirected)")
	case literal && !slices.Contains(methods, r.Method):
		// A path registered as written belongs to its own methods: a
		// pattern with a wildcard in its place (GET /_sim/cards/{id} for
		// POST /_sim/cards/limits) does not serve it with another.
		if p.control {
			g.controlNotFound(w, r, "")
			return
		}
		g.serveNotFound(w, r)
	default:
		g.mux.ServeHTTP(w, r)
	}
}

// indexLiteralPaths records the methods of every path registered without
// wildcards (business endpoints and control routes), so that the path
// template with the most literal segments decides which methods a path
// serves, as OpenAPI matches concrete paths before templated ones. The
// index depends only on the registrations, the same for every simulator
// built from the same code, so it is computed once per process for each
// set of registered patterns.
func (g *gateway) indexLiteralPaths() {
	var key strings.Builder
	var paths []string
	for _, p := range controlRoutes() {
		key.WriteString(p)
		key.WriteByte('\n')
		if _, path, ok := strings.Cut(p, " "); ok && !strings.Contains(path, "{") {
			paths = append(paths, path)
		}
	}
	for _, e := range g.endpoints {
		key.WriteString(e.Method)
		key.WriteByte(' ')
		key.WriteString(e.Pattern)
		key.WriteByte('\n')
		if !strings.Contains(e.Pattern, "{") {
			paths = append(paths, e.Pattern)
		}
	}
	literalIndex.mu.Lock()
	defer literalIndex.mu.Unlock()
	if idx, ok := literalIndex.byKey[key.String()]; ok {
		g.literal = idx
		return
	}
	idx := map[string][]string{}
	for _, p := range paths {
		r, err := http.NewRequest(http.MethodGet, p, nil)
		if err != nil {
			continue
		}
		var methods []string
		for _, m := range routeMethods {
			r.Method = m
			if _, pattern := g.mux.Handler(r); strings.HasSuffix(pattern, " "+p) {
				methods = append(methods, m)
			}
		}
		if len(methods) > 0 {
			idx[p] = methods
		}
	}
	if literalIndex.byKey == nil {
		literalIndex.byKey = map[string]map[string][]string{}
	}
	literalIndex.byKey[key.String()] = idx
	g.literal = idx // shared and never written after this point
}

// literalIndex caches indexLiteralPaths by the registered patterns.
var literalIndex struct {
	mu    sync.Mutex
	byKey map[string]map[string][]string
}

// allowedMethods lists the methods r's path is served with, other than by
// the catch-all patterns; POST for the path of a registered object action
// (served by the catch-all POST /_sim/{rest...}).
func (g *gateway) allowedMethods(r *http.Request) []string {
	if methods, ok := g.literal[pathOf(r).escaped]; ok {
		return methods
	}
	var out []string
	for _, m := range routeMethods {
		r2 := r.Clone(r.Context())
		r2.Method = m
		_, pattern := g.mux.Handler(r2)
		if pattern != "" && !catchAllPatterns[pattern] && g.endpointServes(pattern, r.URL.Path) {
			out = append(out, m)
		}
	}
	return out
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
	ae := errNotFound("path " + rawRequestPath(r))
	if message != "" {
		ae.Message = message
		return ae
	}
	if allow := g.allowedMethods(r); len(allow) > 0 {
		list := strings.Join(allow, ", ")
		ae.Message = r.Method + " " + rawRequestPath(r) + ": no such endpoint; the path serves " + list
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
	if pathOf(r).control {
		g.controlNotFound(w, r, message)
		return
	}
	ae := g.notFoundAnswer(r, message)
	x := g.begin(w, r)
	if x.preFault() {
		return
	}
	x.delay()
	x.finish(x.afterFault(errorResponse(ae, x.id)))
}

// controlNotFoundAnswer is the control API's not_found for r: message,
// or the methods the path serves (with Allow), or "no control endpoint".
func (g *gateway) controlNotFoundAnswer(r *http.Request, message string) *apiError {
	ae := g.notFoundAnswer(r, message)
	if message == "" && ae.Header == nil {
		ae.Message = "no control endpoint " + r.Method + " " + rawRequestPath(r)
	}
	return ae
}
