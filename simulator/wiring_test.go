package simulator

import (
	"go/ast"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// keepsASimulator reports whether simulatorHolders (structure_test.go)
// allows a field of type name to hold the *Simulator.
func keepsASimulator(name string) bool {
	for k := range simulatorHolders {
		if typ, _, _ := strings.Cut(k, "."); typ == name {
			return true
		}
	}
	return false
}

// TestWiringComponentsHoldNoSimulator: every component reached through
// wiring (a field pointing to a struct of this package) holds what it
// uses, named, and never a *Simulator, neither as a field nor in the body
// of one of its methods (holding the simulator would only rename the
// hub). What a component needs from elsewhere is a callback, set in build.
func TestWiringComponentsHoldNoSimulator(t *testing.T) {
	t.Parallel()
	simType := reflect.TypeOf(Simulator{})
	holdsSim := func(typ reflect.Type) bool {
		for {
			switch typ.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
				typ = typ.Elem()
				continue
			}
			return typ == simType
		}
	}
	components := map[string]string{} // type name -> wiring field
	var fields []string
	wt := reflect.TypeOf(wiring{})
	for i := range wt.NumField() {
		f := wt.Field(i)
		if f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct || f.Type.Elem().PkgPath() != simType.PkgPath() {
			continue
		}
		ct := f.Type.Elem()
		components[ct.Name()] = f.Name
		fields = append(fields, f.Name)
		if keepsASimulator(ct.Name()) {
			continue
		}
		for j := range ct.NumField() {
			if holdsSim(ct.Field(j).Type) {
				t.Errorf("wiring.%s (%s) holds a *Simulator in its field %s: give it what it uses instead", f.Name, ct.Name(), ct.Field(j).Name)
			}
		}
	}
	// The gateway is a component: the list is not empty by accident.
	if components["gateway"] != "gw" {
		t.Fatalf("wiring's components are %v: want the gateway among them, as gw", fields)
	}

	// A method of a component never names the Simulator type.
	_, files := simulatorFiles(t)
	var named []string
	for name, f := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			se, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			id, ok := se.X.(*ast.Ident)
			if !ok || components[id.Name] == "" || keepsASimulator(id.Name) {
				continue
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				if i, ok := n.(*ast.Ident); ok && i.Name == "Simulator" {
					named = append(named, name+": "+id.Name+"."+fd.Name.Name)
					return false
				}
				return true
			})
		}
	}
	sort.Strings(named)
	if diff := cmp.Diff([]string(nil), named); diff != "" {
		t.Errorf("methods of wiring's components that name the Simulator (take a callback instead):\n%s", diff)
	}
}
