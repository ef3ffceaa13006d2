// Command release makes the releases of this repository. From the
// repository root:
//
//	go run ./internal/tools/release snapshot         # the release files from the working tree, into dist/release
//	go run ./internal/tools/release files            # the same from GoReleaser's last run (dist/), for publishing
//	go run ./internal/tools/release prepare v0.1.0   # the edits a release needs, to commit (nested go.mod, CHANGELOG heading)
//	go run ./internal/tools/release tag v0.1.0       # make the release: RELEASES names the commit, every module is tagged
//	go run ./internal/tools/release notes v0.1.0     # the release's CHANGELOG section, for the release page
//
// snapshot builds what a release publishes, from the working tree: the six
// mwallet-sim binaries (Linux, macOS and Windows on amd64 and arm64) and
// SHA256SUMS by GoReleaser (the platforms, flags and names are in
// .goreleaser.yaml, the one place that says them), then the container
// image from the two Linux binaries (internal/tools/image, an OCI image
// layout and its tar file, without a Docker daemon), which it inspects. It
// prints each file with its size and checksum. files does the second half
// (collect, image, inspect) after a GoReleaser run of one's own, such as
// the publishing `goreleaser release`. GoReleaser is installed
// through the module proxy (go install) at the version pinned below, once,
// into the user cache directory.
//
// tag records HEAD as the release VERSION: it appends "VERSION COMMIT" to
// RELEASES and commits that alone, then tags the released commit VERSION
// for the main module and DIR/VERSION for each nested module (internal
// ones excepted), as Go expects of nested modules. It refuses, changing
// nothing, unless the working tree is clean, VERSION follows the last
// release, CHANGELOG.md has a [VERSION] section, and every nested module
// that requires the main module requires it at VERSION (prepare makes
// those edits). -n prints what it would do. docs/contributing.md has the
// whole procedure, publishing included.
//
// It exits 1 when a step fails, 2 for wrong arguments.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mwallet/mwallet-go/internal/tools/changelog"
	"github.com/mwallet/mwallet-go/internal/tools/modules"
	"github.com/mwallet/mwallet-go/internal/tools/releases"
)

// goreleaser is the pinned GoReleaser.
const (
	goreleaserPkg     = "github.com/goreleaser/goreleaser/v2"
	goreleaserVersion = "v2.15.1"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: go run ./internal/tools/release COMMAND
  snapshot [-out DIR]   the release files from the working tree (default dist/release)
  files [-out DIR]      the release files and the image from GoReleaser's last run (dist/)
  prepare VERSION       edit the nested go.mod files and CHANGELOG.md for VERSION
  tag [-n] VERSION      record HEAD as VERSION in RELEASES and tag every module
  notes VERSION         print VERSION's section of CHANGELOG.md
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("release "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", filepath.Join("dist", "release"), "snapshot, files: the directory the release files are written to")
	dry := fs.Bool("n", false, "tag: print what would be done, and do nothing")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	var version string
	switch args[0] {
	case "snapshot", "files":
		if fs.NArg() != 0 {
			fmt.Fprint(stderr, usage)
			return 2
		}
	case "prepare", "tag", "notes":
		if fs.NArg() != 1 || !releases.ValidVersion(fs.Arg(0)) {
			fmt.Fprintf(stderr, "release %s: want one version such as v0.1.0, got %q\n", args[0], fs.Args())
			return 2
		}
		version = fs.Arg(0)
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	root, err := modules.Root(ctx)
	if err == nil {
		r := releaser{root: root, stdout: stdout, stderr: stderr}
		switch args[0] {
		case "snapshot":
			err = r.snapshot(ctx, *out)
		case "files":
			err = r.files(ctx, *out)
		case "prepare":
			err = r.prepare(ctx, version)
		case "tag":
			err = r.tag(ctx, version, *dry)
		case "notes":
			err = r.notes(version)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "release %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

type releaser struct {
	root           string
	stdout, stderr io.Writer
	env            []string // added to the environment of the commands run
}

func (r releaser) notes(version string) error {
	text, err := os.ReadFile(filepath.Join(r.root, "CHANGELOG.md"))
	if err != nil {
		return err
	}
	s, err := changelog.Find(string(text), version)
	if err != nil {
		return fmt.Errorf("CHANGELOG.md: %w", err)
	}
	_, err = io.WriteString(r.stdout, s.Body())
	return err
}

// tagNames are the tags of a release: VERSION for the main module and
// DIR/VERSION for each nested module outside internal/.
func tagNames(mods []modules.Module, version string) []string {
	var out []string
	for _, m := range mods {
		switch {
		case m.Dir == ".":
			out = append(out, version)
		case m.Dir == "internal" || strings.HasPrefix(m.Dir, "internal/") || strings.Contains(m.Dir, "/internal/") || strings.HasSuffix(m.Dir, "/internal"):
		default:
			out = append(out, m.Dir+"/"+version)
		}
	}
	return out
}

// requireMismatches lists the nested modules that require the main module
// at another version than version, with the command that fixes each.
func (r releaser) requireMismatches(ctx context.Context, mods []modules.Module, version string) ([]string, error) {
	main := mods[0].Path
	var out []string
	for _, m := range mods[1:] {
		if !m.Needs(main) {
			continue
		}
		var buf bytes.Buffer
		if err := r.cmd(ctx, filepath.Join(r.root, m.Dir), &buf, "go", "mod", "edit", "-json"); err != nil {
			return nil, err
		}
		var gm struct {
			Require []struct{ Path, Version string }
		}
		if err := json.Unmarshal(buf.Bytes(), &gm); err != nil {
			return nil, fmt.Errorf("%s/go.mod: %w", m.Dir, err)
		}
		for _, req := range gm.Require {
			if req.Path == main && req.Version != version {
				out = append(out, fmt.Sprintf("%s/go.mod requires %s %s: (cd %s && go mod edit -require=%s@%s)", m.Dir, main, req.Version, m.Dir, main, version))
			}
		}
	}
	return out, nil
}

// prepare makes the edits of a release that are mechanical: each nested
// module that requires the main module requires it at version (its replace
// directive keeps development on the working tree), and CHANGELOG.md gets
// a [VERSION] heading under [Unreleased] when it has none. The content of
// the section stays the maintainers' to write.
func (r releaser) prepare(ctx context.Context, version string) error {
	mods, err := modules.Find(r.root)
	if err != nil {
		return err
	}
	fixes, err := r.requireMismatches(ctx, mods, version)
	if err != nil {
		return err
	}
	for _, m := range mods[1:] {
		if m.Needs(mods[0].Path) {
			if err := r.cmd(ctx, filepath.Join(r.root, m.Dir), nil, "go", "mod", "edit", "-require="+mods[0].Path+"@"+version); err != nil {
				return err
			}
		}
	}
	for _, f := range fixes {
		fmt.Fprintln(r.stdout, "edited", strings.SplitN(f, ":", 2)[0]+": now", version)
	}
	path := filepath.Join(r.root, "CHANGELOG.md")
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if _, err := changelog.Find(string(text), version); err != nil {
		u, err := changelog.Find(string(text), "Unreleased")
		if err != nil {
			return fmt.Errorf("CHANGELOG.md: %w", err)
		}
		lines := strings.Split(string(text), "\n")
		heading := fmt.Sprintf("## [%s] - %s", strings.TrimPrefix(version, "v"), time.Now().UTC().Format("2006-01-02"))
		lines = append(lines[:u.Line], append([]string{"", heading}, lines[u.Line:]...)...)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(r.stdout, "CHANGELOG.md: %q under [Unreleased]: the changes so far are now %s's; review the section\n", heading, version)
	}
	fmt.Fprintf(r.stdout, "review and commit these edits; once CI passes on that commit: go run ./internal/tools/release tag %s\n", version)
	return nil
}

func (r releaser) tag(ctx context.Context, version string, dry bool) error {
	var problems []string
	var buf bytes.Buffer
	if err := r.cmd(ctx, r.root, &buf, "git", "status", "--porcelain"); err != nil {
		return err
	}
	if s := strings.TrimSpace(buf.String()); s != "" {
		problems = append(problems, "the working tree is not clean:\n"+s)
	}
	rels, err := releases.Read(filepath.Join(r.root, releases.File))
	if err != nil {
		return err
	}
	if n := len(rels); n > 0 && releases.Compare(rels[n-1].Version, version) >= 0 {
		problems = append(problems, fmt.Sprintf("%s does not follow the last release, %s", version, rels[n-1].Version))
	}
	text, err := os.ReadFile(filepath.Join(r.root, "CHANGELOG.md"))
	if err != nil {
		return err
	}
	if s, err := changelog.Find(string(text), version); err != nil || strings.TrimSpace(s.Body()) == "" {
		problems = append(problems, fmt.Sprintf("CHANGELOG.md has no ## [%s] section with the release's changes (go run ./internal/tools/release prepare %s adds the heading)", strings.TrimPrefix(version, "v"), version))
	}
	mods, err := modules.Find(r.root)
	if err != nil {
		return err
	}
	mismatches, err := r.requireMismatches(ctx, mods, version)
	if err != nil {
		return err
	}
	problems = append(problems, mismatches...)
	tags := tagNames(mods, version)
	for _, t := range tags {
		if r.cmd(ctx, r.root, nil, "git", "rev-parse", "-q", "--verify", "refs/tags/"+t) == nil {
			problems = append(problems, "tag "+t+" exists already")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("not released, nothing changed:\n  %s", strings.Join(problems, "\n  "))
	}
	buf.Reset()
	if err := r.cmd(ctx, r.root, &buf, "git", "rev-parse", "HEAD"); err != nil {
		return err
	}
	commit := strings.TrimSpace(buf.String())
	fmt.Fprintf(r.stdout, "release %s: commit %s\n  %s += %q\n  tags %s\n", version, commit, releases.File, strings.TrimSpace(releases.Line(version, commit)), strings.Join(tags, " "))
	if dry {
		fmt.Fprintln(r.stdout, "-n: nothing done")
		return nil
	}
	path := filepath.Join(r.root, releases.File)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(releases.Line(version, commit)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if _, err := releases.Read(path); err != nil {
		return err
	}
	if err := r.cmd(ctx, r.root, nil, "git", "commit", "-q", "-m", "release: "+version+"\n\n"+releases.File+" names "+commit+", tagged "+strings.Join(tags, " ")+".", "--", releases.File); err != nil {
		return err
	}
	for _, t := range tags {
		if err := r.cmd(ctx, r.root, nil, "git", "tag", "-a", t, "-m", "mwallet-go "+version, commit); err != nil {
			return err
		}
	}
	fmt.Fprintf(r.stdout, "done. Publish (docs/contributing.md, Releases):\n  git push origin HEAD %s\n", strings.Join(tags, " "))
	return nil
}

// snapshot builds the release files from the working tree.
func (r releaser) snapshot(ctx context.Context, out string) error {
	if !filepath.IsAbs(out) {
		out = filepath.Join(r.root, out)
	}
	gr, err := r.tool(ctx, goreleaserPkg, goreleaserVersion, "goreleaser")
	if err != nil {
		return err
	}
	// Once a release exists, the commit carries the nested modules' tags
	// too (otel/v0.1.0, ...), which GoReleaser would take for the current
	// version and refuse as not semantic: it is told the main module's.
	rels, err := releases.Read(filepath.Join(r.root, "RELEASES"))
	if err != nil {
		return err
	}
	last := ""
	if len(rels) > 0 {
		last = rels[len(rels)-1].Version
		r.env = append(r.env[:len(r.env):len(r.env)], "GORELEASER_CURRENT_TAG="+last)
	}
	// GoReleaser reads the repository's remote URL with the rest of its
	// git state; in a clone without a remote that read fails, and a
	// snapshot then labels itself v0.0.0 of commit "none". Such a clone is
	// given the project's URL for the run (git's GIT_CONFIG_* variables).
	if r.cmd(ctx, r.root, nil, "git", "ls-remote", "--get-url") != nil {
		r.env = append(r.env[:len(r.env):len(r.env)], "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=remote.origin.url", "GIT_CONFIG_VALUE_0="+projectURL)
	}
	var short bytes.Buffer
	if err := r.cmd(ctx, r.root, &short, "git", "show", "--quiet", "--format=%h", "HEAD"); err != nil {
		return err
	}
	want, err := snapshotVersion(last, strings.TrimSpace(short.String()))
	if err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "== GoReleaser %s: goreleaser release --snapshot --clean (.goreleaser.yaml)\n", goreleaserVersion)
	start := time.Now()
	var log bytes.Buffer
	if err := r.cmd(ctx, r.root, &log, gr, "release", "--snapshot", "--clean"); err != nil {
		fmt.Fprint(r.stdout, log.String())
		return err
	}
	fmt.Fprintf(r.stdout, "   built in %.1fs\n", time.Since(start).Seconds())
	got, err := distVersion(filepath.Join(r.root, "dist"))
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("GoReleaser labelled the snapshot %s; from RELEASES (%q) and HEAD it is %s", got, last, want)
	}
	return r.files(ctx, out)
}

// files collects the release files of GoReleaser's last run into out,
// checks SHA256SUMS, and builds and inspects the image.
func (r releaser) files(ctx context.Context, out string) error {
	if !filepath.IsAbs(out) {
		out = filepath.Join(r.root, out)
	}
	files, version, err := collect(filepath.Join(r.root, "dist"), out)
	if err != nil {
		return err
	}
	if err := verifySums(out, files); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := r.cmd(ctx, r.root, &buf, "git", "log", "-1", "--format=%H %cI"); err != nil {
		return err
	}
	revision, created, _ := strings.Cut(strings.TrimSpace(buf.String()), " ")
	image := filepath.Join(out, "mwallet-sim-image")
	fmt.Fprintf(r.stdout, "== image (internal/tools/image): OCI image layout from the Linux binaries, no Docker daemon\n")
	imageDir := filepath.Join(r.root, "internal", "tools", "image")
	if err := r.cmd(ctx, imageDir, r.stdout, "go", "run", ".", "build", "-dist", out, "-version", "v"+version, "-revision", revision, "-created", created, "-out", image); err != nil {
		return err
	}
	if err := r.cmd(ctx, imageDir, r.stdout, "go", "run", ".", "inspect", "-image", image, "-sums", filepath.Join(out, "SHA256SUMS"), "-run"); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "== release files of %s in %s\n", "v"+version, out)
	return printFiles(r.stdout, out, append(files, "SHA256SUMS", "mwallet-sim-image.tar"))
}

// collect copies the files GoReleaser would upload (binaries and
// SHA256SUMS, from dist/artifacts.json) into out, named as uploaded. It
// returns the binaries' names and the snapshot's version.
func collect(dist, out string) ([]string, string, error) {
	b, err := os.ReadFile(filepath.Join(dist, "artifacts.json"))
	if err != nil {
		return nil, "", err
	}
	var arts []struct {
		Name, Path, Type string
		Extra            map[string]any
	}
	if err := json.Unmarshal(b, &arts); err != nil {
		return nil, "", fmt.Errorf("artifacts.json: %w", err)
	}
	version, err := distVersion(dist)
	if err != nil {
		return nil, "", err
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, "", err
	}
	var names []string
	for _, a := range arts {
		upload := a.Type == "Checksum" || (a.Type == "Binary" && a.Extra["Format"] == "binary")
		if !upload {
			continue
		}
		src := a.Path
		if !filepath.IsAbs(src) {
			src = filepath.Join(filepath.Dir(dist), src)
		}
		if err := copyFile(src, filepath.Join(out, a.Name)); err != nil {
			return nil, "", err
		}
		if a.Type == "Binary" {
			names = append(names, a.Name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, "", errors.New("artifacts.json lists no binary to upload")
	}
	return names, version, nil
}

var sumLine = regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)

// verifySums checks SHA256SUMS against the files as sha256sum -c does, and
// that it lists exactly the binaries.
func verifySums(dir string, names []string) error {
	b, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return err
	}
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		m := sumLine.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("SHA256SUMS: %q is not a sha256sum line", line)
		}
		sum, _, err := hashFile(filepath.Join(dir, m[2]))
		if err != nil {
			return err
		}
		if sum != m[1] {
			return fmt.Errorf("SHA256SUMS: %s is %s, listed %s", m[2], sum, m[1])
		}
		listed = append(listed, m[2])
	}
	sort.Strings(listed)
	if strings.Join(listed, " ") != strings.Join(names, " ") {
		return fmt.Errorf("SHA256SUMS lists %v, the binaries are %v", listed, names)
	}
	return nil
}

func printFiles(w io.Writer, dir string, names []string) error {
	for _, n := range names {
		sum, size, err := hashFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-32s %10d bytes  sha256 %s\n", n, size, sum)
	}
	return nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	outf, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(outf, in); err != nil {
		outf.Close()
		return err
	}
	return outf.Close()
}

// tool returns the path of a pinned Go command, installing it through the
// module proxy (go install) into the user cache directory on first use.
func (r releaser) tool(ctx context.Context, pkg, version, name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "mwallet-go-tools", name+"@"+version)
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	fmt.Fprintf(r.stdout, "== installing %s@%s (go install, through the module proxy; once, into %s)\n", pkg, version, dir)
	inst := r
	inst.env = []string{"GOBIN=" + dir}
	if err := inst.cmd(ctx, r.root, r.stdout, "go", "install", pkg+"@"+version); err != nil {
		return "", err
	}
	return bin, nil
}

// cmd runs a program in dir; stdout goes to w (nil: discarded), stderr is
// returned in the error.
func (r releaser) cmd(ctx context.Context, dir string, w io.Writer, name string, args ...string) error {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = dir
	c.Env = append(append(os.Environ(), "GOWORK=off"), r.env...)
	var stderr bytes.Buffer
	c.Stdout, c.Stderr = w, &stderr
	if err := c.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 4000 {
			msg = msg[len(msg)-4000:]
		}
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, msg)
	}
	return nil
}
