// Package citest holds the tests of the CI scripts in .ci: each step's
// wall time and the summary table, installs announced before they happen,
// and the fixed points .ci/run must run.
package citest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const ciDir = "../../.ci"

func needBash(t *testing.T) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	return bash
}

// steps.sh times every step, prints a table of all of them at the end, and
// on the first failure prints the table and exits 1 without running more.
func TestCIStepsAreTimedAndSummarised(t *testing.T) {
	t.Parallel()
	bash := needBash(t)
	lib, err := filepath.Abs(filepath.Join(ciDir, "steps.sh"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(script string) (string, int) {
		cmd := exec.Command(bash, "-c", "set -euo pipefail; source "+lib+"; "+script)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code
	}

	out, code := run(`two() { sleep 0.2 && echo second; }; step "first step" true; step "second step" two; summary`)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, re := range []string{
		`(?m)^==== first step$`, `(?m)^==== first step: ok in 0\.[0-9]s$`,
		`(?m)^second$`, `(?m)^==== second step: ok in 0\.[2-9]s$`,
		`(?m)^==== step times$`, `(?m)^  ok +0\.[0-9]s  first step$`, `(?m)^  ok +0\.[2-9]s  second step$`,
		`(?m)^ +[0-9]+\.[0-9]s  total$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}

	out, code = run(`step "passes" true; step "fails" false; step "never runs" echo ran`)
	if code != 1 || strings.Contains(out, "never runs") || strings.Contains(out, "ran\n") {
		t.Errorf("a failing step: exit %d, want 1 and no further step:\n%s", code, out)
	}
	for _, re := range []string{`(?m)^==== fails: FAILED \(exit 1\) after `, `(?m)^  ok +[0-9.]+s  passes$`, `(?m)^  FAIL +[0-9.]+s  fails$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("failure output lacks %s:\n%s", re, out)
		}
	}

	// The reason comes last: after the table, the failing step's last 25
	// lines (its stderr too), then the free disk space.
	out, code = run(`step "talks, then fails" bash -c 'for i in $(seq 1 40); do echo line $i; done; echo the reason >&2; exit 3'`)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	_, tail, ok := strings.Cut(out, "==== step times")
	if !ok {
		t.Fatalf("no table:\n%s", out)
	}
	for _, re := range []string{
		`(?m)^==== why "talks, then fails" failed: its last 25 lines\nline 17\n(line [0-9]+\n){23}the reason\n==== free disk space\nFilesystem +Size +Used +Avail`,
	} {
		if !regexp.MustCompile(re).MatchString(tail) {
			t.Errorf("the end of a failed run lacks %s:\n%s", re, tail)
		}
	}

	// A step runs in an || context, as its functions are written for: a
	// function's failing first command does not stop it.
	out, code = run(`f() { false; echo went on; }; step "function" f; summary`)
	if code != 0 || !strings.Contains(out, "went on\n") {
		t.Errorf("exit %d, want 0 and the function's second command run:\n%s", code, out)
	}
}

// installCommand matches a line of a CI script that installs something.
var installCommand = regexp.MustCompile(`\b(apt-get install|apt install|go install|npm install|npm i |npm ci\b|pip install)`)

// Every CI script says what it installs before installing it: an echo
// naming the install within the five lines before the command.
func TestCIScriptsAnnounceInstalls(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(ciDir)
	if err != nil {
		t.Fatal(err)
	}
	installs := 0
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(ciDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			code := strings.TrimSpace(l)
			if strings.HasPrefix(code, "#") || strings.HasPrefix(code, "echo") || !installCommand.MatchString(code) {
				continue
			}
			installs++
			announced := false
			for j := max(0, i-5); j < i; j++ {
				p := strings.TrimSpace(lines[j])
				if strings.HasPrefix(p, "echo") && strings.Contains(p, "install") {
					announced = true
				}
			}
			if !announced {
				t.Errorf(".ci/%s:%d installs without saying so first: %s", e.Name(), i+1, code)
			}
		}
	}
	if installs == 0 {
		t.Error("found no install command in .ci: the check is looking at nothing")
	}
}

// .ci/run runs the fixed points: gofmt, vet, the README's test command, the
// race detector, the test command on the oldest Go that go.mod allows, and
// the test-everything command.
func TestCIRunsTheFixedPoints(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(ciDir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	run := string(b)
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(string(gomod))
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	oldest := regexp.MustCompile(`oldest=go(\d+\.\d+)\.\d+`).FindStringSubmatch(run)
	if oldest == nil || oldest[1] != m[1] {
		t.Errorf(".ci/run tests on go%v; go.mod allows go %s", oldest, m[1])
	}
	for _, want := range []string{
		"gofmt -l", "go vet ./...", "go test -count=1 ./...", "go test -race -count=1 ./...",
		"GOTOOLCHAIN=$oldest go test -count=1 ./...", "go run ./internal/tools/testall",
		`source "$ci/steps.sh"`, "\nsummary\n",
	} {
		if !strings.Contains(run, want) {
			t.Errorf(".ci/run lacks %q", want)
		}
	}
}
