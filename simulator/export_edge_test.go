package simulator

import (
	"net/http/httptest"
	"sort"
	"strings"
)

// KeyedEndpoints lists the endpoints of s that take an idempotency key, as
// "METHOD pattern", sorted.
func KeyedEndpoints(s *Simulator) []string {
	var out []string
	for _, e := range s.wiring.gw.endpoints {
		if e.Idempotent {
			out = append(out, e.Method+" "+e.Pattern)
		}
	}
	sort.Strings(out)
	return out
}

// ControlRoutes lists the patterns of s's control routes (explicit routes,
// not the object actions), as registered.
func ControlRoutes(s *Simulator) []string { return append([]string(nil), s.st.controlRoutes...) }

// DeclaredControlRoutes lists the patterns of the declared control routes
// (control_decl.go), and those of them that call Go control methods.
func DeclaredControlRoutes() (routes, callGo []string) {
	for _, table := range append(append([][]controlDecl(nil), controlTables...), placedTables...) {
		for _, d := range table {
			if d.route == "" {
				continue
			}
			routes = append(routes, d.route)
			if d.call != nil {
				callGo = append(callGo, d.route)
			}
		}
	}
	return routes, callGo
}

// RouteCalls maps each control route declared as the HTTP entry of a Go
// method (asCall) to the name its calls are logged under.
func RouteCalls() map[string]string {
	out := map[string]string{}
	for _, table := range append(append([][]controlDecl(nil), controlTables...), placedTables...) {
		for _, d := range table {
			if d.asCall != nil {
				out[d.route] = d.name
			}
		}
	}
	return out
}

// ActionMethods maps each object action logged as a call of its own Go
// method to that method's name.
func ActionMethods() map[string]string {
	out := map[string]string{}
	for key, m := range actionMethods {
		out[key] = m.name
	}
	return out
}

// ControlRouteServed reports whether a control request with method and path
// reaches a route of s: an explicit control route, or an object action
// through POST /_sim/{rest...}; not the catch-all not_found.
func ControlRouteServed(s *Simulator, method, path string) bool {
	_, pattern := s.wiring.mux.Handler(httptest.NewRequest(method, path, nil))
	switch pattern {
	case "", "/", "/_sim/{rest...}":
		return false
	case "POST /_sim/{rest...}":
		// An object action: "a/b/<id>/<action>" is s.wiring.actions["a/b/<action>"],
		// otherwise the whole path names an action without an id.
		segs := strings.Split(strings.Trim(strings.TrimPrefix(path, "/_sim/"), "/"), "/")
		if n := len(segs); n >= 3 {
			if _, ok := s.wiring.actions[strings.Join(segs[:n-2], "/")+"/"+segs[n-1]]; ok {
				return true
			}
		}
		_, ok := s.wiring.actions[strings.Join(segs, "/")]
		return ok && len(segs) >= 2
	}
	return true
}
