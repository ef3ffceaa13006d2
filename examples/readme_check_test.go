package examples_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/internal/codes"
)

// The top-level README is a test input: its Go blocks must be the functions
// of readme_test.go, its error table must be the code's, its commands and
// links must exist.

// readmeGuides are the guides of docs/ that hold what the README held
// before it was cut to a newcomer's page: their Go blocks are functions of
// readme_test.go too, and the error table is in errors.md.
var readmeGuides = []string{"concepts.md", "lists.md", "errors.md", "simulator.md", "openapi.md", "design.md", "operations.md", "contributing.md", "going-live.md"}

// readme is the README followed by readmeGuides.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range readmeGuides {
		gb, err := os.ReadFile(filepath.Join("..", "docs", g))
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, '\n'), gb...)
	}
	return string(b)
}

// The two commands a new user runs come first, exactly.
func TestREADMEStartsWithTheTwoCommands(t *testing.T) {
	t.Parallel()
	const want = "```sh\ngo run ./examples/quickstart   # the main job, against the embedded simulator\n" +
		"go test ./...                  # the whole suite, simulator included\n```"
	md := readme(t)
	first := strings.Index(md, "```")
	if first < 0 || !strings.HasPrefix(md[first:], want) {
		t.Errorf("the README's first code block is not the two commands:\n%s", want)
	}
	if !strings.Contains(md, "go get github.com/mwallet/mwallet-go") {
		t.Error("the README lacks the install command")
	}
}

// snippetMarker precedes a Go block that copies a function of readme_test.go:
// <!-- code: Name --> for its body (an Example's Output comment included),
// <!-- code: Name full --> for the whole declaration.
var snippetMarker = regexp.MustCompile("<!-- code: ([A-Za-z0-9_]+)( full)? -->\n```go\n((?s:.*?))```")

func TestREADMESnippets(t *testing.T) {
	t.Parallel()
	md := readme(t)
	// docs/testing.md shows some of the functions too; its other blocks are
	// only compiled (docblocks_test.go).
	testingGuide, err := os.ReadFile(filepath.Join("..", "docs", "testing.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "readme_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			funcs[fd.Name.Name] = fd
		}
	}
	readmeMarked := len(snippetMarker.FindAllString(md, -1))
	matches := snippetMarker.FindAllStringSubmatch(md+"\n"+string(testingGuide), -1)
	if len(matches) < 8 {
		t.Fatalf("found %d marked Go blocks in the README, want at least 8", len(matches))
	}
	seen := map[string]bool{}
	for _, m := range matches {
		name, full, block := m[1], m[2] != "", m[3]
		seen[name] = true
		fd := funcs[name]
		if fd == nil {
			t.Errorf("README block %s: no such function in readme_test.go", name)
			continue
		}
		var want string
		if full {
			want = string(src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]) + "\n"
		} else {
			body := string(src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset])
			want = dedent(strings.TrimPrefix(body, "\n"))
		}
		if diff := cmp.Diff(want, block); diff != "" {
			t.Errorf("README block %s differs from readme_test.go (-code +README):\n%s", name, diff)
		}
	}
	// Every function meant for the README is shown in it.
	for name := range funcs {
		if (strings.HasPrefix(name, "Example_") || strings.HasPrefix(name, "Test") && !strings.HasPrefix(name, "TestREADME")) && !seen[name] {
			t.Errorf("%s in readme_test.go is not shown in the README", name)
		}
	}
	// No other Go block escapes the check.
	if n := strings.Count(md, "```go\n"); n != readmeMarked {
		t.Errorf("the README has %d Go blocks, %d of them marked; mark every one", n, readmeMarked)
	}
}

// dedent removes one leading tab from every line.
func dedent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "")
}

// The error table is codes.tsv, the one table the SDK's constants and the
// simulator's answers are generated from: every code once, with its HTTP
// status, retry class and advice; and the code agrees with it.
func TestREADMEErrorTable(t *testing.T) {
	t.Parallel()
	md := readme(t)
	start := strings.Index(md, "## Errors: all 53 codes")
	if start < 0 {
		t.Fatal("no errors section")
	}
	section := md[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| (\\d{3}) \\| ([a-z-]+) \\| (.+) \\|$")
	type entry struct {
		Code   string
		Status int
		Class  string
		Advice string
	}
	var got, want []entry
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		st, _ := strconv.Atoi(m[2])
		got = append(got, entry{m[1], st, m[3], m[4]})
	}
	tsv, err := os.ReadFile(filepath.Join("..", "codes.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := codes.Parse(tsv)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		want = append(want, entry{r.Code, r.HTTP, r.Retry, r.Advice})
		// The generated constants say the same as the table.
		if c := mwallet.Code(r.Code); c.HTTPStatus() != r.HTTP || c.Retry().String() != r.Retry || c.Type() != r.Type {
			t.Errorf("%s: the SDK says HTTP %d, %s, %s; codes.tsv says %d, %s, %s", r.Code, c.HTTPStatus(), c.Retry(), c.Type(), r.HTTP, r.Retry, r.Type)
		}
	}
	slices.SortFunc(want, func(a, b entry) int { return strings.Compare(a.Code, b.Code) })
	if len(want) != 53 || len(mwallet.KnownCodes()) != 53 {
		t.Fatalf("codes.tsv lists %d codes and the SDK knows %d, want 53", len(want), len(mwallet.KnownCodes()))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README error table differs from codes.tsv (-codes.tsv +README):\n%s", diff)
	}
}

// Every command and relative link in the README, the guides of docs/ and
// the simulator's guides points at something that exists: a file relative to the page that
// links it, and an anchor that is a heading of the page it names.
func TestREADMECommandsAndLinks(t *testing.T) {
	t.Parallel()
	root := ".."
	pages := append([]string{"README.md"}, func() []string {
		var out []string
		for _, g := range readmeGuides {
			out = append(out, filepath.Join("docs", g))
		}
		// The other guides: docs/ and the simulator's.
		for _, glob := range []string{"docs/*.md", "simulator/README.md", "simulator/guide/*.md"} {
			m, _ := filepath.Glob(filepath.Join(root, glob))
			for _, f := range m {
				rel, _ := filepath.Rel(root, f)
				if !slices.Contains(out, rel) {
					out = append(out, rel)
				}
			}
		}
		return out
	}()...)
	headings := func(page string) string {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return ""
		}
		var anchors bytes.Buffer
		for _, h := range regexp.MustCompile(`(?m)^#{1,4} (.+)$`).FindAllStringSubmatch(string(b), -1) {
			anchors.WriteString("#" + anchor(h[1]) + "\n")
		}
		return anchors.String()
	}
	// Files other parts of the project produce: a missing one is reported,
	// not failed, while they are being written.
	produced := []string{"BENCHMARKS.md", "docs/dashboard.png"}
	for _, page := range pages {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		md := string(b)
		// A command may run in a directory the page cds to (a nested module).
		dirs := []string{"."}
		for _, m := range regexp.MustCompile(`(?m)^cd ([\w./-]+)`).FindAllStringSubmatch(md, -1) {
			dirs = append(dirs, m[1])
		}
		exists := func(p string) bool {
			for _, d := range dirs {
				if _, err := os.Stat(filepath.Join(root, d, p)); err == nil {
					return true
				}
			}
			return false
		}
		for _, m := range regexp.MustCompile(`go (?:run|test) \./((?:examples|cmd)/[a-z0-9-]+)`).FindAllStringSubmatch(md, -1) {
			if !exists(m[1]) {
				t.Errorf("%s runs ./%s, which does not exist", page, m[1])
			}
		}
		dir := filepath.Dir(page)
		for _, m := range regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`).FindAllStringSubmatch(md, -1) {
			target := filepath.Join(dir, m[1])
			if _, err := os.Stat(filepath.Join(root, target)); err != nil {
				if slices.Contains(produced, filepath.ToSlash(target)) {
					t.Logf("%s links %s, not written yet", page, m[1])
					continue
				}
				t.Errorf("%s links %s, which does not exist", page, m[1])
				continue
			}
			if m[2] != "" && strings.HasSuffix(target, ".md") && !strings.Contains(headings(target), m[2]+"\n") {
				t.Errorf("%s links %s%s, which is no heading there", page, m[1], m[2])
			}
		}
		own := headings(page)
		for _, m := range regexp.MustCompile(`\]\((#[^)]+)\)`).FindAllStringSubmatch(md, -1) {
			if !strings.Contains(own, m[1]+"\n") {
				t.Errorf("%s links %s, which is no heading", page, m[1])
			}
		}
	}
}

// anchor is GitHub's heading anchor: lower case, punctuation but - and _
// dropped, spaces to -.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every module the SDK requires is listed, with a reason, under Dependencies.
func TestREADMEListsEveryDependency(t *testing.T) {
	t.Parallel()
	md := readme(t)
	start := strings.Index(md, "## Dependencies")
	if start < 0 {
		t.Fatal("no Dependencies section")
	}
	section := md[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	req := regexp.MustCompile(`(?m)^\s*(?:require\s+)?([a-z0-9.\-]+\.[a-z]+/[^\s]+)\s+v[^\s]+`)
	for _, m := range req.FindAllStringSubmatch(string(gomod), -1) {
		mod := strings.TrimSuffix(m[1], "/v3")
		if strings.HasPrefix(mod, "golang.org/x/") {
			mod = strings.TrimPrefix(mod, "golang.org/x/")
			if !strings.Contains(section, "golang.org/x/"+mod) {
				t.Errorf("go.mod requires golang.org/x/%s; the README's Dependencies do not list it", mod)
			}
			continue
		}
		if !strings.Contains(section, mod[strings.LastIndex(mod, "/")+1:]) {
			t.Errorf("go.mod requires %s; the README's Dependencies do not list it", m[1])
		}
	}
}

// maxGuideLines is the longest a guide may be: a page read in one sitting.
const maxGuideLines = 600

// TestGuidesAreShort: the README, every guide of docs/ and every guide of
// the simulator stay within maxGuideLines lines (the simulator's reference
// is split by concern, simulator/guide/).
func TestGuidesAreShort(t *testing.T) {
	t.Parallel()
	var pages []string
	for _, glob := range []string{"../README.md", "../docs/*.md", "../simulator/README.md", "../simulator/guide/*.md"} {
		m, _ := filepath.Glob(glob)
		pages = append(pages, m...)
	}
	if len(pages) < 15 {
		t.Fatalf("found %d pages, want the README and the guides", len(pages))
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > maxGuideLines {
			t.Errorf("%s has %d lines, more than %d: split it by concern", p, n, maxGuideLines)
		}
	}
}
