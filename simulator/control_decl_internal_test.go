package simulator

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/openapi"
)

// goControlMethods lists the exported methods of the control types, the
// exported pointer fields of Simulator (sim.Clock, sim.Cards, ...), as
// "Field.Method", with the type each method belongs to.
func goControlMethods(t *testing.T) map[string]reflect.Type {
	t.Helper()
	out := map[string]reflect.Type{}
	st := reflect.TypeOf(Simulator{})
	groups := 0
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer {
			continue
		}
		groups++
		for j := 0; j < f.Type.NumMethod(); j++ {
			out[f.Name+"."+f.Type.Method(j).Name] = f.Type
		}
	}
	if groups != 14 {
		t.Fatalf("found %d control types on Simulator, want 14", groups)
	}
	return out
}

// declaredNames counts the declarations of each Go method name over every
// op (a name and an alias each count).
func declaredNames() map[string]int {
	n := map[string]int{}
	for _, o := range allOps {
		for _, name := range []string{o.Name, o.Alias} {
			if name != "" {
				n[name]++
			}
		}
	}
	return n
}

// TestEveryControlMethodIsDeclaredOnce: every exported method of the 14
// control types is the Go method of exactly one op, and every declared name
// is such a method or Action; replay dispatch resolves every name that
// records calls to the method itself, and refuses the others.
func TestEveryControlMethodIsDeclaredOnce(t *testing.T) {
	t.Parallel()
	s := MustNew()
	defer s.Close()
	methods := goControlMethods(t)
	declared := declaredNames()
	var wrong []string
	for name := range methods {
		if declared[name] != 1 {
			wrong = append(wrong, fmt.Sprintf("%s: declared %d times", name, declared[name]))
		}
	}
	for name := range declared {
		if _, ok := methods[name]; !ok && name != ctlAction {
			wrong = append(wrong, name+": declared, but no control type has the method")
		}
	}
	sort.Strings(wrong)
	if diff := cmp.Diff([]string(nil), wrong); diff != "" {
		t.Errorf("control declarations (-want +got):\n%s", diff)
	}
	calls := 0
	for name, o := range opByName {
		fn, err := declaredMethod(s, name)
		switch {
		case o.NoCall && err == nil:
			t.Errorf("%s records no call, yet replay resolves it", name)
		case !o.NoCall && err != nil:
			t.Errorf("%s: replay does not resolve it: %v", name, err)
		case !o.NoCall:
			calls++
			typ := methods[name]
			_, method, _ := strings.Cut(name, ".")
			m, _ := typ.MethodByName(method)
			if fn.Type().NumIn() != m.Type.NumIn()-1 {
				t.Errorf("%s resolves to a %v, the method is a %v", name, fn.Type(), m.Type)
			}
		}
		if o.Run == nil && !o.NoCall {
			t.Errorf("%s: a recorded method needs a transition", name)
		}
	}
	for _, name := range []string{
		"Cards.ShipCard", "Cards.Plastic", "Webhooks.Flush", "Clock.Advance", "Digest", "Close",
		"Reset", "CheckInvariants", "cards.Ship", "Cards.", ".Ship", "", "Cards.s",
	} {
		if _, err := declaredMethod(s, name); err == nil {
			t.Errorf("replay resolves the undeclared name %q", name)
		}
	}
	if len(methods) < 80 {
		t.Fatalf("found %d control methods", len(methods))
	}
	t.Logf("%d Go control methods and Action, each declared once; %d recorded as calls", len(methods), calls)
}

// TestGoControlMethodsRunTheirOps: every Go control method that changes
// state runs its op (ctl.invoke, through invoke or run), so none records a
// call or begins a transaction of its own; no file registers a route by
// hand (only registerControl does, from the declarations).
func TestGoControlMethodsRunTheirOps(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	byHand := regexp.MustCompile(`\bcall[0-3]\(|\.wiring\.mux\.Handle(Func)?\(|routeCall\(`)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "control_decl.go" || name == "record.go" || name == "control.go" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range byHand.FindAll(b, -1) {
			t.Errorf("%s records or registers by hand: %s", name, m)
		}
	}
}

// docOp is one operation of the control OpenAPI document.
type docOp struct {
	method string
	segs   []string        // the path's segments, "{...}" for a parameter
	enum   map[string]bool // the values of the path's enumerated parameters
}

// controlDocOps reads the operations of the control OpenAPI document
// (mwallet-sim.yaml).
func controlDocOps(t *testing.T) []docOp {
	t.Helper()
	pathLine := regexp.MustCompile(`^  (/_sim/\S*):\s*$`)
	opLine := regexp.MustCompile(`^    (get|post|delete|put|patch|head):\s*$`)
	enumLine := regexp.MustCompile(`^\s+enum: \[(.*)\]\s*$`)
	var out []docOp
	var segs []string
	var enum map[string]bool
	for _, line := range strings.Split(string(openapi.Control()), "\n") {
		if m := pathLine.FindStringSubmatch(line); m != nil {
			segs, enum = strings.Split(m[1], "/"), map[string]bool{}
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			segs = nil
		}
		if segs == nil {
			continue
		}
		if m := opLine.FindStringSubmatch(line); m != nil {
			out = append(out, docOp{method: strings.ToUpper(m[1]), segs: segs, enum: enum})
		}
		if m := enumLine.FindStringSubmatch(line); m != nil {
			for _, v := range strings.Split(m[1], ",") {
				enum[strings.TrimSpace(v)] = true
			}
		}
	}
	if len(out) < 30 {
		t.Fatalf("found %d operations in mwallet-sim.yaml", len(out))
	}
	return out
}

// documented reports whether route ("POST /_sim/cards/{id}/refuse_close") is
// an operation of ops: a parameter matches a parameter, a literal segment
// the same literal or a parameter that enumerates it.
func documented(ops []docOp, route string) bool {
	method, path, _ := strings.Cut(route, " ")
	segs := strings.Split(path, "/")
	param := func(s string) bool { return strings.HasPrefix(s, "{") }
	for _, op := range ops {
		if op.method != method || len(op.segs) != len(segs) {
			continue
		}
		ok := true
		for i, s := range segs {
			d := op.segs[i]
			switch {
			case param(s) && param(d), s == d:
			case strings.HasSuffix(s, "...}") && d == "": // {file...} takes the empty path too
			case param(d) && op.enum[s]:
			default:
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestOpsAreDocumented: every declared route is an operation of the control
// OpenAPI document (an object action as the value its {action} parameter
// enumerates), and every operation of the document is a declared route.
func TestOpsAreDocumented(t *testing.T) {
	t.Parallel()
	doc := controlDocOps(t)
	for _, r := range []string{"POST /_sim/cards/{id}/nope", "DELETE /_sim/qrpay/line", "GET /_sim/kyc/quick/x"} {
		if documented(doc, r) {
			t.Fatalf("%s reads as documented", r)
		}
	}
	n := 0
	for _, o := range allOps {
		if o.Route == "" || o.NotFound {
			continue
		}
		n++
		if !documented(doc, o.Route) {
			t.Errorf("declared route %s is not in mwallet-sim.yaml", o.Route)
		}
	}
	// The document's operations, each a declared route (an operation whose
	// last parameter enumerates actions is a route for each value).
	for _, d := range doc {
		found := false
		for _, o := range allOps {
			if o.Route != "" && !o.NotFound && documented([]docOp{d}, o.Route) {
				found = true
			}
		}
		if !found {
			t.Errorf("mwallet-sim.yaml documents %s %s, which no op declares", d.method, strings.Join(d.segs, "/"))
		}
	}
	t.Logf("%d declared control routes, each documented; %d documented operations, each declared", n, len(doc))
}

// TestControlDomainsAreWellFormed: no key of the domain registry's tables
// is given twice, and every rule of earlier builds names a registered
// domain.
func TestControlDomainsAreWellFormed(t *testing.T) {
	if len(domainProblems) != 0 {
		t.Errorf("the domain registry's tables: %q", domainProblems)
	}
}
