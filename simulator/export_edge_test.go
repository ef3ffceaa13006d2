package simulator

import (
	"encoding/json"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/image"
)

// KeyedEndpoints lists the endpoints of s that take an idempotency key, as
// "METHOD pattern", sorted.
func KeyedEndpoints(s *Simulator) []string {
	var out []string
	for _, e := range s.wiring.gw.router.Endpoints() {
		if e.Idempotent {
			out = append(out, e.Method+" "+e.Pattern)
		}
	}
	sort.Strings(out)
	return out
}

// ControlRoutes lists the patterns of the declared control routes, in
// registration order.
func ControlRoutes(*Simulator) []string { return controlRoutes() }

// DeclaredControlRoutes lists the patterns of the declared control routes
// (control_decl.go), and those of them that are the route of a Go control
// method.
func DeclaredControlRoutes() (routes, callGo []string) {
	for _, o := range allOps {
		if o.Route == "" {
			continue
		}
		routes = append(routes, o.Route)
		if o.Call != nil {
			callGo = append(callGo, o.Route)
		}
	}
	return routes, callGo
}

// RouteCalls maps each control route of a Go method to the name its calls
// are logged under.
func RouteCalls() map[string]string {
	out := map[string]string{}
	for _, o := range allOps {
		if o.Route != "" && o.Call != nil && o.Action == "" {
			out[o.Route] = o.Name
		}
	}
	return out
}

// RouteCallNames maps each control route of a Go method to the names a
// request to it may be logged under: the method (and its alias), and
// Action for an object action.
func RouteCallNames() map[string][]string {
	out := map[string][]string{}
	for _, o := range allOps {
		if o.Route == "" || (o.Call == nil && o.Action == "") {
			continue
		}
		var names []string
		for _, n := range []string{o.Name, o.Alias} {
			if n != "" && o.Call != nil {
				names = append(names, n)
			}
		}
		if o.Action != "" {
			names = append(names, ctlAction)
		}
		out[o.Route] = names
	}
	return out
}

// ActionMethods maps each object action logged as a call of its own Go
// method to that method's name.
func ActionMethods() map[string]string {
	out := map[string]string{}
	for key, o := range opByAction {
		if o.Call != nil {
			out[key] = o.Name
		}
	}
	return out
}

// ControlRouteServed reports whether a control request with method and path
// reaches a declared route of s, not the catch-all not_found.
func ControlRouteServed(s *Simulator, method, path string) bool {
	_, pattern := s.wiring.mux.Handler(httptest.NewRequest(method, path, nil))
	switch pattern {
	case "", "/", "/_sim/{rest...}":
		return false
	}
	return true
}

// OpInfo is a declared control op as the generated tests see it.
type OpInfo struct {
	Route, Action, Name, Alias string
	NoCall, Unlocked, NotFound bool
	Fields                     []FieldInfo
}

// FieldInfo is one argument of an op: where it comes from, its domain
// (the registry key) and its Go kind.
type FieldInfo struct {
	Name, Where, Domain, KeyDomain string
	Req                            bool
	Kind                           string // string, int, float, bool, strings, map, any map, time, bytes
}

// DomainInfo is a registered domain.
type DomainInfo struct {
	Name           string
	Object, Choice bool
	Bad            []any
}

// ControlOps lists the declared ops, in registration order, with Action.
func ControlOps() []OpInfo {
	var out []OpInfo
	for _, o := range allOps {
		oi := OpInfo{Route: o.Route, Action: o.Action, Name: o.Name, Alias: o.Alias, NoCall: o.NoCall, Unlocked: o.Unlocked, NotFound: o.NotFound}
		for _, f := range o.Fields {
			fi := FieldInfo{Name: f.Name, Where: f.Where, Req: f.Req, Kind: kindOf(o.In.FieldByIndex(f.Index).Type)}
			for k, d := range domains {
				if d == f.Dom {
					fi.Domain = k
				}
				if d == f.Key {
					fi.KeyDomain = k
				}
			}
			oi.Fields = append(oi.Fields, fi)
		}
		out = append(out, oi)
	}
	return out
}

func kindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "time"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "bytes"
	case t.Kind() == reflect.Slice:
		return "strings"
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Interface:
		return "any map"
	case t.Kind() == reflect.Map:
		return "map"
	case t.Kind() == reflect.Bool:
		return "bool"
	case t.Kind() == reflect.Float64:
		return "float"
	case t.Kind() == reflect.String:
		return "string"
	}
	return "int"
}

// ControlDomains lists the registered domains by key.
func ControlDomains() map[string]DomainInfo {
	out := map[string]DomainInfo{}
	for k, d := range domains {
		out[k] = DomainInfo{Name: d.Name, Object: d.Object != nil, Choice: d.Choices != nil, Bad: d.Bad}
	}
	return out
}

// InvokeControlOp runs the op of name (a Go method, or "" and a route) as
// its Go method does: the input from body (JSON, as the route decodes it)
// and path (path and query parameters by name).
func InvokeControlOp(s *Simulator, route, name string, body []byte, path map[string]string) (any, error) {
	o := opByName[name]
	if name == ctlAction {
		o = opAction
	}
	if route != "" {
		o = opByRoute[route]
	}
	query := url.Values{}
	for k, v := range path {
		query.Set(k, v)
	}
	in, err := o.Decode(func(k string) string { return path[k] }, query, body)
	if err != nil {
		return nil, err
	}
	return s.wiring.ctl.invoke(o, in)
}

// DigestLeaving is the state digest without the fields of its image
// (image_legacy.go) leave names ("gatewayState.journal"): what a business
// refusal may change by the contract left out of the comparison.
func DigestLeaving(s *Simulator, leave ...string) (string, error) {
	l := map[string]bool{}
	for k := range image.DigestLeaves {
		l[k] = true
	}
	for _, k := range leave {
		l[k] = true
	}
	tx := s.wiring.image.captured()
	defer tx.End()
	img, err := s.wiring.image.encodeLegacy(tx, l)
	if err != nil {
		return "", err
	}
	return image.Sum(img), nil
}

// LastInput describes the last input logged: its op, call name and
// arguments as recorded ("call Cards.Ship [\"crd_1\"]"), or its request.
func LastInput(s *Simulator) string {
	mem, err := s.wiring.rec.MemInputs()
	if err != nil || len(mem) == 0 {
		return ""
	}
	in := mem[len(mem)-1]
	if in.Op == recfile.OpCall {
		args, _ := json.Marshal(in.Args)
		return "call " + in.Call + " " + string(args)
	}
	return in.Op + " " + replay.Describe(in)
}

// WithoutVerify turns verify mode (internal/kernel, verify.go) off for s: a load test
// measures the simulator as it serves outside the repository's tests.
func WithoutVerify(s *Simulator) {
	tx := s.k.Begin()
	defer tx.End()
	s.k.SetVerify(false)
}
