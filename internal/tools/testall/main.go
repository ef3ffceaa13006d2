// Command testall runs the tests of every Go module in the repository: the
// main module and each nested module (a directory with its own go.mod, such
// as redisstore/ and e2e/browser/), which `go test ./...` leaves out. From
// the repository root:
//
//	go run ./internal/tools/testall            # go test ./... in every module
//	go run ./internal/tools/testall -race      # flags are passed to go test
//	go run ./internal/tools/testall -list      # the modules it found
//
// Modules are discovered by their go.mod files, so a new nested module is
// tested without changing this program. It prints each module's wall time
// and a summary table, and exits 1 when a module's tests fail.
//
// Outside services: a module that requires github.com/redis/go-redis gets
// a private redis-server on a free loopback port (REDIS_URL) when
// REDIS_URL is not set and redis-server is on PATH; without either, its
// Redis tests skip, each saying how to run them. A module that requires
// github.com/chromedp/chromedp needs Chromium; without it, its tests skip
// with the install command. testall installs nothing; .ci/run installs both
// (Debian's redis-server and chromium). With CI=true those tests fail
// instead of skipping.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mwallet/mwallet-go/internal/tools/modules"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errTestsFailed):
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "testall:", err)
		os.Exit(1)
	}
}

var errTestsFailed = errors.New("tests failed")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("testall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.Bool("list", false, "list the modules and exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./internal/tools/testall [-list] [go test flags]")
		fmt.Fprintln(stderr, "Runs go test ./... in the main module and in every nested module (found by their go.mod).")
		fs.PrintDefaults()
	}
	// Our own flag first; everything else goes to go test.
	var testFlags []string
	for _, a := range args {
		if a == "-list" || a == "--list" {
			*list = true
			continue
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.Usage()
			return flag.ErrHelp
		}
		testFlags = append(testFlags, a)
	}
	root, err := modules.Root(ctx)
	if err != nil {
		return err
	}
	return testAll(ctx, root, *list, testFlags, stdout, stderr)
}

// testAll tests every module under root.
func testAll(ctx context.Context, root string, list bool, testFlags []string, stdout, stderr io.Writer) error {
	mods, err := modules.Find(root)
	if err != nil {
		return err
	}
	if list {
		for _, m := range mods {
			fmt.Fprintln(stdout, m.Dir)
		}
		return nil
	}
	var results []result
	for _, m := range mods {
		if ctx.Err() != nil {
			break
		}
		results = append(results, testModule(ctx, root, m, testFlags, stdout, stderr))
	}
	printSummary(stdout, results)
	for _, r := range results {
		if !r.OK {
			return errTestsFailed
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// result is the outcome of one module's tests.
type result struct {
	Dir     string
	OK      bool
	Elapsed time.Duration
	Notes   []string
}

// testModule runs go test ./... in one module, providing what it needs.
func testModule(ctx context.Context, root string, m modules.Module, testFlags []string, stdout, stderr io.Writer) result {
	res := result{Dir: m.Dir}
	fmt.Fprintf(stdout, "\n==== %s: go test %s\n", m.Dir, strings.Join(append(append([]string{}, testFlags...), "./..."), " "))
	env := os.Environ()
	if m.Needs("github.com/redis/go-redis") {
		extra, note, stop := provideRedis(ctx)
		defer stop()
		env = append(env, extra...)
		res.Notes = append(res.Notes, note)
		fmt.Fprintln(stdout, note)
	}
	if m.Needs("github.com/chromedp/chromedp") {
		note := chromiumNote()
		res.Notes = append(res.Notes, note)
		fmt.Fprintln(stdout, note)
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"test"}, testFlags...), "./...")...)
	cmd.Dir = filepath.Join(root, filepath.FromSlash(m.Dir))
	cmd.Env = append(env, "GOWORK=off")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	res.Elapsed = time.Since(start)
	res.OK = err == nil
	if err != nil {
		res.Notes = append(res.Notes, err.Error())
	}
	fmt.Fprintf(stdout, "==== %s: %s in %s\n", m.Dir, okText(res.OK), res.Elapsed.Round(100*time.Millisecond))
	return res
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

// provideRedis returns the environment giving the tests a Redis: REDIS_URL
// as set, or a private redis-server started on a free loopback port (stop
// stops it), or nothing (the tests skip) with a note saying so.
func provideRedis(ctx context.Context) (env []string, note string, stop func()) {
	stop = func() {}
	if u := os.Getenv("REDIS_URL"); u != "" {
		return nil, "Redis: REDIS_URL is set; the Redis tests use it", stop
	}
	exe, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, "Redis: REDIS_URL is not set and redis-server is not on PATH: the Redis tests skip " +
			"(install Debian's redis-server, or set REDIS_URL=redis://HOST:PORT/0)", stop
	}
	port, err := freePort()
	if err != nil {
		return nil, "Redis: no free port for a private redis-server (" + err.Error() + "): the Redis tests skip", stop
	}
	dir, err := os.MkdirTemp("", "testall-redis")
	if err != nil {
		return nil, "Redis: " + err.Error() + ": the Redis tests skip", stop
	}
	cmd := exec.Command(exe, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, "Redis: starting redis-server: " + err.Error() + ": the Redis tests skip", stop
	}
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(dir)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := waitRedis(ctx, addr); err != nil {
		stop()
		return nil, "Redis: the private redis-server did not answer (" + err.Error() + "): the Redis tests skip", func() {}
	}
	return []string{"REDIS_URL=redis://" + addr + "/0"}, "Redis: a private redis-server on " + addr + " for this module", stop
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitRedis waits until a Redis server answers PING at addr.
func waitRedis(ctx context.Context, addr string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, err = io.WriteString(c, "PING\r\n")
			if err == nil {
				var line string
				line, err = bufio.NewReader(c).ReadString('\n')
				if err == nil && !strings.HasPrefix(line, "+PONG") {
					err = fmt.Errorf("answered %q", strings.TrimSpace(line))
				}
			}
			c.Close()
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// chromiumNote says whether the browser tests will find Chromium.
func chromiumNote() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return "Chromium: CHROMIUM=" + p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return "Chromium: " + p
		}
	}
	return "Chromium: not found: the browser tests skip (install Debian's chromium, or set CHROMIUM to a Chromium binary)"
}

// printSummary prints one row per module.
func printSummary(w io.Writer, results []result) {
	fmt.Fprintln(w, "\n==== summary")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "module\tresult\ttime\tnotes")
	var total time.Duration
	for _, r := range results {
		total += r.Elapsed
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Dir, okText(r.OK), r.Elapsed.Round(100*time.Millisecond), strings.Join(r.Notes, "; "))
	}
	fmt.Fprintf(tw, "total\t\t%s\t\n", total.Round(100*time.Millisecond))
	tw.Flush()
}
