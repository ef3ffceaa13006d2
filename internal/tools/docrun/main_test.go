package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Marked shell blocks are found with the line of their first command,
// inside list items too (their indentation removed); unmarked blocks and
// a mark shown inside another block are not.
func TestExtract(t *testing.T) {
	t.Parallel()
	text := "# Title\n" + // 1
		"\n" + // 2
		"<!-- run -->\n" + // 3
		"```sh\n" + // 4
		"echo one\n" + // 5
		"echo two\n" + // 6
		"```\n" + // 7
		"\n" + // 8
		"```sh\n" + // 9
		"not marked\n" + // 10
		"```\n" + // 11
		"1. A step:\n" + // 12
		"   <!-- run -->\n" + // 13
		"   ```bash\n" + // 14
		"   curl -s http://127.0.0.1:8080/_sim/clock\n" + // 15
		"     indented more\n" + // 16
		"   ```\n" + // 17
		"````markdown\n" + // 18
		"<!-- run -->\n" + // 19
		"```sh\n" + // 20
		"shown, not run\n" + // 21
		"```\n" + // 22
		"````\n" + // 23
		"<!-- run -->\n" + // 24
		"~~~shell\n" + // 25
		"echo ~~~\n" + // 26
		"~~~\n" // 27
	got, err := extract("doc.md", text)
	if err != nil {
		t.Fatal(err)
	}
	want := []block{
		{line: 5, text: "echo one\necho two"},
		{line: 15, text: "curl -s http://127.0.0.1:8080/_sim/clock\n  indented more"},
		{line: 26, text: "echo ~~~"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(block{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A mark that marks nothing runnable is an error naming its line.
func TestExtractRefusesBadMarks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ text, want string }{
		{"x\n<!-- run -->", "doc.md:2: <!-- run --> is not followed by a fenced block"},
		{"<!-- run -->\n\n```sh\necho\n```\n", "doc.md:1: <!-- run --> is not followed at once by a fenced block"},
		{"<!-- run -->\n```go\nfunc main() {}\n```\n", "marks a block that is not sh, bash or shell"},
		{"<!-- run -->\n```\necho\n```\n", "not sh, bash or shell"},
		{"<!-- run -->\n```sh\necho\n", "doc.md:2: the block marked to run does not close"},
	} {
		if _, err := extract("doc.md", tt.text); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("extract(%q) = %v, want %q", tt.text, err, tt.want)
		}
	}
}

// The simulator's default address in a block stands for the fresh one's.
func TestScriptSubstitutesTheDefaultAddress(t *testing.T) {
	t.Parallel()
	src, start := script("/state", "127.0.0.1:41234", "curl http://127.0.0.1:8080/a\ncurl localhost:8080/b\ncurl 127.0.0.1:80800/c 127.0.0.1:8081/d")
	lines := strings.Split(src, "\n")
	want := []string{"curl http://127.0.0.1:41234/a", "curl 127.0.0.1:41234/b", "curl 127.0.0.1:80800/c 127.0.0.1:8081/d"}
	if diff := cmp.Diff(want, lines[start-1:start+2]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// End to end, against a real mwallet-sim: blocks run in order in a copy of
// the repository; the working directory and exports carry over; the
// default address reaches the fresh simulator; a process left running is
// stopped; the first failing block stops the run, naming the file and the
// line of the failing command.
func TestRunAgainstTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mwallet-sim and runs blocks against it")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	t.Parallel()
	sim := filepath.Join(t.TempDir(), "mwallet-sim")
	build := exec.Command("go", "build", "-o", sim, "github.com/mwallet/mwallet-go/cmd/mwallet-sim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod":   "module example.com/docs\n\ngo 1.24\n",
		"data.txt": "from the repository\n",
		"ok.md": "<!-- run -->\n```sh\ngrep -q 'from the repository' data.txt\nmkdir sub && cd sub\nexport GREETING=hello\n" +
			"sleep 300 &\n```\n\n<!-- run -->\n```sh\n" +
			"test \"$(basename \"$PWD\")\" = sub && test \"$GREETING\" = hello\n" +
			"curl -sf http://127.0.0.1:8080/_sim/credentials | grep -q sim_client_1\n" +
			"curl -sf \"$MWALLET_SIM_URL/_sim/clock\" > /dev/null\n" +
			"test \"$(go env GOPATH)/bin\" != \"$HOME/go/bin\"\n```\n",
		"fail.md": "# Failing\n\n<!-- run -->\n```sh\necho before\nfalse\necho never\n```\n\n<!-- run -->\n```sh\necho not reached\n```\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var docs []doc
	for _, f := range []string{"ok.md", "fail.md"} {
		blocks, err := extract(f, files[f])
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{file: f, blocks: blocks})
	}
	var out bytes.Buffer
	r := runner{root: root, stdout: &out, timeout: time.Minute, sim: sim}
	start := time.Now()
	n, err := r.runAll(t.Context(), docs)
	if err == nil {
		t.Fatalf("no error; ran %d blocks:\n%s", n, out.String())
	}
	if n != 2 {
		t.Errorf("ran %d blocks before the failure, want 2:\n%s", n, out.String())
	}
	for _, want := range []string{"FAIL fail.md:6 (the block of line 4): exit status 1", "    | before"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "never") || strings.Contains(out.String(), "not reached") {
		t.Errorf("ran past the failure:\n%s\n%v", out.String(), err)
	}
	if !strings.Contains(out.String(), "ok    ok.md:3") || !strings.Contains(out.String(), "ok    ok.md:11") {
		t.Errorf("output:\n%s", out.String())
	}
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("took %s: the background sleep was not stopped", d)
	}
}
