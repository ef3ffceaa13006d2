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
// groups (sim.Faults, sim.Cards, ...) whose last result is an error.
func errorMethods(t *testing.T) map[string]map[string]bool {
	t.Helper()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	st := reflect.TypeOf(&simulator.Simulator{}).Elem()
	out := map[string]map[string]bool{}
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer {
			continue
		}
		for j := 0; j < f.Type.NumMethod(); j++ {
			m := f.Type.Method(j)
			if n := m.Type.NumOut(); n > 0 && m.Type.Out(n-1) == errType {
				if out[f.Name] == nil {
					out[f.Name] = map[string]bool{}
				}
				out[f.Name][m.Name] = true
			}
		}
	}
	return out
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
	if len(methods) < 10 || !methods["Faults"]["Clear"] || !methods["Requests"]["Reset"] || !methods["Outcomes"]["Set"] {
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
			if ok && methods[group.Sel.Name][sel.Sel.Name] {
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
