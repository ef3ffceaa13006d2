// Command apicompat is the compatibility guard: it compares the exported
// API of every module of the repository (the main module and each nested
// one, found by their go.mod files) with the last release, and fails when
// a change breaks callers and CHANGELOG.md does not say so. From the
// repository root:
//
//	go run ./internal/tools/apicompat             # against the last release in RELEASES
//	go run ./internal/tools/apicompat -base main  # against any commit
//	go run ./internal/tools/apicompat -v          # the compatible changes too
//
// The release's commit comes from RELEASES (see internal/tools/releases),
// not from tags, which a clone may lack. Before the first release (no line
// in RELEASES), or when the release's commit is not in the clone (a shallow
// clone), it says so and exits 0.
//
// The comparison is golang.org/x/exp/cmd/apidiff in module mode, installed
// through the module proxy at the version pinned below: the release's tree
// is taken from git (git archive), each module's export data is written
// from the release's tree and from the working tree, and apidiff compares
// them. Internal packages and commands (package main) are left out.
//
// The rule: an incompatible change passes only when a list item of
// CHANGELOG.md's [Unreleased] section that starts with "Breaking" names the
// changed identifier in full, qualified by its package's name as callers
// write it: `mwallet.Error.RetryAfter`, `simulator.Simulator.Balance`
// (or `(*simulator.Simulator).Balance`), `mwotel.Observer`; a field or
// method also by its type in full and its own name in the same item; a
// removed package or module by its import path. It exits 1 when one does
// not, 2 for a wrong flag.
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/mwallet/mwallet-go/internal/tools/changelog"
	"github.com/mwallet/mwallet-go/internal/tools/modules"
	"github.com/mwallet/mwallet-go/internal/tools/releases"
)

// apidiffPkg is the pinned apidiff, installed through the module proxy.
const apidiffPkg = "golang.org/x/exp/cmd/apidiff@v0.0.0-20261113113407-e3970619a1a4"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("apicompat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "compare with this commit (any git revision) instead of the last release in "+releases.File)
	verbose := fs.Bool("v", false, "list the compatible changes too")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "apicompat: unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	root, err := modules.Root(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "apicompat:", err)
		return 1
	}
	g := guard{root: root, stdout: stdout, stderr: stderr, verbose: *verbose}
	ok, err := g.check(ctx, *base)
	if err != nil {
		fmt.Fprintln(stderr, "apicompat:", err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

type guard struct {
	root           string
	stdout, stderr io.Writer
	verbose        bool
}

// check runs the guard against base (a revision, or "" for the last
// release). It returns false when an incompatible change is not named.
func (g guard) check(ctx context.Context, base string) (bool, error) {
	label := base
	if base == "" {
		rels, err := releases.Read(filepath.Join(g.root, releases.File))
		if err != nil {
			return false, err
		}
		if len(rels) == 0 {
			fmt.Fprintf(g.stdout, "apicompat: no release yet (%s names none): nothing to compare; the guard starts with the first release\n", releases.File)
			return true, nil
		}
		last := rels[len(rels)-1]
		if err := git(ctx, g.root, nil, "cat-file", "-e", last.Commit+"^{commit}"); err != nil {
			fmt.Fprintf(g.stdout, "apicompat: the commit of %s (%s, %s:%d) is not in this clone (shallow, or without that history): nothing to compare; git fetch --unshallow, then run again\n",
				last.Version, last.Commit, releases.File, last.Line)
			return true, nil
		}
		base, label = last.Commit, last.Version
	}
	var out bytes.Buffer
	if err := git(ctx, g.root, &out, "rev-parse", "--verify", "--quiet", base+"^{commit}"); err != nil {
		return false, fmt.Errorf("-base %s: not a commit of this repository", base)
	}
	commit := strings.TrimSpace(out.String())

	text, err := os.ReadFile(filepath.Join(g.root, "CHANGELOG.md"))
	if err != nil {
		return false, err
	}
	var breaking []changelog.Item
	unreleased, err := changelog.Find(string(text), "Unreleased")
	if err == nil {
		breaking = unreleased.Breaking()
	}

	tmp, err := os.MkdirTemp("", "apicompat")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(g.stdout, "apicompat: the exported API against %s (commit %s), by %s\n", label, commit[:12], apidiffPkg)
	apidiff := filepath.Join(tmp, "bin", "apidiff")
	if err := goCmd(ctx, g.root, []string{"GOBIN=" + filepath.Dir(apidiff)}, nil, "install", apidiffPkg); err != nil {
		return false, fmt.Errorf("installing apidiff: %w", err)
	}
	baseTree := filepath.Join(tmp, "base")
	if err := extract(ctx, g.root, commit, baseTree); err != nil {
		return false, err
	}
	cur, err := modules.Find(g.root)
	if err != nil {
		return false, err
	}
	old, err := modules.Find(baseTree)
	if err != nil {
		return false, err
	}

	var findings []finding
	rootPath := cur[0].Path
	for _, p := range pairModules(old, cur) {
		switch {
		case p.old == nil:
			findings = append(findings, finding{Module: p.new.Path, Ident: p.new.Path, Message: "module " + p.new.Path + ": added", Compatible: true})
			continue
		case p.new == nil:
			findings = append(findings, finding{Module: p.old.Path, Ident: p.old.Path, Alt: []string{p.old.Dir}, Message: "module " + p.old.Path + ": removed"})
			continue
		}
		fs, err := g.compare(ctx, apidiff, tmp, rootPath, filepath.Join(baseTree, p.old.Dir), filepath.Join(g.root, p.new.Dir), p.new.Path)
		if err != nil {
			return false, fmt.Errorf("module %s: %w", p.new.Path, err)
		}
		findings = append(findings, fs...)
	}
	return report(g.stdout, findings, breaking, g.verbose, len(pairModules(old, cur))), nil
}

type modulePair struct{ old, new *modules.Module }

// pairModules pairs the modules of the two trees by module path, in the
// order of the current tree, removed ones last.
func pairModules(old, cur []modules.Module) []modulePair {
	byPath := map[string]*modules.Module{}
	for i := range old {
		byPath[old[i].Path] = &old[i]
	}
	var out []modulePair
	for i := range cur {
		out = append(out, modulePair{old: byPath[cur[i].Path], new: &cur[i]})
		delete(byPath, cur[i].Path)
	}
	for i := range old {
		if byPath[old[i].Path] != nil {
			out = append(out, modulePair{old: &old[i]})
		}
	}
	return out
}

// compare runs apidiff on one module present in both trees.
func (g guard) compare(ctx context.Context, apidiff, tmp, rootPath, oldDir, newDir, modPath string) ([]finding, error) {
	pkgs := map[string]string{}
	for _, dir := range []string{oldDir, newDir} {
		var out bytes.Buffer
		if err := goCmd(ctx, dir, nil, &out, "list", "-e", "-f", "{{.ImportPath}} {{.Name}}", "./..."); err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if p, name, ok := strings.Cut(line, " "); ok && name != "" {
				pkgs[p] = name
			}
		}
	}
	name := strings.NewReplacer("/", "_", ".", "_").Replace(modPath)
	oldData, newData := filepath.Join(tmp, name+".old"), filepath.Join(tmp, name+".new")
	if err := runIn(ctx, oldDir, nil, apidiff, "-m", "-w", oldData, modPath); err != nil {
		return nil, fmt.Errorf("export data of the release: %w", err)
	}
	if err := runIn(ctx, newDir, nil, apidiff, "-m", "-w", newData, modPath); err != nil {
		return nil, fmt.Errorf("export data of the working tree: %w", err)
	}
	var out bytes.Buffer
	if err := runIn(ctx, newDir, &out, apidiff, "-m", oldData, newData); err != nil {
		return nil, err
	}
	changes, err := parseReport(out.String())
	if err != nil {
		return nil, err
	}
	var fs []finding
	for _, c := range changes {
		if f, ok := classify(rootPath, modPath, c, pkgs); ok {
			fs = append(fs, f)
		}
	}
	return fs, nil
}

// change is one line of apidiff's report.
type change struct {
	Message    string
	Compatible bool
}

// parseReport reads apidiff's text report: an "Incompatible changes:" and
// a "Compatible changes:" header, each followed by "- MESSAGE" lines.
func parseReport(text string) ([]change, error) {
	var out []change
	section := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case line == "Incompatible changes:" || line == "Compatible changes:":
			section = line
		case strings.HasPrefix(line, "- ") && section != "":
			out = append(out, change{Message: strings.TrimPrefix(line, "- "), Compatible: section == "Compatible changes:"})
		case strings.HasPrefix(line, "!") || strings.HasPrefix(line, "  "):
			// apidiff's own diagnostics of a second message for one object.
		default:
			return nil, fmt.Errorf("apidiff report: unexpected line %q", line)
		}
	}
	return out, nil
}

// finding is one change, with the names the CHANGELOG may give it.
type finding struct {
	Module     string
	Ident      string   // as callers write it: pkgname.Name.Field
	Alt        []string // other accepted spellings
	Message    string   // apidiff's message, with Ident in place of its object
	Compatible bool
	Member     bool // Ident is a field or method of a type: pkg.T.M
}

var (
	receiverRE = regexp.MustCompile(`\(\*?([^()]*)\)`)
	typeArgsRE = regexp.MustCompile(`\[[^\]]*\]`)
)

// classify turns an apidiff message of module modPath into a finding;
// pkgs maps the import paths of both trees to their package names. Changes
// of commands (package main) are left out (ok false).
func classify(rootPath, modPath string, c change, pkgs map[string]string) (finding, bool) {
	f := finding{Module: modPath, Compatible: c.Compatible}
	obj, what, ok := strings.Cut(c.Message, ": ")
	if !ok {
		f.Ident, f.Message = c.Message, c.Message
		return f, true
	}
	if p, isPkg := strings.CutPrefix(obj, "package "); isPkg {
		if pkgs[p] == "main" {
			return f, false
		}
		f.Ident, f.Message = p, "package "+p+": "+what
		if rel, ok := strings.CutPrefix(p, rootPath+"/"); ok {
			f.Alt = []string{rel}
		}
		return f, true
	}
	ident, part, _ := strings.Cut(obj, ", ")
	pkg, local := modPath, ident
	if rel, ok := strings.CutPrefix(ident, "./"); ok {
		best := ""
		for p := range pkgs {
			r, ok := strings.CutPrefix(p, modPath+"/")
			if ok && strings.HasPrefix(rel, r+".") && len(r) > len(best) {
				best = r
			}
		}
		if best != "" {
			pkg, local = modPath+"/"+best, rel[len(best)+1:]
		}
	} else {
		best := ""
		for p := range pkgs {
			if strings.HasPrefix(ident, p+".") && len(p) > len(best) {
				best = p
			}
		}
		if best != "" {
			pkg, local = best, ident[len(best)+1:]
		}
	}
	name := pkgs[pkg]
	if name == "" {
		name = path.Base(pkg)
	}
	if name == "main" {
		return f, false
	}
	local = typeArgsRE.ReplaceAllString(receiverRE.ReplaceAllString(local, "$1"), "")
	f.Ident = name + "." + local
	f.Alt = []string{pkg + "." + local}
	f.Member = strings.Contains(local, ".")
	f.Message = f.Ident
	if part != "" {
		f.Message += ", " + part
	}
	f.Message += ": " + what
	return f, true
}

// namedAt returns the line of the first Breaking item that names the
// finding, or 0. A member of a type (pkg.T.M) may also be named by its type
// in full and its name (changelog.NamesMember).
func namedAt(f finding, breaking []changelog.Item) int {
	for _, it := range breaking {
		for _, n := range append([]string{f.Ident}, f.Alt...) {
			if changelog.Names(it.Text, n) {
				return it.Line
			}
			if f.Member {
				i := strings.LastIndex(n, ".")
				if changelog.NamesMember(it.Text, n[:i], n[i+1:]) {
					return it.Line
				}
			}
		}
	}
	return 0
}

// report prints the findings and returns whether every incompatible one is
// named by a Breaking item.
func report(w io.Writer, findings []finding, breaking []changelog.Item, verbose bool, nModules int) bool {
	sort.SliceStable(findings, func(i, j int) bool { return findings[i].Module < findings[j].Module })
	type counts struct{ incompatible, unnamed, compatible int }
	per := map[string]*counts{}
	var mods []string
	for _, f := range findings {
		c := per[f.Module]
		if c == nil {
			c = &counts{}
			per[f.Module] = c
			mods = append(mods, f.Module)
		}
		if f.Compatible {
			c.compatible++
		} else {
			c.incompatible++
			if namedAt(f, breaking) == 0 {
				c.unnamed++
			}
		}
	}
	fmt.Fprintf(w, "%d modules compared; changes in %d\n", nModules, len(mods))
	unnamed := 0
	for _, m := range mods {
		c := per[m]
		unnamed += c.unnamed
		fmt.Fprintf(w, "  %s: %d incompatible (%d not named in CHANGELOG.md), %d compatible\n", m, c.incompatible, c.unnamed, c.compatible)
		for _, f := range findings {
			if f.Module != m || (f.Compatible && !verbose) {
				continue
			}
			switch line := namedAt(f, breaking); {
			case f.Compatible:
				fmt.Fprintf(w, "    compatible  %s\n", f.Message)
			case line > 0:
				fmt.Fprintf(w, "    ok          %s  (Breaking, CHANGELOG.md:%d)\n", f.Message, line)
			default:
				fmt.Fprintf(w, "    FAIL        %s  (no Breaking item of [Unreleased] names %s)\n", f.Message, f.Ident)
			}
		}
	}
	if unnamed > 0 {
		fmt.Fprintf(w, "apicompat: %d incompatible change(s) not named in CHANGELOG.md: add to its [Unreleased] section a list item that starts with \"Breaking\" and names each one in full (\"- Breaking: `mwallet.Error.RetryAfter` is a time.Duration ...\"), or undo the change\n", unnamed)
		return false
	}
	fmt.Fprintln(w, "apicompat: ok: every incompatible change is named by a Breaking item of CHANGELOG.md [Unreleased]")
	return true
}

// extract writes the tree of commit into dir (git archive, read here so
// that no tar program is needed).
func extract(ctx context.Context, repo, commit, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", commit)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	r, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	tr := tar.NewReader(r)
	var werr error
	for werr == nil {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			werr = err
			break
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(filepath.Separator)) {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			werr = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			if werr = os.MkdirAll(filepath.Dir(target), 0o755); werr == nil {
				werr = writeFile(target, tr, os.FileMode(h.Mode)&0o777)
			}
		case tar.TypeSymlink:
			if werr = os.MkdirAll(filepath.Dir(target), 0o755); werr == nil {
				werr = os.Symlink(h.Linkname, target)
			}
		}
	}
	_, _ = io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %v: %s", commit, err, stderr.String())
	}
	return werr
}

func writeFile(path string, r io.Reader, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func git(ctx context.Context, dir string, stdout io.Writer, args ...string) error {
	return runIn(ctx, dir, stdout, "git", args...)
}

func goCmd(ctx context.Context, dir string, env []string, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	return runCmd(cmd, stdout)
}

// runIn runs a program in dir; its stderr is returned in the error.
func runIn(ctx context.Context, dir string, stdout io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return runCmd(cmd, stdout)
}

func runCmd(cmd *exec.Cmd, stdout io.Writer) error {
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 4000 {
			msg = msg[:4000] + " ..."
		}
		return fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, msg)
	}
	return nil
}
