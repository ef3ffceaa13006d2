package mwallet_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sdkPackages are the directories whose methods call the service.
var sdkPackages = []string{".", "cards", "deposits", "kyc", "members", "qrpay", "remittance", "webhooks"}

// readmeScopes reads the scope table of docs/concepts.md (checked against the
// simulator's endpoint registry by the simulator's tests): "METHOD /path"
// to scope.
func readmeScopes(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("docs/concepts.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `((?:GET|POST|DELETE) /v1/[^`]*)` \\| `([a-z]+:[a-z]+)` \\|")
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			out[m[1]] = m[2]
		}
	}
	if len(out) == 0 {
		t.Fatal("docs/concepts.md has no scope table")
	}
	return out
}

// docEndpoint finds "(METHOD /v1/..." in a doc comment.
var docEndpoint = regexp.MustCompile(`\((GET|POST|DELETE) (/v1/[^\s,;)?]*)`)

// bestEndpoint returns the table's endpoint that a path written in a doc
// comment names: same method and number of segments, a {param} or <param>
// matching any segment, and among several the one with the most equal
// segments ("/v1/cards/{id}" names GET /v1/cards/{id}, not
// /v1/cards/products). It returns "" when none matches.
func bestEndpoint(scopes map[string]string, method, doc string) string {
	wild := func(s string) bool { return strings.HasPrefix(s, "{") || strings.Contains(s, "<") }
	best, bestEqual := "", -1
	for key := range scopes {
		m, path, _ := strings.Cut(key, " ")
		ds, ts := strings.Split(doc, "/"), strings.Split(path, "/")
		if m != method || len(ds) != len(ts) {
			continue
		}
		equal := 0
		for i := range ds {
			switch {
			case ds[i] == ts[i]:
				equal++
			case wild(ds[i]) || wild(ts[i]):
			default:
				equal = -1
			}
			if equal < 0 {
				break
			}
		}
		if equal > bestEqual {
			best, bestEqual = key, equal
		}
	}
	return best
}

// TestMethodDocsNameTheirScope reads every exported method of the SDK's
// packages. A method whose documentation names an endpoint, as
// "(METHOD /v1/path", must also name that endpoint's scope as "scope X";
// and every endpoint of the scope table must be named by some method.
func TestMethodDocsNameTheirScope(t *testing.T) {
	t.Parallel()
	scopes := readmeScopes(t)
	named := map[string]bool{}
	for _, dir := range sdkPackages {
		for _, m := range sdkMethods(t, dir) {
			text := strings.Join(strings.Fields(m.doc), " ")
			for _, sm := range docEndpoint.FindAllStringSubmatch(text, -1) {
				key := bestEndpoint(scopes, sm[1], sm[2])
				if key == "" {
					t.Errorf("%s.%s names %s %s, which is not in the scope table", dir, m.name, sm[1], sm[2])
					continue
				}
				named[key] = true
				if scope := scopes[key]; !strings.Contains(text, "scope "+scope) {
					t.Errorf("%s.%s names %s but not its scope: want %q in its doc", dir, m.name, key, "scope "+scope)
				}
			}
		}
	}
	for key := range scopes {
		if !named[key] {
			t.Errorf("no SDK method documents %s", key)
		}
	}
}

type docMethod struct{ name, doc string }

// sdkMethods returns the exported methods (and functions) of the package in
// dir with their doc comments.
func sdkMethods(t *testing.T, dir string) []docMethod {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "example.com/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []docMethod
	for _, typ := range p.Types {
		for _, m := range typ.Methods {
			out = append(out, docMethod{typ.Name + "." + m.Name, m.Doc})
		}
		for _, f := range typ.Funcs {
			out = append(out, docMethod{f.Name, f.Doc})
		}
	}
	for _, f := range p.Funcs {
		out = append(out, docMethod{f.Name, f.Doc})
	}
	return out
}
