package mwallet_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/mwallet/mwallet-go"

// isInternal reports whether an import path (or a module-relative
// directory) is an internal package, which users cannot import.
func isInternal(p string) bool {
	return p == "internal" || strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal")
}

// moduleDirs returns the module-relative directories holding Go packages of
// this module (nested modules, testdata and hidden directories excluded).
func moduleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		if p != "." {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
		}
		matches, _ := filepath.Glob(filepath.Join(p, "*.go"))
		if len(matches) > 0 {
			dirs = append(dirs, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

func parsePackage(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range pkgs {
		for _, f := range p.Files {
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return fset.File(files[i].Pos()).Name() < fset.File(files[j].Pos()).Name() })
	return files
}

// No exported identifier of a package users can import names an internal
// package, in its signature or in its documentation: what go doc shows of
// every non-internal package of the module is checked through go/doc, which
// keeps exactly the exported declarations, fields and methods.
func TestNoExportedAPIMentionsAnInternalPackage(t *testing.T) {
	t.Parallel()
	if problems := internalMentions(t); len(problems) > 0 {
		t.Errorf("exported API names internal packages (users cannot import them):\n%s", strings.Join(problems, "\n"))
	}
}

// internalMentions returns one line per exported declaration or doc comment
// of a non-internal package of the module (read from the module root, the
// test's directory) that names an internal package.
func internalMentions(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	dirs := moduleDirs(t)
	// The names internal packages are known by, for the documentation check.
	internalNames := map[string]bool{}
	for _, dir := range dirs {
		if !isInternal(dir) {
			continue
		}
		for _, f := range parsePackage(t, fset, dir) {
			if f.Name.Name != "main" {
				internalNames[f.Name.Name] = true
			}
		}
	}
	// A name that a public package of the module also has (the simulator's
	// internal/deposits beside the SDK's deposits) cannot be told apart in
	// prose: the import check below still catches a declaration using it.
	for _, dir := range dirs {
		if isInternal(dir) {
			continue
		}
		for _, f := range parsePackage(t, fset, dir) {
			delete(internalNames, f.Name.Name)
		}
	}
	var names []string
	for n := range internalNames {
		names = append(names, regexp.QuoteMeta(n))
	}
	sort.Strings(names)
	docRE := regexp.MustCompile(`\binternal/|\b(?:` + strings.Join(names, "|") + `)\.[A-Z]\w*`)

	var problems []string
	for _, dir := range dirs {
		if isInternal(dir) {
			continue
		}
		files := parsePackage(t, fset, dir)
		if len(files) == 0 {
			continue
		}
		// Per file, the local names of its internal imports.
		internalImports := map[string]map[string]string{}
		for _, f := range files {
			m := map[string]string{}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(p, modulePath+"/") || !isInternal(strings.TrimPrefix(p, modulePath+"/")) {
					continue
				}
				name := path.Base(p)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				m[name] = p
			}
			internalImports[fset.File(f.Pos()).Name()] = m
		}
		importPath := modulePath
		if dir != "." {
			importPath += "/" + dir
		}
		pkg, err := doc.NewFromFiles(fset, files, importPath)
		if err != nil {
			t.Fatal(err)
		}
		report := func(pos token.Pos, what string) {
			p := fset.Position(pos)
			problems = append(problems, p.Filename+":"+strconv.Itoa(p.Line)+": "+what)
		}
		checkDoc := func(pos token.Pos, name, text string) {
			if m := docRE.FindString(text); m != "" {
				report(pos, name+": documentation mentions "+m)
			}
		}
		checkDecl := func(name, docText string, decl ast.Node) {
			if decl == nil {
				return
			}
			checkDoc(decl.Pos(), name, docText)
			imports := internalImports[fset.Position(decl.Pos()).Filename]
			ast.Inspect(decl, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					n.Body = nil // go doc shows no body
				case *ast.SelectorExpr:
					if id, ok := n.X.(*ast.Ident); ok && imports[id.Name] != "" {
						report(n.Pos(), name+": declaration names "+imports[id.Name]+"."+n.Sel.Name)
					}
				case *ast.Field:
					for _, cg := range []*ast.CommentGroup{n.Doc, n.Comment} {
						if cg != nil {
							checkDoc(cg.Pos(), name, cg.Text())
						}
					}
				case *ast.ValueSpec:
					for _, cg := range []*ast.CommentGroup{n.Doc, n.Comment} {
						if cg != nil {
							checkDoc(cg.Pos(), name, cg.Text())
						}
					}
				}
				return true
			})
		}
		checkDoc(files[0].Package, "package "+pkg.Name, pkg.Doc)
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				checkDoc(v.Decl.Pos(), strings.Join(v.Names, ", "), v.Doc)
				for _, spec := range v.Decl.Specs {
					var names []string
					for _, n := range spec.(*ast.ValueSpec).Names {
						names = append(names, n.Name)
					}
					checkDecl(strings.Join(names, ", "), "", spec)
				}
			}
		}
		funcs := func(fs []*doc.Func) {
			for _, f := range fs {
				name := f.Name
				if f.Recv != "" {
					name = f.Recv + "." + f.Name
				}
				checkDecl(name, f.Doc, f.Decl)
			}
		}
		values(pkg.Consts)
		values(pkg.Vars)
		funcs(pkg.Funcs)
		for _, typ := range pkg.Types {
			checkDecl(typ.Name, typ.Doc, typ.Decl)
			values(typ.Consts)
			values(typ.Vars)
			funcs(typ.Funcs)
			funcs(typ.Methods)
		}
	}
	return problems
}
