package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Modules are found by their go.mod files, the main module first; hidden
// directories, testdata, vendor and node_modules are not searched.
func TestFindModules(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/root\n\ngo 1.24\n")
	write(t, filepath.Join(root, "store", "go.mod"), "module example.com/root/store\n\ngo 1.24\n\nrequire (\n\tgithub.com/redis/go-redis/v9 v9.17.3 // a comment\n\texample.com/root v0.0.0\n)\n")
	write(t, filepath.Join(root, "e2e", "web", "go.mod"), "module example.com/root/e2e/web\n\nrequire github.com/chromedp/chromedp v0.14.2\n")
	for _, skipped := range []string{".git/x", "testdata/x", "vendor/x", "node_modules/x", "_old/x"} {
		write(t, filepath.Join(root, skipped, "go.mod"), "module skipped\n")
	}
	mods, err := findModules(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []module{
		{Dir: "."},
		{Dir: "e2e/web", Requires: []string{"github.com/chromedp/chromedp"}},
		{Dir: "store", Requires: []string{"github.com/redis/go-redis/v9", "example.com/root"}},
	}
	if diff := cmp.Diff(want, mods); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	if !mods[2].needs("github.com/redis/go-redis") || mods[1].needs("github.com/redis/go-redis") {
		t.Error("needs")
	}
}

// In this repository: the main module and at least the two nested modules
// the README names.
func TestFindModulesOfThisRepository(t *testing.T) {
	t.Parallel()
	mods, err := findModules(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, m := range mods {
		dirs[m.Dir] = true
	}
	for _, d := range []string{".", "redisstore", "e2e/browser"} {
		if !dirs[d] {
			t.Errorf("module %s not found; found %v", d, mods)
		}
	}
	if mods[0].Dir != "." {
		t.Errorf("the main module is not first: %v", mods)
	}
}

// A failing nested module fails the run, every module is still tested, and
// the summary has a row per module.
func TestTestAllRunsEveryModule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs go test in two small modules")
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/root\n\ngo 1.24\n")
	write(t, filepath.Join(root, "a_test.go"), "package root\n\nimport \"testing\"\n\nfunc TestPasses(t *testing.T) {}\n")
	write(t, filepath.Join(root, "nested", "go.mod"), "module example.com/root/nested\n\ngo 1.24\n")
	write(t, filepath.Join(root, "nested", "b_test.go"), "package nested\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) { t.Fatal(\"planted failure\") }\n")
	var out bytes.Buffer
	err := testAll(context.Background(), root, false, []string{"-count=1"}, &out, &out)
	if !errors.Is(err, errTestsFailed) {
		t.Fatalf("testAll = %v, want errTestsFailed\n%s", err, out.String())
	}
	for _, re := range []string{
		`(?m)^==== \.: go test -count=1 \./\.\.\.$`,
		`(?m)^==== nested: FAIL in `,
		`planted failure`,
		`(?m)^module +result +time +notes$`,
		`(?m)^\. +ok +[0-9.]+m?s`,
		`(?m)^nested +FAIL +[0-9.]+m?s +exit status 1`,
		`(?m)^total +[0-9.]+m?s`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
}

// Without REDIS_URL, a redis-server on PATH is started privately for the
// module and stopped afterwards.
func TestProvideRedis(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed")
	}
	t.Setenv("REDIS_URL", "")
	env, note, stop := provideRedis(context.Background())
	if len(env) != 1 || !strings.HasPrefix(env[0], "REDIS_URL=redis://127.0.0.1:") {
		stop()
		t.Fatalf("env %v, note %q", env, note)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(env[0], "REDIS_URL=redis://"), "/0")
	if err := waitRedis(context.Background(), addr); err != nil {
		t.Errorf("the private redis-server does not answer: %v", err)
	}
	stop()
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("the private redis-server still listens after stop")
	}
	t.Setenv("REDIS_URL", "redis://example:6379/0")
	if env, note, _ := provideRedis(context.Background()); env != nil || !strings.Contains(note, "REDIS_URL is set") {
		t.Errorf("with REDIS_URL: %v %q", env, note)
	}
}
