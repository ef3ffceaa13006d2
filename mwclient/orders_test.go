package mwclient_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// orderTypes are the orders of every product line: what a write creates and
// a read follows to its outcome.
var orderTypes = map[string][]string{
	"qrpay":      {"Order"},
	"remittance": {"Order"},
	"cards":      {"Application", "TopUp"},
	"deposits":   {"Deposit"},
}

// TestOrdersAreHandedAsPointers holds one convention for orders across the
// product lines, in every exported function and method: a single order, as
// a result or as an argument, is a pointer (*Order, as Get returns it), and
// its methods have pointer receivers; only lists carry values (the items of
// an iter.Seq2, a slice, a Page).
func TestOrdersAreHandedAsPointers(t *testing.T) {
	t.Parallel()
	checked := 0
	for pkg, types := range orderTypes {
		isOrder := map[string]bool{}
		for _, n := range types {
			isOrder[n] = true
		}
		dir := filepath.Join("..", pkg)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || !fn.Name.IsExported() {
					continue
				}
				name := pkg + "." + fn.Name.Name
				if fn.Recv != nil {
					recv := fn.Recv.List[0].Type
					if id, ok := recv.(*ast.Ident); ok && isOrder[id.Name] {
						t.Errorf("%s: method on the value %s; orders have pointer receivers", name, id.Name)
					}
					if star, ok := recv.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok && isOrder[id.Name] {
							checked++
						}
					}
				}
				var fields []*ast.Field
				fields = append(fields, fn.Type.Params.List...)
				if fn.Type.Results != nil {
					fields = append(fields, fn.Type.Results.List...)
				}
				for _, fld := range fields {
					// Only a bare identifier is an order by value; *T,
					// []T, iter.Seq2[T, error] and Page[T] are not.
					if id, ok := fld.Type.(*ast.Ident); ok && isOrder[id.Name] {
						t.Errorf("%s takes or returns %s by value; a single order is *%s", name, id.Name, id.Name)
					}
					if star, ok := fld.Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok && isOrder[id.Name] {
							checked++
						}
					}
				}
			}
		}
	}
	if checked < 15 {
		t.Errorf("found %d uses of *order types in exported signatures and receivers; is the walk reading the product packages?", checked)
	}
}
