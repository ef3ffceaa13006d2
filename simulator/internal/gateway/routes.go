package gateway

import (
	"net/http"
	"strings"
	"sync"
)

// RouteMethods are the methods probed for the Allow header.
var RouteMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// CatchAllPatterns are the patterns that answer "no such endpoint".
var CatchAllPatterns = map[string]bool{"/": true, "/_sim/{rest...}": true}

// LiteralPaths indexes the methods of every path registered without
// wildcards among patterns (each "METHOD path", the control routes and the
// business endpoints, in their order of registration on mux), so that the
// path template with the most literal segments decides which methods a path
// serves, as OpenAPI matches concrete paths before templated ones. The
// index depends only on the registrations, the same for every simulator
// built from the same code, so it is computed once per process for each
// set of registered patterns; it is shared and never written.
func LiteralPaths(patterns []string, mux *http.ServeMux) map[string][]string {
	var key strings.Builder
	var paths []string
	for _, p := range patterns {
		key.WriteString(p)
		key.WriteByte('\n')
		if _, path, ok := strings.Cut(p, " "); ok && !strings.Contains(path, "{") {
			paths = append(paths, path)
		}
	}
	literalIndex.mu.Lock()
	defer literalIndex.mu.Unlock()
	if idx, ok := literalIndex.byKey[key.String()]; ok {
		return idx
	}
	idx := map[string][]string{}
	for _, p := range paths {
		r, err := http.NewRequest(http.MethodGet, p, nil)
		if err != nil {
			continue
		}
		var methods []string
		for _, m := range RouteMethods {
			r.Method = m
			if _, pattern := mux.Handler(r); strings.HasSuffix(pattern, " "+p) {
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
	return idx
}

// literalIndex caches LiteralPaths by the registered patterns.
var literalIndex struct {
	mu    sync.Mutex
	byKey map[string]map[string][]string
}

// AllowedMethods lists the methods r's path is served with, other than by
// the catch-all patterns: those of the literal index (LiteralPaths), or
// those mux serves it with where serves (the narrowing of the endpoint
// registered as pattern, "METHOD path") admits the path; POST for the path
// of a registered object action (served by the catch-all POST
// /_sim/{rest...}) comes from the literal index.
func AllowedMethods(literal map[string][]string, mux *http.ServeMux, r *http.Request, serves func(pattern, path string) bool) []string {
	if methods, ok := literal[PathOf(r).Escaped]; ok {
		return methods
	}
	var out []string
	for _, m := range RouteMethods {
		r2 := r.Clone(r.Context())
		r2.Method = m
		_, pattern := mux.Handler(r2)
		if pattern != "" && !CatchAllPatterns[pattern] && serves(pattern, r.URL.Path) {
			out = append(out, m)
		}
	}
	return out
}
