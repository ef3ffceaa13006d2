package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/internal/tools/modules"
	"github.com/mwallet/mwallet-go/internal/tools/releases"
)

// Wrong arguments exit 2 before anything is done, saying why.
func TestReleaseRefusesBadArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage:"},
		{[]string{"publish"}, "usage:"},
		{[]string{"tag"}, `want one version such as v0.1.0, got []`},
		{[]string{"tag", "0.1.0"}, `got ["0.1.0"]`},
		{[]string{"tag", "v0.1"}, `got ["v0.1"]`},
		{[]string{"tag", "v0.1.0", "v0.2.0"}, "want one version"},
		{[]string{"notes", "latest"}, "want one version"},
		{[]string{"snapshot", "extra"}, "usage:"},
		{[]string{"tag", "-nope", "v0.1.0"}, "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), tt.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("release %q: exit %d, stderr %q; want 2 with %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// The tags of a release: VERSION on the main module, DIR/VERSION on each
// nested one, none on internal modules.
func TestTagNames(t *testing.T) {
	t.Parallel()
	mods := []modules.Module{{Dir: "."}, {Dir: "e2e/browser"}, {Dir: "internal/tools/image"}, {Dir: "otel"}, {Dir: "redisstore"}}
	want := []string{"v0.1.0", "e2e/browser/v0.1.0", "otel/v0.1.0", "redisstore/v0.1.0"}
	if diff := cmp.Diff(want, tagNames(mods, "v0.1.0")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// SHA256SUMS is checked as sha256sum -c checks it, and must list exactly
// the binaries.
func TestVerifySums(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "A")
	write("b", "B")
	const sumA = "559aead08264d5795d3909718cdd05abd49572e84fe55590eef31a88a08fdffd"
	const sumB = "df7e70e5021544f4834bbee64a9e3789febc4be81470df629cad6ddb03320a5c"
	for _, tt := range []struct {
		sums, want string
	}{
		{sumA + "  a\n" + sumB + "  b\n", ""},
		{sumA + "  a\n", "SHA256SUMS lists [a], the binaries are [a b]"},
		{sumB + "  a\n" + sumB + "  b\n", "SHA256SUMS: a is " + sumA},
		{sumA + " a\n", "is not a sha256sum line"},
		{sumA + "  a\n" + sumB + "  b\n" + sumB + "  c\n", "no such file"},
	} {
		write("SHA256SUMS", tt.sums)
		err := verifySums(dir, []string{"a", "b"})
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("sums %q: %v, want %q", tt.sums, err, tt.want)
		}
	}
}

// git runs git in dir with a fixed identity.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Release Test", "-c", "user.email=release@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// A repository with a main module, a nested module requiring it (with a
// replace) and an internal nested module.
func newRepo(t *testing.T, nestedRequire, changelog string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                "module example.com/root\n\ngo 1.24\n",
		"root.go":               "package root\n",
		"store/go.mod":          "module example.com/root/store\n\ngo 1.24\n\nrequire example.com/root " + nestedRequire + "\n\nreplace example.com/root => ../\n",
		"store/store.go":        "package store\n",
		"internal/tool/go.mod":  "module example.com/root/internal/tool\n\ngo 1.24\n",
		"internal/tool/main.go": "package main\n\nfunc main() {}\n",
		"CHANGELOG.md":          changelog,
		releases.File:           "# releases\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// tag refuses, changing nothing, until the release is ready, and says
// every reason at once.
func TestTagRefuses(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, "v0.0.0", "# Changelog\n\n## [Unreleased]\n\n- Something.\n")
	if err := os.WriteFile(filepath.Join(dir, "dirty"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	head := git(t, dir, "rev-parse", "HEAD")
	var out bytes.Buffer
	err := releaser{root: dir, stdout: &out, stderr: &out}.tag(t.Context(), "v0.1.0", false)
	if err == nil {
		t.Fatal("tag of an unready repository: no error")
	}
	for _, want := range []string{
		"not released, nothing changed",
		"the working tree is not clean",
		"CHANGELOG.md has no ## [0.1.0] section",
		"store/go.mod requires example.com/root v0.0.0: (cd store && go mod edit -require=example.com/root@v0.1.0)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if got := git(t, dir, "rev-parse", "HEAD"); got != head || git(t, dir, "tag") != "" {
		t.Errorf("a refused tag changed the repository: HEAD %s, tags %q", got, git(t, dir, "tag"))
	}
}

// prepare makes the mechanical edits; after their commit, tag records the
// commit in RELEASES (in a commit of its own), tags the main and nested
// modules on it but not the internal one, and refuses the same version
// twice.
func TestPrepareThenTag(t *testing.T) {
	t.Parallel()
	dir := newRepo(t, "v0.0.0", "# Changelog\n\n## [Unreleased]\n\n### Added\n- Everything.\n")
	var out bytes.Buffer
	r := releaser{root: dir, stdout: &out, stderr: &out}
	if err := r.prepare(t.Context(), "v0.1.0"); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out.String())
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "store", "go.mod"))
	if !strings.Contains(string(gomod), "require example.com/root v0.1.0") || !strings.Contains(string(gomod), "replace example.com/root => ../") {
		t.Errorf("store/go.mod after prepare:\n%s", gomod)
	}
	cl, _ := os.ReadFile(filepath.Join(dir, "CHANGELOG.md"))
	if !strings.Contains(string(cl), "## [Unreleased]\n\n## [0.1.0] - ") {
		t.Errorf("CHANGELOG.md after prepare:\n%s", cl)
	}
	git(t, dir, "commit", "-q", "-am", "release: prepare v0.1.0")
	released := git(t, dir, "rev-parse", "HEAD")

	if err := (releaser{root: dir, stdout: &out, stderr: &out}).tag(t.Context(), "v0.1.0", true); err != nil {
		t.Fatalf("tag -n: %v", err)
	}
	if git(t, dir, "tag") != "" {
		t.Fatal("tag -n made tags")
	}
	r.env = gitIdentity
	if err := r.tag(t.Context(), "v0.1.0", false); err != nil {
		t.Fatalf("tag: %v\n%s", err, out.String())
	}
	rels, err := releases.Read(filepath.Join(dir, releases.File))
	if err != nil || len(rels) != 1 || rels[0].Version != "v0.1.0" || rels[0].Commit != released {
		t.Fatalf("RELEASES: %v, %v; want v0.1.0 %s", rels, err, released)
	}
	if got := git(t, dir, "log", "-1", "--format=%s", "--name-only"); got != "release: v0.1.0\n\n"+releases.File {
		t.Errorf("the release commit: %q", got)
	}
	if got := git(t, dir, "rev-parse", "HEAD~1"); got != released {
		t.Errorf("the release commit's parent is %s, want %s", got, released)
	}
	if diff := cmp.Diff("store/v0.1.0\nv0.1.0", git(t, dir, "tag")); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	for _, tag := range []string{"v0.1.0", "store/v0.1.0"} {
		if got := git(t, dir, "rev-parse", tag+"^{commit}"); got != released {
			t.Errorf("tag %s is on %s, want %s", tag, got, released)
		}
	}
	err = r.tag(t.Context(), "v0.1.0", false)
	if err == nil || !strings.Contains(err.Error(), "v0.1.0 does not follow the last release, v0.1.0") || !strings.Contains(err.Error(), "tag v0.1.0 exists already") {
		t.Errorf("the same release twice: %v", err)
	}
	out.Reset()
	if err := r.notes("v0.1.0"); err != nil || out.String() != "### Added\n- Everything.\n" {
		t.Errorf("notes: %q, %v", out.String(), err)
	}
}

var gitIdentity = []string{"GIT_AUTHOR_NAME=Release Test", "GIT_AUTHOR_EMAIL=release@example.com", "GIT_COMMITTER_NAME=Release Test", "GIT_COMMITTER_EMAIL=release@example.com"}

func TestSnapshotVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		last, want, err string
	}{
		{"", "0.0.1-snapshot+abc1234", ""},
		{"v0.1.0", "0.1.1-snapshot+abc1234", ""},
		{"v1.9.9", "1.9.10-snapshot+abc1234", ""},
		{"v2.0.0-rc.1", "2.0.0-snapshot+abc1234", ""},
		{"v1.2", "", "not vMAJOR.MINOR.PATCH"},
		{"chaos/v0.1.0", "", "not vMAJOR.MINOR.PATCH"},
		{"v01.2.3", "", "not vMAJOR.MINOR.PATCH"},
	} {
		got, err := snapshotVersion(tc.last, "abc1234")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("snapshotVersion(%q) error = %v, want one saying %q", tc.last, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("snapshotVersion(%q) = %q, %v; want %q", tc.last, got, err, tc.want)
		}
	}
}
