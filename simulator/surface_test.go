package simulator_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxSimulatorMethods bounds the exported methods of *Simulator: it keeps
// construction, serving, the client, the checks and the central reads; every
// control method belongs on one of its grouped fields.
const maxSimulatorMethods = 40

// packageDoc reads the documentation of package simulator, as go doc does.
func packageDoc(t *testing.T) *doc.Package {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/mwallet/mwallet-go/simulator")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func docType(t *testing.T, p *doc.Package, name string) *doc.Type {
	t.Helper()
	for _, typ := range p.Types {
		if typ.Name == name {
			return typ
		}
	}
	t.Fatalf("no type %s", name)
	return nil
}

// TestSimulatorMethodCount pins the size of *Simulator's own method set.
func TestSimulatorMethodCount(t *testing.T) {
	t.Parallel()
	sim := docType(t, packageDoc(t), "Simulator")
	var names []string
	for _, m := range sim.Methods {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	if len(names) > maxSimulatorMethods {
		t.Errorf("*Simulator has %d exported methods, want at most %d: put control methods on a grouped field\n%s",
			len(names), maxSimulatorMethods, strings.Join(names, "\n"))
	}
}

// TestSimulatorGroups checks every grouped field of Simulator: a documented
// field whose type is documented, and every method of that type documented.
func TestSimulatorGroups(t *testing.T) {
	t.Parallel()
	p := packageDoc(t)
	sim := docType(t, p, "Simulator")
	st := sim.Decl.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType)
	groups := 0
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if !n.IsExported() {
				continue
			}
			groups++
			if f.Doc == nil {
				t.Errorf("field Simulator.%s has no doc comment", n.Name)
			}
			star, ok := f.Type.(*ast.StarExpr)
			if !ok {
				t.Errorf("field Simulator.%s is not a pointer to a group type", n.Name)
				continue
			}
			typ := docType(t, p, star.X.(*ast.Ident).Name)
			if strings.TrimSpace(typ.Doc) == "" {
				t.Errorf("type %s has no doc comment", typ.Name)
			}
			if len(typ.Methods) == 0 {
				t.Errorf("type %s (Simulator.%s) has no methods", typ.Name, n.Name)
			}
			for _, m := range typ.Methods {
				if !strings.HasPrefix(m.Doc, m.Name+" ") {
					t.Errorf("%s.%s: doc comment must start with its name, got %q", typ.Name, m.Name, m.Doc)
				}
			}
		}
	}
	if groups == 0 {
		t.Fatal("Simulator has no grouped fields")
	}
}
