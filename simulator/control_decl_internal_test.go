package simulator

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
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

// declaredNames counts the declarations of each name over every table.
func declaredNames() map[string]int {
	n := map[string]int{}
	for _, table := range append(slices.Clone(controlTables), placedTables...) {
		for _, d := range table {
			if d.name != "" {
				n[d.name]++
			}
		}
	}
	return n
}

// TestEveryControlMethodIsDeclaredOnce: every exported method of the 14
// control types is declared exactly once, and every declared name is such a
// method or Action.
func TestEveryControlMethodIsDeclaredOnce(t *testing.T) {
	t.Parallel()
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
	if len(methods) < 80 {
		t.Fatalf("found %d control methods", len(methods))
	}
	t.Logf("%d Go control methods and Action, each declared once", len(methods))
}

// TestDeclaredNamesResolveToTheirMethods: the method each declaration binds
// is the method its name says (Cards.SetLimit binds (*CardsControl).SetLimit),
// and replay dispatch resolves every recorded name to it; a name that
// records no call resolves to nothing.
func TestDeclaredNamesResolveToTheirMethods(t *testing.T) {
	t.Parallel()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	methods := goControlMethods(t)
	methods[ctlAction] = reflect.TypeOf(s)
	calls := 0
	for name, d := range controlByName {
		typ, ok := methods[name]
		if !ok {
			t.Errorf("%s: no such method", name)
			continue
		}
		_, method, ok := strings.Cut(name, ".")
		if !ok {
			method = name
		}
		want := "(*" + typ.Elem().Name() + ")." + method + "-fm"
		bound := d.bind(s)
		if got := runtime.FuncForPC(reflect.ValueOf(bound).Pointer()).Name(); !strings.HasSuffix(got, want) {
			t.Errorf("%s binds %s, want %s", name, got, want)
		}
		m, _ := typ.MethodByName(method)
		if got, want := reflect.TypeOf(bound), m.Type; got.NumIn() != want.NumIn()-1 || got.NumOut() != want.NumOut() {
			t.Errorf("%s binds a %v, the method is a %v", name, got, want)
		}
		fn, err := s.wiring.ctl.controlMethod(name)
		if d.noCall {
			if err == nil {
				t.Errorf("%s records no call, yet replay resolves it", name)
			}
			continue
		}
		calls++
		if err != nil {
			t.Errorf("replay cannot resolve %s: %v", name, err)
			continue
		}
		if got, want := runtime.FuncForPC(fn.Pointer()).Name(), runtime.FuncForPC(reflect.ValueOf(bound).Pointer()).Name(); got != want {
			t.Errorf("replay resolves %s to %s, want %s", name, got, want)
		}
	}
	if calls < 67 {
		t.Errorf("%d recorded names declared, want the 67 of today's recordings", calls)
	}
}

// TestRecordedNamesComeFromTheDeclarations: the Go control methods pass a
// declared constant to call0..call3, never a literal, so a recorded name
// exists once in the source.
func TestRecordedNamesComeFromTheDeclarations(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	literal := regexp.MustCompile(`call[0-3]\(\s*[\w.]+,\s*"[^"]*"`)
	named := regexp.MustCompile(`call[0-3]\(\s*[\w.]+,\s*(ctl\w+)`)
	uses := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAll(b, -1) {
			t.Errorf("%s records a call under a literal name: %s", name, m)
		}
		uses += len(named.FindAll(b, -1))
	}
	if uses != len(declaredNames())-countNoCall() {
		t.Errorf("%d Go control methods record under a declared name, want %d", uses, len(declaredNames())-countNoCall())
	}
}

// countNoCall counts the declared names that record no call.
func countNoCall() int {
	n := 0
	for _, d := range controlByName {
		if d.noCall {
			n++
		}
	}
	return n
}

// TestRoutesAndActionsRegisterOnlyFromDeclarations: outside
// control_decl.go no source registers a control route or an object action
// by hand; each is a row of a declaration table.
func TestRoutesAndActionsRegisterOnlyFromDeclarations(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	byHand := regexp.MustCompile(`(\.actions\[[^\]]*\]\s*=[^=]|\bctl\.control(Go)?\()`)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "control_decl.go" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range byHand.FindAll(b, -1) {
			t.Errorf("%s registers by hand: %s", name, m)
		}
	}
}

// TestUndeclaredRecordedNamesAreRefused: replay dispatch knows only the
// declarations. A recorded name with no declaration, one of a method that
// records no call, and an exported method of *Simulator that is no control
// method are all refused, whatever reflection would find.
func TestUndeclaredRecordedNamesAreRefused(t *testing.T) {
	t.Parallel()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{
		"Cards.ShipCard", "Cards.Plastic", "Webhooks.Flush", "Clock.Advance", "Digest", "Close",
		"Reset", "CheckInvariants", "cards.Ship", "Cards.", ".Ship", "", "Cards.s",
	} {
		if _, err := s.wiring.ctl.controlMethod(name); err == nil {
			t.Errorf("replay resolves the undeclared name %q", name)
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

// TestDeclaredRoutesAreRegisteredAndDocumented: every declared route is
// registered, in the order of the tables, and is an operation of the
// control OpenAPI document.
func TestDeclaredRoutesAreRegisteredAndDocumented(t *testing.T) {
	t.Parallel()
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc := controlDocOps(t)
	for _, r := range []string{"POST /_sim/cards/{id}/nope", "DELETE /_sim/qrpay/line", "GET /_sim/kyc/quick/x"} {
		if documented(doc, r) {
			t.Fatalf("%s reads as documented", r)
		}
	}
	// controlTables register as one run; each placed table as a run of
	// its own.
	runs := [][]controlDecl{slices.Concat(controlTables...)}
	runs = append(runs, placedTables...)
	total := 0
	for _, table := range runs {
		var declared []string
		for _, d := range table {
			if d.route == "" {
				if d.call != nil || d.inTx != nil || d.asCall != nil {
					t.Errorf("%s: an answer without a route", d.name)
				}
				continue
			}
			if n := countSet(d.call != nil, d.inTx != nil, d.asCall != nil); n != 1 {
				t.Errorf("%s: a route needs exactly one of call, inTx and asCall, has %d", d.route, n)
			}
			if d.asCall != nil && (d.name == "" || d.noCall) {
				t.Errorf("%s: a route entered as a call needs the name of a Go method that records its calls", d.route)
			}
			declared = append(declared, d.route)
			if d.route == "POST /_sim/{rest...}" {
				// The object actions: each is documented on its own.
				for _, key := range s.Actions() {
					i := strings.LastIndex(key, "/")
					if !documented(doc, "POST /_sim/"+key[:i]+"/{id}"+key[i:]) && !documented(doc, "POST /_sim/"+key) {
						t.Errorf("object action %s is not in mwallet-sim.yaml", key)
					}
				}
				continue
			}
			if !documented(doc, d.route) {
				t.Errorf("declared route %s is not in mwallet-sim.yaml", d.route)
			}
		}
		i := slices.Index(s.st.controlRoutes, declared[0])
		if i < 0 || i+len(declared) > len(s.st.controlRoutes) {
			t.Fatalf("declared route %s is not registered", declared[0])
		}
		if diff := cmp.Diff(declared, s.st.controlRoutes[i:i+len(declared)]); diff != "" {
			t.Errorf("declared routes as registered (-declared +registered):\n%s", diff)
		}
		total += len(declared)
	}
	if total != len(s.st.controlRoutes) {
		t.Errorf("%d control routes declared, %d registered: every control route is declared", total, len(s.st.controlRoutes))
	}
	t.Logf("%d declared control routes, registered in order and documented", total)
}

// countSet counts the true values.
func countSet(v ...bool) int {
	n := 0
	for _, b := range v {
		if b {
			n++
		}
	}
	return n
}
