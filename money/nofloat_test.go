package money_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoFloatInPackage parses the package's non-test sources and fails on any
// identifier naming a float (float32, float64, ParseFloat, SetFloat64,
// Float64, ...): money must never pass through binary floating point.
// Comments are not identifiers, so they may still mention floats.
func TestNoFloatInPackage(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && strings.Contains(strings.ToLower(id.Name), "float") {
				t.Errorf("%s: identifier %s", fset.Position(id.Pos()), id.Name)
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.FLOAT {
				t.Errorf("%s: floating-point literal %s", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
