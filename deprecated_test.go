package mwallet_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNothingIsDeprecated: the module has not been released, so an API is
// removed or renamed (with a CHANGELOG line), never kept under a
// Deprecated: paragraph. Every doc comment of every Go file of the
// repository (nested modules included, tests and testdata aside) is read.
func TestNothingIsDeprecated(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		files++
		for _, g := range f.Comments {
			for _, line := range strings.Split(g.Text(), "\n") {
				if strings.HasPrefix(line, "Deprecated:") {
					t.Errorf("%s: a Deprecated: paragraph; remove or rename the API instead (with a CHANGELOG line)", fset.Position(g.Pos()))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files, want the whole repository", files)
	}
	t.Logf("%d Go files read, no Deprecated: paragraph", files)
}

// maintainerNote is what a doc comment says only to a maintainer: the name
// of one of the repository's tests (a test the user writes in an example,
// "func TestX(", is theirs), or a rule of the repository's layout.
var maintainerNote = regexp.MustCompile(`\bTest[A-Z]\w*|\binternal package|\bFuzz[A-Z]\w*`)

// TestGoDocHasNoMaintainerNotes: what go doc shows of a public package (the
// package comment, and the doc of every exported declaration, field and
// method) speaks to a user: it names no test and no rule of the layout.
// Such notes go in comments go doc does not show.
func TestGoDocHasNoMaintainerNotes(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	docs := 0
	check := func(g *ast.CommentGroup) {
		if g == nil {
			return
		}
		docs++
		text := g.Text()
		for _, loc := range maintainerNote.FindAllStringIndex(text, -1) {
			if strings.HasSuffix(text[:loc[0]], "func ") {
				continue // a test the user writes, in an example
			}
			t.Errorf("%s: go doc shows %q, a note for maintainers", fset.Position(g.Pos()), text[loc[0]:loc[1]])
		}
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "internal" || name == "cmd" || name == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		check(f.Doc)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
					check(d.Doc)
				}
			case *ast.GenDecl:
				exported := false
				for _, spec := range d.Specs {
					switch sp := spec.(type) {
					case *ast.TypeSpec:
						if sp.Name.IsExported() {
							exported = true
							check(sp.Doc)
							if st, ok := sp.Type.(*ast.StructType); ok {
								for _, fl := range st.Fields.List {
									if len(fl.Names) > 0 && fl.Names[0].IsExported() {
										check(fl.Doc)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.IsExported() {
								exported = true
							}
						}
						if exported {
							check(sp.Doc)
						}
					}
				}
				if exported {
					check(d.Doc)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 500 {
		t.Fatalf("read %d doc comments, want every public package's", docs)
	}
	t.Logf("%d doc comments of public declarations read", docs)
}

// exportedRecv reports a method's receiver of an exported type.
func exportedRecv(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	typ := recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
