package simulator

import (
	"net/http"
	"path"
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
var catchAllPatterns = map[string]bool{"/": true, "/_sim/{rest...}": true, actionPattern: true}

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

// canonicalPath reports whether p has no empty, "." or ".." segment (a
// trailing slash is kept: /_sim/ui/ is a path of its own).
func canonicalPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

// isControlPath reports a path of the control API.
func isControlPath(p string) bool {
	p = strings.TrimLeft(p, "/")
	return p == "_sim" || strings.HasPrefix(p, "_sim/")
}

// ServeHTTP serves the business API and the control API.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Date is the simulator's time, manual clock included, so a client can
	// measure its clock's skew against the clock that checks x-timestamp.
	w.Header().Set("Date", s.st.clock.Now().UTC().Format(http.TimeFormat))
	// Every request's body is captured as it is read, so that the request
	// can be logged as an input with it (record.go).
	if _, ok := r.Body.(*captureBody); !ok {
		src := r.Body
		if src == nil {
			src = http.NoBody
		}
		r.Body = &captureBody{src: src}
	}
	raw := rawRequestPath(r)
	guarded := isControlPath(raw) && fromNetwork(r) && captureOf(r).replay == nil
	if guarded && !s.wiring.ctl.guardControl(w, r, s.wiring.ctl.controlAccess(r, raw)) {
		return
	}
	if raw == "/_sim" {
		// ServeMux would redirect it to the /_sim/ subtree; its Handler
		// lookup (allowedMethods) names that redirect on some Go releases
		// (1.24), so the answer is given here, with no Allow.
		s.controlNotFound(w, r, "no control endpoint "+r.Method+" /_sim")
		return
	}
	if !canonicalPath(raw) || !canonicalPath(r.URL.Path) {
		if isControlPath(raw) {
			s.controlNotFound(w, r, "no control endpoint at the non-canonical path "+raw)
			return
		}
		s.serveNotFoundMessage(w, r, "no endpoint at the non-canonical path "+raw+" (paths are never cleaned or redirected)")
		return
	}
	if methods, ok := s.st.literalPaths[raw]; ok && !slices.Contains(methods, r.Method) {
		// A path registered as written belongs to its own methods: a
		// pattern with a wildcard in its place (GET /_sim/cards/{id} for
		// POST /_sim/cards/limits) does not serve it with another.
		s.serveNotFound(w, r)
		return
	}
	if guarded && isWrite(r.Method) && s.wiring.ctl.servesControl(r) && !s.wiring.ctl.guardControl(w, r, controlWriteRefusal(r)) {
		return
	}
	s.wiring.mux.ServeHTTP(w, r)
}

// indexLiteralPaths records the methods of every path registered without
// wildcards (business endpoints and control routes), so that the path
// template with the most literal segments decides which methods a path
// serves, as OpenAPI matches concrete paths before templated ones. The
// index depends only on the registrations, the same for every simulator
// built from the same code, so it is computed once per process for each
// set of registered patterns.
func (s *Simulator) indexLiteralPaths() {
	var key strings.Builder
	var paths []string
	for _, p := range s.st.controlRoutes {
		key.WriteString(p)
		key.WriteByte('\n')
		if _, path, ok := strings.Cut(p, " "); ok && !strings.Contains(path, "{") {
			paths = append(paths, path)
		}
	}
	for _, e := range s.wiring.endpoints {
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
		s.st.literalPaths = idx
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
			if _, pattern := s.wiring.mux.Handler(r); strings.HasSuffix(pattern, " "+p) {
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
	s.st.literalPaths = idx // shared and never written after this point
}

// literalIndex caches indexLiteralPaths by the registered patterns.
var literalIndex struct {
	mu    sync.Mutex
	byKey map[string]map[string][]string
}

// allowedMethods lists the methods r's path is served with, other than by
// the catch-all patterns; POST for the path of a registered object action
// (served by the catch-all POST /_sim/{rest...}).
func (s *Simulator) allowedMethods(r *http.Request) []string {
	if methods, ok := s.st.literalPaths[rawRequestPath(r)]; ok {
		return methods
	}
	var out []string
	for _, m := range routeMethods {
		r2 := r.Clone(r.Context())
		r2.Method = m
		_, pattern := s.wiring.mux.Handler(r2)
		switch {
		case pattern == actionPattern:
			// s.actions is filled before the simulator serves and only read after.
			if _, _, _, ok := s.wiring.ctl.lookupAction(strings.TrimPrefix(r.URL.Path, "/_sim/")); ok {
				out = append(out, m)
			}
		case pattern != "" && !catchAllPatterns[pattern] && s.endpointServes(pattern, r.URL.Path):
			out = append(out, m)
		}
	}
	return out
}

// actionPattern is the catch-all pattern that serves the object actions.
const actionPattern = "POST /_sim/{rest...}"

// endpointServes applies the serves narrowing of the endpoint registered as
// pattern ("METHOD path"), if any.
func (s *Simulator) endpointServes(pattern, path string) bool {
	for i := range s.wiring.endpoints {
		if e := &s.wiring.endpoints[i]; e.Serves != nil && e.Method+" "+e.Pattern == pattern {
			return e.Serves(path)
		}
	}
	return true
}

// notFoundAnswer is the not_found envelope of the router for r: message,
// or, without one, a message naming the methods the path serves with them
// in the Allow header.
func (s *Simulator) notFoundAnswer(r *http.Request, message string) *apiError {
	ae := errNotFound("path " + rawRequestPath(r))
	if message != "" {
		ae.Message = message
		return ae
	}
	if allow := s.allowedMethods(r); len(allow) > 0 {
		list := strings.Join(allow, ", ")
		ae.Message = r.Method + " " + rawRequestPath(r) + ": no such endpoint; the path serves " + list
		ae.Header = map[string]string{"Allow": list}
	}
	return ae
}

// serveNotFound answers a business path no endpoint serves.
func (s *Simulator) serveNotFound(w http.ResponseWriter, r *http.Request) {
	s.serveNotFoundMessage(w, r, "")
}

func (s *Simulator) serveNotFoundMessage(w http.ResponseWriter, r *http.Request, message string) {
	if isControlPath(rawRequestPath(r)) { // /_sim itself
		s.controlNotFound(w, r, message)
		return
	}
	ae := s.notFoundAnswer(r, message)
	x := s.begin(w, r)
	if x.preFault() {
		return
	}
	x.delay()
	x.finish(x.afterFault(errorResponse(ae, x.id)))
}

// controlNotFound answers a control path no control endpoint serves.
func (s *Simulator) controlNotFound(w http.ResponseWriter, r *http.Request, message string) {
	ae := s.notFoundAnswer(r, message)
	if message == "" && ae.Header == nil {
		ae.Message = "no control endpoint " + r.Method + " " + rawRequestPath(r)
	}
	id := s.controlID()
	h := w.Header()
	h.Set("X-Request-Id", id)
	for k, v := range ae.Header {
		h.Set(k, v)
	}
	writeJSON(w, ae.Status, ae.Envelope(id))
}

// controlRequestID assigns a request id to a control answer that is not
// served by serveControl (the webhook flush, the dashboard's files).
func (s *Simulator) controlRequestID(w http.ResponseWriter) string {
	id := s.controlID()
	w.Header().Set("X-Request-Id", id)
	return id
}
