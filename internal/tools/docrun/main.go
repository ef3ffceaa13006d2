// Command docrun runs the documentation: every shell block of the
// repository's Markdown files that is marked to run is executed, in order
// per file, and the first one that fails stops the run with its file and
// line. From the repository root:
//
//	go run ./internal/tools/docrun            # every tracked *.md file
//	go run ./internal/tools/docrun README.md  # some files
//	go run ./internal/tools/docrun -list      # the marked blocks, without running them
//
// A block is marked by an HTML comment on the line just before its fence,
// which GitHub does not show:
//
//	<!-- run -->
//	```sh
//	curl -s http://127.0.0.1:8080/_sim/credentials
//	```
//
// Only sh, bash and shell blocks can be marked. Mark a block that works as
// written on a clone of the repository with Go, git and curl; leave
// unmarked one that needs something else (a published module, a real
// environment, credentials, a browser, another language's toolchain).
//
// How a file's blocks run: in a scratch copy of the working tree (the
// tracked files and the new ones not ignored, as a fresh clone would have
// them) named mwallet-go, each block by bash with -e and -o pipefail, one
// after the other; the working directory and the exported variables carry
// over from one block to the next, as in one terminal. Processes a block
// leaves running are stopped when it ends. GOPATH is a fresh directory
// (the module and build caches are shared), so `go install` puts commands
// in a clean $(go env GOPATH)/bin.
//
// The simulator: for each file, a fresh mwallet-sim (built from the working
// tree) serves on a free loopback port; $MWALLET_SIM_URL is its base URL.
// The docs address a running simulator at its default address,
// 127.0.0.1:8080 (or localhost:8080): in a block, that address stands for
// the fresh simulator's. A block that starts a simulator of its own gives
// it another address.
//
// It prints a line per block and the count; it exits 1 at the first
// failing block, printing its output, 2 for wrong flags or marks.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mwallet/mwallet-go/internal/tools/modules"
)

// Marker is the line that marks the next block to run.
const Marker = "<!-- run -->"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("docrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.Bool("list", false, "list the marked blocks and exit")
	verbose := fs.Bool("v", false, "print every block's output")
	timeout := fs.Duration("timeout", 5*time.Minute, "the longest a block may run")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	root, err := modules.Root(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "docrun:", err)
		return 1
	}
	files := fs.Args()
	if len(files) == 0 {
		if files, err = trackedMarkdown(ctx, root); err != nil {
			fmt.Fprintln(stderr, "docrun:", err)
			return 1
		}
	}
	var docs []doc
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			fmt.Fprintln(stderr, "docrun:", err)
			return 2
		}
		blocks, err := extract(f, string(text))
		if err != nil {
			fmt.Fprintln(stderr, "docrun:", err)
			return 2
		}
		if len(blocks) > 0 {
			docs = append(docs, doc{file: f, blocks: blocks})
		}
	}
	if *list {
		n := 0
		for _, d := range docs {
			for _, b := range d.blocks {
				n++
				first, _, _ := strings.Cut(b.text, "\n")
				fmt.Fprintf(stdout, "%s:%d  %s\n", d.file, b.line, first)
			}
		}
		fmt.Fprintf(stdout, "%d blocks in %d files\n", n, len(docs))
		return 0
	}
	r := runner{root: root, stdout: stdout, verbose: *verbose, timeout: *timeout}
	n, err := r.runAll(ctx, docs)
	if err != nil {
		fmt.Fprintln(stdout, "docrun:", err)
		return 1
	}
	fmt.Fprintf(stdout, "docrun: %d blocks in %d files ran as written\n", n, len(docs))
	return 0
}

// trackedMarkdown lists the repository's Markdown files, tracked or new
// and not ignored.
func trackedMarkdown(ctx context.Context, root string) ([]string, error) {
	out, err := gitFiles(ctx, root, "*.md")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range out {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			files = append(files, f)
		}
	}
	return files, nil
}

func gitFiles(ctx context.Context, root string, patterns ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate", "--"}, patterns...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

type doc struct {
	file   string
	blocks []block
}

// block is one marked shell block.
type block struct {
	line int    // the 1-based line of its first command (the line after the fence)
	text string // its lines, the fence's indentation removed
}

// extract returns the marked blocks of a Markdown text. A mark must be
// followed at once by a fence of sh, bash or shell, which must close.
func extract(file, text string) ([]block, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) != Marker {
			// Skip the contents of every fenced block, marked or not, so
			// that a mark shown inside an example is not taken for one.
			if f := fenceOf(line); f != "" {
				i = closing(lines, i, f)
			}
			continue
		}
		if i+1 >= len(lines) {
			return nil, fmt.Errorf("%s:%d: %s is not followed by a fenced block", file, i+1, Marker)
		}
		open := lines[i+1]
		indent := len(open) - len(strings.TrimLeft(open, " "))
		trimmed := strings.TrimSpace(open)
		fence := fenceOf(open)
		if fence == "" {
			return nil, fmt.Errorf("%s:%d: %s is not followed at once by a fenced block", file, i+1, Marker)
		}
		info := strings.Fields(strings.TrimSpace(trimmed[len(fence):]))
		if len(info) == 0 || (info[0] != "sh" && info[0] != "bash" && info[0] != "shell") {
			return nil, fmt.Errorf("%s:%d: %s marks a block that is not sh, bash or shell (%q)", file, i+1, Marker, trimmed)
		}
		end := closing(lines, i+1, fence)
		if end >= len(lines) {
			return nil, fmt.Errorf("%s:%d: the block marked to run does not close", file, i+2)
		}
		var body []string
		for _, l := range lines[i+2 : end] {
			n := 0
			for n < indent && n < len(l) && l[n] == ' ' {
				n++
			}
			body = append(body, l[n:])
		}
		out = append(out, block{line: i + 3, text: strings.Join(body, "\n")})
		i = end
	}
	return out, nil
}

// fenceOf returns the fence a line opens (``` or ~~~, or longer), or "".
func fenceOf(line string) string {
	t := strings.TrimSpace(line)
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// closing returns the index of the line that closes the fence opened at
// lines[open], or len(lines).
func closing(lines []string, open int, fence string) int {
	for j := open + 1; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
			return j
		}
	}
	return len(lines)
}

// defaultAddrRE is the simulator's default address as the docs write it.
var defaultAddrRE = regexp.MustCompile(`\b(127\.0\.0\.1|localhost):8080\b`)

type runner struct {
	root    string
	stdout  io.Writer
	verbose bool
	timeout time.Duration
	sim     string // a prebuilt mwallet-sim, or "" to build one
}

func (r runner) runAll(ctx context.Context, docs []doc) (int, error) {
	tmp, err := os.MkdirTemp("", "docrun")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	sim := r.sim
	if sim == "" {
		sim = filepath.Join(tmp, "bin", "mwallet-sim")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", sim, "./cmd/mwallet-sim")
		cmd.Dir = r.root
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("building mwallet-sim: %v\n%s", err, out)
		}
	}
	gocache, err := goEnv(ctx, r.root, "GOMODCACHE", "GOCACHE")
	if err != nil {
		return 0, err
	}
	n := 0
	for i, d := range docs {
		dir := filepath.Join(tmp, strconv.Itoa(i))
		ran, err := r.runDoc(ctx, sim, dir, gocache, d)
		n += ran
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func goEnv(ctx context.Context, dir string, names ...string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"env"}, names...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	var env []string
	for i, n := range names {
		env = append(env, n+"="+vals[i])
	}
	return env, nil
}

// runDoc runs one file's blocks in a scratch copy with a fresh simulator.
func (r runner) runDoc(ctx context.Context, sim, dir string, goenv []string, d doc) (int, error) {
	clone := filepath.Join(dir, "mwallet-go")
	if err := copyTree(ctx, r.root, clone); err != nil {
		return 0, err
	}
	state := filepath.Join(dir, "state")
	gopath := filepath.Join(dir, "gopath")
	for _, p := range []string{state, gopath} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return 0, err
		}
	}
	addr, stop, err := startSim(ctx, sim, dir)
	if err != nil {
		return 0, err
	}
	defer stop()
	env := []string{"MWALLET_SIM_URL=http://" + addr, "GOPATH=" + gopath, "GOFLAGS=" + os.Getenv("GOFLAGS")}
	env = append(env, goenv...)
	if err := os.WriteFile(filepath.Join(state, "cwd"), []byte(clone+"\n"), 0o644); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(state, "env"), nil, 0o644); err != nil {
		return 0, err
	}
	for i, b := range d.blocks {
		start := time.Now()
		out, failedLine, err := r.runBlock(ctx, state, dir, env, addr, b)
		where := fmt.Sprintf("%s:%d", d.file, b.line)
		if err != nil {
			if failedLine > 0 {
				where = fmt.Sprintf("%s:%d", d.file, failedLine)
			}
			return i, fmt.Errorf("FAIL %s (the block of line %d): %v\n%s", where, b.line-1, err, indent(out))
		}
		fmt.Fprintf(r.stdout, "ok    %-40s %6.1fs\n", where, time.Since(start).Seconds())
		if r.verbose {
			fmt.Fprint(r.stdout, indent(out))
		}
	}
	return len(d.blocks), nil
}

// script is the bash program of a block: the state of the previous block,
// the block, then its state for the next one. blockStart is the script's
// line of the block's first line.
func script(state, addr, text string) (string, int) {
	pre := []string{
		`cd "$(cat ` + shellQuote(filepath.Join(state, "cwd")) + `)"`,
		`. ` + shellQuote(filepath.Join(state, "env")),
		`trap 's=$?; echo "$LINENO $s" > ` + shellQuote(filepath.Join(state, "err")) + `' ERR`,
	}
	body := defaultAddrRE.ReplaceAllString(text, addr)
	post := []string{
		`trap - ERR`,
		`pwd > ` + shellQuote(filepath.Join(state, "cwd")),
		`export -p > ` + shellQuote(filepath.Join(state, "env")),
	}
	return strings.Join(pre, "\n") + "\n" + body + "\n" + strings.Join(post, "\n") + "\n", len(pre) + 1
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// runBlock runs one block; on failure it returns the Markdown line of the
// failing command when bash reported one.
func (r runner) runBlock(ctx context.Context, state, dir string, env []string, addr string, b block) (string, int, error) {
	src, blockStart := script(state, addr, b.text)
	_ = os.Remove(filepath.Join(state, "err"))
	logPath := filepath.Join(dir, "block.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return "", 0, err
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", src)
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "GOBIN=")
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("still running after %s", r.timeout)
	}
	stopGroup(cmd.Process.Pid)
	out, _ := os.ReadFile(logPath)
	if err == nil {
		return string(out), 0, nil
	}
	line := 0
	if e, rerr := os.ReadFile(filepath.Join(state, "err")); rerr == nil {
		f := strings.Fields(string(e))
		if len(f) == 2 {
			if l, err := strconv.Atoi(f[0]); err == nil && l >= blockStart {
				line = b.line + (l - blockStart)
			}
		}
	}
	return string(out), line, err
}

// stopGroup stops what a block left running: SIGTERM to its process
// group, SIGKILL after two seconds.
func stopGroup(pgid int) {
	if syscall.Kill(-pgid, syscall.SIGTERM) != nil {
		return
	}
	for i := 0; i < 20; i++ {
		time.Sleep(100 * time.Millisecond)
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

func indent(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    | " + l + "\n")
	}
	return b.String()
}

var listeningRE = regexp.MustCompile(`^mwallet-sim listening on http://(\S+)`)

// startSim starts mwallet-sim on a free loopback port and returns its
// address.
func startSim(ctx context.Context, sim, dir string) (string, func(), error) {
	cmd := exec.CommandContext(ctx, sim, "serve", "-addr", "127.0.0.1:0")
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		found := false
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil && !found {
				found = true
				addr <- strings.TrimSuffix(m[1], "/")
			}
		}
		if !found {
			close(addr)
		}
	}()
	select {
	case a, ok := <-addr:
		if ok {
			return a, stop, nil
		}
	case <-time.After(30 * time.Second):
	}
	stop()
	return "", nil, fmt.Errorf("mwallet-sim did not start: %s", stderr.String())
}

// copyTree copies the working tree's files (tracked, and new ones not
// ignored) from root to dst.
func copyTree(ctx context.Context, root, dst string) error {
	files, err := gitFiles(ctx, root)
	if err != nil {
		return err
	}
	for _, f := range files {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil {
			continue // deleted in the working tree
		}
		target := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if st.Mode()&os.ModeSymlink != 0 {
			link, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(link, target); err != nil {
				return err
			}
			continue
		}
		if !st.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, st.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
