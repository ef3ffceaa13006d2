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
