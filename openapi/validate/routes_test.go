package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// controlPattern is a route pattern of the control API as the simulator
// registers it with its ServeMux: "METHOD /_sim/...".
var controlPattern = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) (/_sim/\S*)$`)

// simulatorPatterns returns every string constant of the non-test source
// of package simulator and of the packages under simulator/internal (where
// the lines and the kernel declare their control ops) that is a control
// route pattern ("GET /_sim/clock"), without the catch-all patterns
// ({rest...}) that answer the object actions and not_found.
func simulatorPatterns(t *testing.T) []string {
	t.Helper()
	var pkgs []*packages.Package
	for path, p := range sdkPackages(t) {
		if path == sdk+"/simulator" || strings.HasPrefix(path, sdk+"/simulator/internal/") {
			if p.TypesInfo == nil || len(p.Syntax) == 0 {
				t.Fatalf("package %s not loaded with its syntax", path)
			}
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < 2 {
		t.Fatalf("loaded %d packages of the simulator, want it and its internal packages", len(pkgs))
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		patternsOf(p, seen)
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// patternsOf adds to seen the control route patterns among p's string
// constants.
func patternsOf(p *packages.Package, seen map[string]bool) {
	// A constant that is a part of a string built at run time
	// ("POST /_sim/step-up/" + id + "/complete") is no pattern.
	parts := map[ast.Expr]bool{}
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			tv, ok := p.TypesInfo.Types[e]
			if b, isSum := e.(*ast.BinaryExpr); isSum && b.Op == token.ADD && (!ok || tv.Value == nil) {
				parts[b.X], parts[b.Y] = true, true
			}
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String || parts[e] {
				return true
			}
			if v := constant.StringVal(tv.Value); controlPattern.MatchString(v) && !strings.Contains(v, "...}") {
				seen[v] = true
			}
			return true
		})
	}
}

// concrete turns a route template into a request path: every {param}
// becomes "x".
func concrete(template string) string {
	return regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(template, "x")
}

// documentedControl reports whether mwallet-sim.yaml has an operation for
// method and the escaped path whose path parameters accept the path's
// values (an action outside an {action} enum is not documented).
func documentedControl(docs *Documents, method, path string) error {
	rt, params, found := newRouter(docs.Control).match(method, path)
	if rt == nil {
		if found {
			return fmt.Errorf("%s %s: the path is documented, the method is not", method, path)
		}
		return fmt.Errorf("%s %s: no path of mwallet-sim.yaml", method, path)
	}
	if err := pathParamsAccept(rt, params); err != nil {
		return fmt.Errorf("%s %s (%s): %v", method, path, rt.Path, oneLine(err.Error()))
	}
	return nil
}

// TestControlRoutesMatchTheSimulator holds mwallet-sim.yaml to the control
// routes the simulator serves, both ways, so that a route, an action or a
// fault kind added to the simulator fails here until the document describes
// it, and a documented one the simulator does not serve fails too:
//
//   - every control route pattern in the simulator's source is a documented
//     operation (with its action in the {action} enum where it has one);
//   - every registered object action (sim.Actions()) is documented, at
//     POST /_sim/<collection>/{id}/<action> or, for an action without an
//     object, POST /_sim/<action>;
//   - every documented operation, with every value of an enumerated path
//     parameter, reaches a handler of the simulator (not the router's
//     not_found);
//   - the fault kinds of the Fault schema are the simulator's FaultKind
//     constants.
func TestControlRoutesMatchTheSimulator(t *testing.T) {
	docs := loadDocs(t)

	patterns := simulatorPatterns(t)
	if len(patterns) < 30 {
		t.Fatalf("found %d control route patterns in the simulator's packages, want at least 30: %v", len(patterns), patterns)
	}
	for _, p := range patterns {
		m := controlPattern.FindStringSubmatch(p)
		if err := documentedControl(docs, m[1], concrete(m[2])); err != nil {
			t.Errorf("the simulator serves %q: %v", p, err)
		}
	}

	sim := simtest.Start(t)
	actions := sim.Actions()
	for _, key := range actions {
		i := strings.LastIndex(key, "/")
		withID := "/_sim/" + key[:i] + "/x" + key[i:]
		if documentedControl(docs, http.MethodPost, withID) != nil && documentedControl(docs, http.MethodPost, "/_sim/"+key) != nil {
			t.Errorf("action %q: neither POST %s nor POST /_sim/%s is documented", key, withID, key)
		}
	}

	// The answers are validated too, as the exchange log's are.
	check := newChecker(t)
	served := 0
	for _, op := range check.ControlOperations() {
		method, template, _ := strings.Cut(op, " ")
		for _, path := range expand(docs, method, template) {
			served++
			w := send(sim, check, method, path)
			if why := routerNotFound(w); why != "" {
				t.Errorf("%s is documented, but the simulator does not serve %s %s: %s", op, method, path, why)
			}
		}
	}
	t.Logf("%d route patterns and %d actions of the simulator documented; %d documented requests served", len(patterns), len(actions), served)

	// Every other method on every documented path: 404 not_found with the
	// Allow of the documented methods (the document's router conventions).
	ctl := newRouter(docs.Control)
	wrong := 0
	for _, template := range docs.Control.Paths.InMatchingOrder() {
		for _, path := range expand(docs, "", template) {
			documented := ctl.methods(path)
			for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
				if strings.Contains(","+allowOf(documented)+",", ","+m+",") {
					continue
				}
				wrong++
				w := send(sim, check, m, path)
				if got := allowSet(w.Header().Get("Allow")); w.Code != http.StatusNotFound || got != allowOf(documented) {
					t.Errorf("%s %s: %d with Allow %q, want 404 with %s", m, path, w.Code, w.Header().Get("Allow"), allowOf(documented))
				}
			}
		}
	}
	t.Logf("%d requests with a method the path does not serve answered 404 with Allow", wrong)
	for _, v := range check.Violations() {
		t.Error(v)
	}

	kinds := faultKinds(t)
	var documented []string
	known, _ := docs.Control.Components.Schemas["Fault"].Value.Properties["kind"].Value.Extensions["x-extensible-enum"].([]any)
	for _, v := range known {
		documented = append(documented, fmt.Sprint(v))
	}
	sort.Strings(documented)
	if diff := cmp.Diff(kinds, documented); diff != "" {
		t.Errorf("Fault.kind x-extensible-enum of mwallet-sim.yaml differs from the simulator's FaultKind constants (-simulator +document):\n%s", diff)
	}
}

// expand lists the request paths of a documented operation (of every
// operation of the path when method is ""): every value of an enumerated
// path parameter, "x" for the others.
func expand(docs *Documents, method, template string) []string {
	item := docs.Control.Paths.Value(template)
	paths := []string{template}
	var all openapi3.Parameters
	all = append(all, item.Parameters...)
	for m, op := range item.Operations() {
		if method == "" || m == method {
			all = append(all, op.Parameters...)
		}
	}
	for _, ref := range all {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInPath || p.Schema == nil || p.Schema.Value == nil || len(p.Schema.Value.Enum) == 0 {
			continue
		}
		var next []string
		for _, path := range paths {
			for _, v := range p.Schema.Value.Enum {
				next = append(next, strings.ReplaceAll(path, "{"+p.Name+"}", fmt.Sprint(v)))
			}
		}
		paths = next
	}
	for i := range paths {
		paths[i] = concrete(paths[i])
	}
	return paths
}

// send sends method and path to sim without a body and validates the
// exchange with check.
func send(sim *simulator.Simulator, check *Checker, method, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	sim.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	x := simulator.Exchange{Kind: "serve", Request: simulator.LoggedMessage{Method: method, Target: path, Header: http.Header{}},
		Response: &simulator.LoggedMessage{Status: w.Code, Header: w.Header(), Body: w.Body.String()}}
	check.Check(context.Background(), &x, method+" "+path)
	return w
}

// routerNotFound returns why an answer is the router's own not_found (no
// route, or no action of that name), or "" when a handler answered.
func routerNotFound(w *httptest.ResponseRecorder) string {
	if w.Code != http.StatusNotFound {
		return ""
	}
	var env struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &env)
	switch {
	case w.Header().Get("Allow") != "":
		return "404 with Allow: " + w.Header().Get("Allow")
	case strings.HasPrefix(env.Message, "no control endpoint"), strings.HasPrefix(env.Message, "control action "):
		return "404: " + env.Message
	}
	return ""
}

// faultKinds lists the values of the simulator's FaultKind constants.
func faultKinds(t *testing.T) []string {
	t.Helper()
	p := sdkPackages(t)[sdk+"/simulator"]
	obj := p.Types.Scope().Lookup("FaultKind")
	if obj == nil {
		t.Fatal("simulator.FaultKind not found")
	}
	var out []string
	for _, name := range p.Types.Scope().Names() {
		c, ok := p.Types.Scope().Lookup(name).(*types.Const)
		if ok && c.Exported() && types.Identical(c.Type(), obj.Type()) {
			out = append(out, constant.StringVal(c.Val()))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("no FaultKind constant found")
	}
	return out
}
