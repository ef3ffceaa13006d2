package mwallet_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// errorMethods returns, by group, the methods of the simulator's control
// groups (sim.Faults, sim.Cards, ...) whose last result is an error, each
// with its type (the receiver first).
func errorMethods(t *testing.T) map[string]map[string]reflect.Type {
	t.Helper()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	st := reflect.TypeOf(&simulator.Simulator{}).Elem()
	out := map[string]map[string]reflect.Type{}
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer {
			continue
		}
		for j := 0; j < f.Type.NumMethod(); j++ {
			m := f.Type.Method(j)
			if n := m.Type.NumOut(); n > 0 && m.Type.Out(n-1) == errType {
				if out[f.Name] == nil {
					out[f.Name] = map[string]reflect.Type{}
				}
				out[f.Name][m.Name] = m.Type
			}
		}
	}
	return out
}

// mayCall reports whether call c can be a call of the method of type m
// (nil: no such method): its arguments fit the method's parameters. A
// field of the same name holding another type (the gateway state's
// Faults.Clear(tx)) is not the control method, whose arguments differ.
func mayCall(c *ast.CallExpr, m reflect.Type) bool {
	if m == nil {
		return false
	}
	params := m.NumIn() - 1 // the receiver
	switch {
	case len(c.Args) == 1 && params > 1:
		// f(g()): g's results may spread over the parameters.
		_, spread := c.Args[0].(*ast.CallExpr)
		return spread
	case m.IsVariadic():
		return len(c.Args) >= params-1
	default:
		return len(c.Args) == params
	}
}

// TestNoDroppedControlErrors is the linter for the simulator's control
// methods that return an error (Faults.Clear, Requests.Reset, Outcomes.Set,
// Cards.SetLimit and every other one, found by reflection): a call written
// as a plain statement, or deferred or started as a goroutine, drops the
// error and fails here with its file and line, in every Go file of the
// repository (tests, examples and nested modules included). Handle the
// error, or discard it visibly with _ =.
func TestNoDroppedControlErrors(t *testing.T) {
	t.Parallel()
	methods := errorMethods(t)
	if len(methods) < 10 || methods["Faults"]["Clear"] == nil || methods["Requests"]["Reset"] == nil || methods["Outcomes"]["Set"] == nil {
		t.Fatalf("control methods found by reflection: %v", methods)
	}
	files := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			var call ast.Expr
			switch s := n.(type) {
			case *ast.ExprStmt:
				call = s.X
			case *ast.DeferStmt:
				call = s.Call
			case *ast.GoStmt:
				call = s.Call
			default:
				return true
			}
			c, ok := ast.Unparen(call).(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			group, ok := sel.X.(*ast.SelectorExpr)
			if ok && mayCall(c, methods[group.Sel.Name][sel.Sel.Name]) {
				t.Errorf("%s: the error of %s.%s is dropped", fset.Position(c.Pos()), group.Sel.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("read %d Go files; is the walk starting at the repository root?", files)
	}
}
