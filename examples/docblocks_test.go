package examples_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Every ```go block of the module's Markdown (README.md, simulator/README.md,
// docs/*.md and any other .md outside nested modules) compiles as shown. A
// block is either declarations (functions, types: compiled as they are) or
// statements (compiled as the body of a function). What a reader cannot
// see, and the check therefore supplies, is only:
//
//   - the imports: a name used as pkg.Name is imported from docImports
//     (the standard library packages and this module's packages);
//   - in statement blocks, these variables when the block uses them without
//     declaring them, as the README's first test declares them:
//     t *testing.T, ctx context.Context, sim *simulator.Simulator and
//     client *mwclient.Client;
//   - a use of the variables a statement block declares at its top level
//     (a fragment may end with a result it does not use).
//
// Anything else a block uses must exist in the SDK or be declared in the
// block: an undefined helper (a samplePromptPay() shown nowhere) fails with
// the Markdown file and line. A helper may be shown in another block of the
// same page: each page becomes one package (one Go file per block) of a
// throwaway module that requires this one through a replace directive; one
// `go build` compiles them all, from the build cache that `go test` has
// already filled.

// docImports maps a package name, as written in a block, to its import path.
var docImports = map[string]string{
	"bytes": "bytes", "context": "context", "errors": "errors", "fmt": "fmt", "io": "io",
	"json": "encoding/json", "log": "log", "slog": "log/slog", "http": "net/http",
	"httptest": "net/http/httptest", "url": "net/url", "os": "os", "signal": "os/signal",
	"strings": "strings", "sync": "sync", "testing": "testing", "time": "time",

	"mwallet":    "github.com/mwallet/mwallet-go",
	"cards":      "github.com/mwallet/mwallet-go/cards",
	"deposits":   "github.com/mwallet/mwallet-go/deposits",
	"kyc":        "github.com/mwallet/mwallet-go/kyc",
	"members":    "github.com/mwallet/mwallet-go/members",
	"money":      "github.com/mwallet/mwallet-go/money",
	"mwclient":   "github.com/mwallet/mwallet-go/mwclient",
	"qrpay":      "github.com/mwallet/mwallet-go/qrpay",
	"remittance": "github.com/mwallet/mwallet-go/remittance",
	"webhooks":   "github.com/mwallet/mwallet-go/webhooks",
	"simulator":  "github.com/mwallet/mwallet-go/simulator",
	"emvqr":      "github.com/mwallet/mwallet-go/simulator/emvqr",
	"sampleqr":   "github.com/mwallet/mwallet-go/simulator/sampleqr",
	"simtest":    "github.com/mwallet/mwallet-go/simulator/simtest",
}

// docGiven are the variables a statement block may use undeclared.
var docGiven = []struct{ name, typ string }{
	{"t", "*testing.T"},
	{"ctx", "context.Context"},
	{"sim", "*simulator.Simulator"},
	{"client", "*mwclient.Client"},
}

// docBlock is one ```go block of a Markdown file.
type docBlock struct {
	file string // relative to the module root, slash-separated
	line int    // line of the block's first code line
	code string
}

var goFence = regexp.MustCompile("(?m)^```go\n")

// docBlocks returns the Go blocks of md (the contents of file).
func docBlocks(file, md string) []docBlock {
	var out []docBlock
	for _, loc := range goFence.FindAllStringIndex(md, -1) {
		start := loc[1]
		end := strings.Index(md[start:], "\n```")
		if end < 0 {
			end = len(md) - start
		}
		out = append(out, docBlock{
			file: file,
			line: strings.Count(md[:start], "\n") + 1,
			code: md[start : start+end+1],
		})
	}
	return out
}

// moduleMarkdown returns the .md files of the module rooted at root,
// skipping nested modules (directories with their own go.mod) and hidden
// directories.
func moduleMarkdown(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// docSource renders a block as a Go file of package name, with //line
// directives so that compiler errors name the Markdown file and line.
func docSource(b docBlock, name string) (string, error) {
	fset := token.NewFileSet()
	declSrc := "package " + name + "\n" + b.code
	if f, err := parser.ParseFile(fset, "", declSrc, 0); err == nil && len(f.Decls) > 0 {
		return render(name, f, nil, b, "", ""), nil
	}
	// Statements: find the free names first, then supply what is given.
	body := func(params string, uses string) string {
		return "package " + name + "\nfunc _(" + params + ") {\n" + b.code + uses + "}\n"
	}
	f, err := parser.ParseFile(fset, "", body("", ""), 0)
	if err != nil {
		return "", fmt.Errorf("%s:%d: neither declarations nor statements: %v", b.file, b.line, err)
	}
	free := map[string]bool{}
	for _, id := range f.Unresolved {
		free[id.Name] = true
	}
	var params []string
	for _, g := range docGiven {
		if free[g.name] {
			params = append(params, g.name+" "+g.typ)
		}
	}
	// The variables the block declares at its top level, used once.
	var declared []string
	fn := f.Decls[0].(*ast.FuncDecl)
	for _, st := range fn.Body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						declared = append(declared, id.Name)
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, sp := range gd.Specs {
					for _, id := range sp.(*ast.ValueSpec).Names {
						if id.Name != "_" {
							declared = append(declared, id.Name)
						}
					}
				}
			}
		}
	}
	uses := ""
	for _, d := range declared {
		uses += "_ = " + d + "\n"
	}
	return render(name, f, free, b, strings.Join(params, ", "), uses), nil
}

// render writes the file: package clause, the imports its selectors need,
// then the block under a //line directive.
func render(name string, f *ast.File, free map[string]bool, b docBlock, params, uses string) string {
	// Package names used as selectors and not declared in the block.
	unresolved := map[string]bool{}
	for _, id := range f.Unresolved {
		unresolved[id.Name] = true
	}
	need := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && unresolved[id.Name] {
				if _, known := docImports[id.Name]; known {
					need[id.Name] = true
				}
			}
		}
		return true
	})
	for _, g := range docGiven { // the given variables' types
		if free[g.name] {
			need[strings.TrimPrefix(strings.Split(g.typ, ".")[0], "*")] = true
		}
	}
	var src strings.Builder
	fmt.Fprintf(&src, "package %s\n\n", name)
	names := make([]string, 0, len(need))
	for n := range need {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&src, "import %s %q\n", n, docImports[n])
	}
	if free == nil { // declarations
		fmt.Fprintf(&src, "\n//line %s:%d\n%s", b.file, b.line, b.code)
		return src.String()
	}
	fmt.Fprintf(&src, "\nfunc _(%s) {\n//line %s:%d\n%s", params, b.file, b.line, b.code)
	fmt.Fprintf(&src, "//line %s-check:1\n%s}\n", b.file, uses)
	return src.String()
}

// buildDocBlocks compiles blocks in a throwaway module that requires the
// module at root, and returns the compiler's complaints ("" when all
// compile).
func buildDocBlocks(t *testing.T, root string, blocks []docBlock) string {
	t.Helper()
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf("module docblocks\n\ngo 1.24\n\nrequire github.com/mwallet/mwallet-go v0.0.0\n\nreplace github.com/mwallet/mwallet-go => %s\n", absRoot)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	// One package per Markdown file, one Go file per block: a block may use
	// what another block of the same page declares (a helper shown there).
	pkgs := map[string]string{}
	for i, b := range blocks {
		pkg, ok := pkgs[b.file]
		if !ok {
			pkg = fmt.Sprintf("doc%d", len(pkgs)+1)
			pkgs[b.file] = pkg
			if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		src, err := docSource(b, pkg)
		if err != nil {
			return err.Error()
		}
		if err := os.WriteFile(filepath.Join(dir, pkg, fmt.Sprintf("block%d.go", i+1)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	// -mod=mod lets the go command fill in the requirements the module
	// inherits from this one (from the module cache `go test` filled).
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if out.Len() == 0 {
			return err.Error()
		}
		return out.String()
	}
	return ""
}

// TestDocGoBlocksCompile compiles every Go block of the module's Markdown.
func TestDocGoBlocksCompile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("compiles the documentation's Go blocks with the go command")
	}
	const root = ".."
	var blocks []docBlock
	perFile := map[string]int{}
	for _, f := range moduleMarkdown(t, root) {
		md, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		bs := docBlocks(f, string(md))
		perFile[f] = len(bs)
		blocks = append(blocks, bs...)
	}
	// The files that must have blocks do (the walk is not silently empty).
	for _, f := range []string{"README.md", "simulator/README.md", "docs/testing.md"} {
		if perFile[f] == 0 {
			t.Errorf("%s: no Go blocks found", f)
		}
	}
	t.Logf("compiling %d Go blocks from %d Markdown files", len(blocks), len(perFile))
	if out := buildDocBlocks(t, root, blocks); out != "" {
		t.Errorf("Go blocks of the documentation do not compile as shown:\n%s", out)
	}
}

// TestDocBlockCheckCatchesUndefinedHelpers plants the faults the check
// exists for (a helper shown nowhere, a misspelt SDK name, an undeclared
// variable that is not given) and requires each to fail with its Markdown
// file and line, and a correct block to pass.
func TestDocBlockCheckCatchesUndefinedHelpers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("compiles with the go command")
	}
	md := "# planted\n\n```go\n" +
		"code := samplePromptPay() // a helper shown nowhere\n" +
		"_, _ = client.QRPay.Pay(ctx, \"member-1\", qrpay.PayParams{CodeValue: code})\n" +
		"```\n\ntext\n\n```go\n" +
		"sim.Clock.Advnce(time.Second)\n" +
		"```\n\n```go\n" +
		"fmt.Println(order.Status)\n" +
		"```\n\n```go\n" +
		"order, err := client.QRPay.Pay(ctx, \"member-1\", qrpay.PayParams{CodeValue: sampleqr.PromptPay})\n" +
		"```\n\n```go\n" +
		"func helper(ctx context.Context) error { return nil }\n" +
		"```\n"
	blocks := docBlocks("planted.md", md)
	if len(blocks) != 5 {
		t.Fatalf("found %d blocks, want 5", len(blocks))
	}
	out := buildDocBlocks(t, "..", blocks)
	for _, want := range []string{
		"planted.md:4: undefined: samplePromptPay",
		"planted.md:11: sim.Clock.Advnce undefined",
		"planted.md:15: undefined: order",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the check did not report %q; it said:\n%s", want, out)
		}
	}
	if strings.Contains(out, "planted.md:19") || strings.Contains(out, "planted.md:23") {
		t.Errorf("the check refused a correct block:\n%s", out)
	}
}
