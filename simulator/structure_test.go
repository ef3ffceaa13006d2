package simulator

import (
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The structure of the simulator, held by tests (simulator/guide/internals.md, The
// map): a kernel that alone owns the state lock and the input order, and
// product lines that reach each other only through interfaces they declare
// or through events. These tests read the code, not the behaviour.

const simImport = "github.com/mwallet/mwallet-go/simulator"

// linePackages are the product lines' packages under internal/: none may
// import another, nor the simulator package.
var linePackages = []string{"cards", "deposits", "kyc", "members", "merchant", "qrpay", "remittances", "stepup", "webhooks"}

// kernelPackages are the packages below the lines: the lines and the
// simulator import them, they import no line.
var kernelPackages = []string{"api", "catalogue", "control", "exchange", "faults", "gateway", "idempotency", "ids", "kernel", "ledger", "outcomes", "services", "windows"}

// toolPackages are the operator's tools beside the lines (the error
// recipes, the developer views, the webhook flush's inputs, the recording's
// views), the data directory (its store and its
// file layer), the input log's wire format, its replay runner and the
// input log (inputlog: the recorder, and where each input enters the log,
// over the Host the simulator fills), the
// exchange log, the state image of the digest and the projection of the
// kernel's tables into that of earlier recordings (legacyimage), the exchange's Host over
// the input log, the state and the lines (gatewayhost), the HTTPS server
// (tlsserver) and the start-up (startup: the options' checks, the scope
// catalogue, the fixture): they reach the simulator
// through interfaces they declare, never by importing it, and no line and not the kernel imports them.
var toolPackages = []string{"datadir", "datafile", "delivery", "devtools", "exchangelog", "gatewayhost", "image", "inputlog", "legacyimage", "recfile", "recipes", "recview", "replay", "startup", "tlsserver"}

// standalonePackages are tools that import no package of the module: the
// data directory's file layer (bytes in frames), the input log's wire
// format (plain data), the exchange log (HTTP in, lines out) and the state
// image (it is handed the projection as
// a value and walks it by reflection).
var standalonePackages = []string{"datafile", "exchangelog", "image", "recfile"}

// TestPackageImports holds the import rules with `go list`: a line package
// imports no other line package and not the simulator; the kernel imports
// no line and not the simulator; a tool imports not the simulator and
// neither a line nor the kernel imports a tool; a standalone tool imports
// no package of the module; every package under internal/ is a line, part
// of the kernel or a tool.
func TestPackageImports(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, simImport+"/internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	kind := map[string]string{}
	for _, p := range linePackages {
		kind[simImport+"/internal/"+p] = "line"
	}
	for _, p := range kernelPackages {
		kind[simImport+"/internal/"+p] = "kernel"
	}
	for _, p := range toolPackages {
		kind[simImport+"/internal/"+p] = "tool"
	}
	standalone := map[string]bool{}
	for _, p := range standalonePackages {
		standalone[simImport+"/internal/"+p] = true
	}
	var bad []string
	seen := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		pkg, imports := f[0], f[1:]
		k := kind[pkg]
		if k == "" {
			// A package's own sub-packages (emvqr-like helpers) belong to it.
			for p, pk := range kind {
				if strings.HasPrefix(pkg, p+"/") {
					k = pk
				}
			}
		}
		if k == "" {
			bad = append(bad, pkg+": neither a line, the kernel nor a tool (add it to linePackages, kernelPackages or toolPackages)")
			continue
		}
		seen++
		for _, imp := range imports {
			switch {
			case standalone[pkg] && strings.HasPrefix(imp, "github.com/mwallet/mwallet-go"):
				bad = append(bad, pkg+" (standalone) imports "+imp)
			case imp == simImport:
				bad = append(bad, pkg+" imports the simulator package")
			case kind[imp] == "tool" && k != "tool":
				bad = append(bad, pkg+" ("+k+") imports the tool "+imp)
			case kind[imp] == "line" && k == "tool":
				// A tool may read a line through the line's own views.
			case kind[imp] == "line" && k == "kernel":
				bad = append(bad, pkg+" (kernel) imports the line "+imp)
			case kind[imp] == "line" && imp != pkg:
				bad = append(bad, pkg+" imports the line "+imp+": declare an interface, or publish an event")
			}
		}
	}
	if seen == 0 {
		t.Fatal("go list found no package under internal/")
	}
	if diff := cmp.Diff([]string(nil), bad); diff != "" {
		t.Errorf("import rules broken:\n%s", diff)
	}
}

// simulatorFiles parses the simulator package's own files (tests too).
func simulatorFiles(t *testing.T) (*gotoken.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := gotoken.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, n := range names {
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = f
	}
	return fset, files
}

// ownMutexes are the mutexes the simulator package still declares, each
// guarding something that is not the state: the state lock is the
// kernel's alone. The list only shrinks as these move into the kernel.
var ownMutexes = map[string]string{
	"Clock.mu":     "the clock is read by any goroutine (Now)",
	"SleepFunc.mu": "the waited total of one SleepFunc",
}

// TestLockDiscipline: no method is named ...Locked (a Tx argument says a
// function runs under the state lock), and no mutex is declared here but
// those of ownMutexes.
func TestLockDiscipline(t *testing.T) {
	t.Parallel()
	_, files := simulatorFiles(t)
	var locked, mutexes []string
	isMutex := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := s.X.(*ast.Ident)
		return ok && x.Name == "sync" && (s.Sel.Name == "Mutex" || s.Sel.Name == "RWMutex")
	}
	for name, f := range files {
		test := strings.HasSuffix(name, "_test.go") // test doubles may lock their own fields
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if test {
					if n.Recv != nil && strings.HasSuffix(n.Name.Name, "Locked") {
						locked = append(locked, name+": "+n.Name.Name)
					}
					return false
				}
				if n.Recv != nil && strings.HasSuffix(n.Name.Name, "Locked") {
					locked = append(locked, name+": "+n.Name.Name)
				}
				if n.Body != nil {
					// a mutex local to a function (SleepFunc's)
					ast.Inspect(n.Body, func(m ast.Node) bool {
						if vs, ok := m.(*ast.ValueSpec); ok && isMutex(vs.Type) {
							for _, id := range vs.Names {
								mutexes = append(mutexes, n.Name.Name+"."+id.Name)
							}
						}
						return true
					})
				}
			case *ast.TypeSpec:
				st, ok := n.Type.(*ast.StructType)
				if !ok || test {
					return true
				}
				for _, fl := range st.Fields.List {
					if isMutex(fl.Type) {
						for _, id := range fl.Names {
							mutexes = append(mutexes, n.Name.Name+"."+id.Name)
						}
					}
				}
			case *ast.GenDecl:
				// package-level var blocks holding a struct with a mutex
				if test {
					return true
				}
				for _, sp := range n.Specs {
					vs, ok := sp.(*ast.ValueSpec)
					if !ok {
						continue
					}
					if st, ok := vs.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							if isMutex(fl.Type) {
								for _, id := range vs.Names {
									mutexes = append(mutexes, id.Name+"."+fl.Names[0].Name)
								}
							}
						}
					}
				}
			}
			return true
		})
	}
	sort.Strings(locked)
	if diff := cmp.Diff([]string(nil), locked); diff != "" {
		t.Errorf("methods named ...Locked (take a *kernel.Tx instead):\n%s", diff)
	}
	var unknown []string
	for _, m := range mutexes {
		if _, ok := ownMutexes[m]; !ok && !strings.HasPrefix(m, "Test") {
			unknown = append(unknown, m)
		}
	}
	sort.Strings(unknown)
	if diff := cmp.Diff([]string(nil), unknown); diff != "" {
		t.Errorf("mutexes outside the kernel (the state lock is the kernel's: take a *kernel.Tx):\n%s", diff)
	}
	declared := map[string]bool{}
	for _, m := range mutexes {
		declared[m] = true
	}
	var stale []string
	for m := range ownMutexes {
		if !declared[m] {
			stale = append(stale, m)
		}
	}
	sort.Strings(stale)
	if diff := cmp.Diff([]string(nil), stale); diff != "" {
		t.Errorf("ownMutexes lists mutexes the package no longer declares (remove them: the list only shrinks):\n%s", diff)
	}
}

// simulatorShape is what *Simulator carries: the public Go API, 19
// exported methods, and its building (initControls, registerAll). The
// bound is at most 30 methods and 20 fields; the counts only go down.
var simulatorShape = struct{ methods, fields int }{methods: 21, fields: 17}

// TestSimulatorShape counts the methods and fields of *Simulator.
func TestSimulatorShape(t *testing.T) {
	t.Parallel()
	_, files := simulatorFiles(t)
	methods, fields := 0, 0
	for name, f := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) != 1 {
					continue
				}
				if se, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := se.X.(*ast.Ident); ok && id.Name == "Simulator" {
						methods++
					}
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "Simulator" {
						continue
					}
					for _, fl := range ts.Type.(*ast.StructType).Fields.List {
						fields += max(len(fl.Names), 1)
					}
				}
			}
		}
	}
	t.Logf("*Simulator: %d methods, %d fields", methods, fields)
	if methods > simulatorShape.methods || fields > simulatorShape.fields {
		t.Errorf("*Simulator has %d methods and %d fields, more than %d and %d: a new transition belongs to its line's package",
			methods, fields, simulatorShape.methods, simulatorShape.fields)
	}
}

// beginners are the files outside the kernel that begin transactions, with
// how many calls each makes: the entry points begin elsewhere (the
// gateway's exchange in internal/exchange, the control ops in
// internal/control's Runner, the input log and the replay's target in
// internal/inputlog); the product files' counts are Go control
// methods that lock for themselves, and go to zero as each control method
// is declared once and run by the kernel. The counts only go down.
var beginners = map[string]int{
	"image_state.go": 2,
	"invariants.go":  1, "simulator.go": 1, "stats.go": 1,
}

// TestWhoBeginsTransactions counts the calls of the kernel's Begin,
// BeginInput and BeginOrdered outside the kernel, per file, against
// beginners.
func TestWhoBeginsTransactions(t *testing.T) {
	t.Parallel()
	_, files := simulatorFiles(t)
	got := map[string]int{}
	for name, f := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ce, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			se, ok := ce.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if k, ok := se.X.(*ast.SelectorExpr); ok && k.Sel.Name == "k" && strings.HasPrefix(se.Sel.Name, "Begin") {
				got[name]++
			}
			return true
		})
	}
	var over []string
	for name, n := range got {
		if n > beginners[name] {
			over = append(over, fmt.Sprintf("%s: %d transactions begun, at most %d", name, n, beginners[name]))
		}
	}
	sort.Strings(over)
	if diff := cmp.Diff([]string(nil), over); diff != "" {
		t.Errorf("transactions begun outside the entry points (take a *kernel.Tx from the caller):\n%s", diff)
	}
	var stale []string
	for name, n := range beginners {
		if got[name] < n {
			stale = append(stale, fmt.Sprintf("%s: %d transactions begun, %d listed", name, got[name], n))
		}
	}
	sort.Strings(stale)
	if diff := cmp.Diff([]string(nil), stale); diff != "" {
		t.Errorf("beginners lists more than the files begin (lower the counts: they only go down):\n%s", diff)
	}
}

// TestLinesNeverLock: a line package imports neither sync nor sync/atomic
// and never begins a transaction (Begin, BeginInput, BeginOrdered): it is
// handed one.
func TestLinesNeverLock(t *testing.T) {
	t.Parallel()
	var bad []string
	seen := 0
	for _, line := range linePackages {
		dir := filepath.Join("internal", line)
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			seen++
			f, err := parser.ParseFile(gotoken.NewFileSet(), n, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if p := strings.Trim(imp.Path.Value, `"`); p == "sync" || p == "sync/atomic" {
					bad = append(bad, n+" imports "+p)
				}
			}
			ast.Inspect(f, func(nd ast.Node) bool {
				if se, ok := nd.(*ast.SelectorExpr); ok && strings.HasPrefix(se.Sel.Name, "Begin") {
					bad = append(bad, n+" calls "+se.Sel.Name)
				}
				return true
			})
		}
	}
	if seen == 0 {
		t.Fatal("no line package found")
	}
	sort.Strings(bad)
	if diff := cmp.Diff([]string(nil), bad); diff != "" {
		t.Errorf("line packages that lock (a transition takes the *kernel.Tx it is handed):\n%s", diff)
	}
}

// simulatorHolders are the only types of the package that hold a
// *Simulator, each with the reason. Everything else (the gateway, the
// input log, the webhook flush, the timers, the view, the
// lines' hosts, the kernel's services) holds only what it uses, so that
// the façade does not come back under another name.
var simulatorHolders = map[string]string{
	"CardsControl.s":       "a public Go control type: its methods are the simulator's control API",
	"EventsControl.s":      "a public Go control type",
	"FaultsControl.s":      "a public Go control type",
	"KeysControl.s":        "a public Go control type",
	"KYCControl.s":         "a public Go control type",
	"MembersControl.s":     "a public Go control type",
	"MerchantControl.s":    "a public Go control type",
	"OutcomesControl.s":    "a public Go control type",
	"QRPayControl.s":       "a public Go control type",
	"RemittancesControl.s": "a public Go control type",
	"RequestsControl.s":    "a public Go control type",
	"StepUpControl.s":      "a public Go control type",
	"WebhooksControl.s":    "a public Go control type",
	"controlAPI.sim":       "the HTTP face of the public Go control API: its routes call the Go control methods",
	"stateImage.root":      "the state image is positional over the simulator's fields",
}

// TestWhoHoldsTheSimulator lists every struct field of the package whose
// type is *Simulator (or Simulator) against simulatorHolders.
func TestWhoHoldsTheSimulator(t *testing.T) {
	t.Parallel()
	_, files := simulatorFiles(t)
	got := map[string]string{}
	for name, f := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				typ := fl.Type
				if se, ok := typ.(*ast.StarExpr); ok {
					typ = se.X
				}
				if id, ok := typ.(*ast.Ident); !ok || id.Name != "Simulator" {
					continue
				}
				for _, fn := range fl.Names {
					got[ts.Name.Name+"."+fn.Name] = simulatorHolders[ts.Name.Name+"."+fn.Name]
				}
				if len(fl.Names) == 0 {
					got[ts.Name.Name+".Simulator"] = simulatorHolders[ts.Name.Name+".Simulator"]
				}
			}
			return true
		})
	}
	if diff := cmp.Diff(simulatorHolders, got); diff != "" {
		t.Errorf("types holding the *Simulator (-allowed +found; a new holder takes what it uses instead):\n%s", diff)
	}
}

// TestNoUnsafe: no file under simulator/ (tests aside) imports unsafe: the
// state digest's image reads exported fields only
// (TestImageReadsExportedFieldsOnly) and a snapshot is the state by name
// (kernel.WriteState).
func TestNoUnsafe(t *testing.T) {
	t.Parallel()
	fset := gotoken.NewFileSet()
	var bad []string
	seen, importing := 0, map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen++
		for _, imp := range f.Imports {
			if imp.Path.Value == `"unsafe"` {
				importing[filepath.ToSlash(path)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 100 {
		t.Fatalf("read %d source files under simulator/: expected the package and its internal/ packages", seen)
	}
	for path := range importing {
		bad = append(bad, path+" imports unsafe")
	}
	sort.Strings(bad)
	if diff := cmp.Diff([]string(nil), bad); diff != "" {
		t.Errorf("unsafe under simulator/:\n%s", diff)
	}
}
