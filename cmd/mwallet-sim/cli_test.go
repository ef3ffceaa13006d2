package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
)

// binary is the mwallet-sim program built once by TestMain; the tests of
// this file run it as a user would, as a subprocess.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mwallet-sim-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "mwallet-sim")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building mwallet-sim:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one finished run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

func runBinary(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), "MWALLET_SIM_API_KEY=", "MWALLET_SIM_SIGNING_KEY=", "MWALLET_SIM_WEBHOOK_SECRET=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mwallet-sim %q: %v", args, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// -h, --help, -help and help list every command with its line, on stdout,
// and exit 0.
func TestCLIHelpListsTheCommands(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}} {
		r := runBinary(t, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("mwallet-sim %q: exit %d, stderr %q; want 0 and nothing on stderr", args, r.code, r.stderr)
		}
		for name, c := range commands {
			if !regexp.MustCompile(`(?m)^  ` + name + ` +` + regexp.QuoteMeta(c.summary) + `$`).MatchString(r.stdout) {
				t.Errorf("mwallet-sim %q does not list %s with its summary:\n%s", args, name, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, "usage: mwallet-sim [command] [flags]") || !strings.Contains(r.stdout, "  help ") {
			t.Errorf("mwallet-sim %q:\n%s", args, r.stdout)
		}
	}
}

// help COMMAND, COMMAND -h and COMMAND --help print that command's usage
// with its flags, on stdout, and exit 0; for every command.
func TestCLICommandHelp(t *testing.T) {
	t.Parallel()
	flagOf := map[string]string{"serve": "-addr", "listen": "-forward-to", "trigger": "-base-url"}
	for name, c := range commands {
		for _, args := range [][]string{{"help", name}, {name, "-h"}, {name, "--help"}} {
			r := runBinary(t, args...)
			if r.code != 0 || r.stderr != "" {
				t.Errorf("mwallet-sim %q: exit %d, stderr %q; want 0 and nothing on stderr", args, r.code, r.stderr)
			}
			if !strings.HasPrefix(r.stdout, "usage: "+c.synopsis+"\n") || !strings.Contains(r.stdout, "flags:") {
				t.Errorf("mwallet-sim %q: want the usage %q and the flags:\n%s", args, c.synopsis, r.stdout)
			}
			if f := flagOf[name]; f != "" && !strings.Contains(r.stdout, "  "+f+" ") {
				t.Errorf("mwallet-sim %q does not show %s:\n%s", args, f, r.stdout)
			}
		}
	}
	if r := runBinary(t, "-addr", "127.0.0.1:0", "-h"); r.code != 0 || !strings.HasPrefix(r.stdout, "usage: mwallet-sim [serve]") {
		t.Errorf("flags then -h: exit %d\n%s", r.code, r.stdout)
	}
}

// A mistake in the command line exits 2 with the reason on stderr; a
// failure while running exits 1.
func TestCLIExitStatus(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := gone.Addr().String() // nothing listens there once closed
	gone.Close()
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"launch"}, 2, `unknown command "launch"`},
		{[]string{"help", "launch"}, 2, `help: unknown command "launch"`},
		{[]string{"help", "serve", "extra"}, 2, "help takes one command name"},
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"serve", "-model", "self"}, 2, `-model "self": want platform_hosted or merchant_hosted`},
		{[]string{"serve", "-clock", "manual", "-start", "yesterday"}, 2, "-start"},
		{[]string{"serve", "extra"}, 2, "unexpected arguments: extra"},
		{[]string{"listen"}, 2, "-forward-to is required"},
		{[]string{"trigger"}, 2, "an event type is required"},
		{[]string{"trigger", "no.such.event"}, 2, `unknown event type "no.such.event"`},
		{[]string{"serve", "-addr", busy.Addr().String()}, 1, "another mwallet-sim may still be running"},
		{[]string{"trigger", "deposit.credited", "-base-url", "http://" + closed}, 1, "reading the simulator's credentials"},
		{[]string{"trigger", "-list"}, 0, ""},
	}
	for _, tt := range tests {
		r := runBinary(t, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("mwallet-sim %q: exit %d, stderr %q; want %d with %q", tt.args, r.code, r.stderr, tt.code, tt.stderr)
		}
	}
}

// serve prints its base URL, dashboard URL and credentials; SIGINT and
// SIGTERM stop it gracefully: a request in flight gets its answer, a line
// says the server stops, and the exit status is 0.
func TestCLISignalsStopGracefully(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(binary, "serve", "-addr", "127.0.0.1:0")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill() }()

			// Read the banner up to its last line.
			sc := bufio.NewScanner(stdout)
			var banner []string
			for sc.Scan() {
				banner = append(banner, sc.Text())
				if strings.HasPrefix(sc.Text(), "stop with") {
					break
				}
			}
			text := strings.Join(banner, "\n")
			m := regexp.MustCompile(`mwallet-sim listening on (http://\S+)`).FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("no base URL in the banner:\n%s\nstderr: %s", text, stderr.String())
			}
			base := m[1]
			for _, want := range []string{"dashboard:   " + base + "/_sim/ui/", "api_key         " + simulator.DefaultAPIKey} {
				if !strings.Contains(text, want) {
					t.Errorf("banner lacks %q:\n%s", want, text)
				}
			}
			var rest bytes.Buffer
			var copied sync.WaitGroup
			copied.Add(1)
			go func() { defer copied.Done(); _, _ = io.Copy(&rest, stdout) }()

			// A request held 2 s by a delay fault is in flight when the
			// signal arrives.
			fault := `{"method":"POST","path":"/v1/connect/token","count":1,"kind":"delay","delay_ms":2000}`
			if resp, err := http.Post(base+"/_sim/faults", "application/json", strings.NewReader(fault)); err != nil || resp.StatusCode/100 != 2 {
				t.Fatalf("injecting the delay: %v %v", resp, err)
			}
			answered := make(chan error, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodPost, base+"/v1/connect/token", nil)
				req.Header.Set("X-Client-Id", simulator.DefaultClientID)
				req.Header.Set("X-Api-Key", simulator.DefaultAPIKey)
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				answered <- err
			}()
			time.Sleep(500 * time.Millisecond) // the request is being served
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := <-answered; err != nil {
				t.Errorf("the request in flight was cut: %v", err)
			}
			err = cmd.Wait()
			copied.Wait()
			if err != nil {
				t.Errorf("exit: %v, want status 0; stderr %q", err, stderr.String())
			}
			name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
			for _, want := range []string{"mwallet-sim: " + name + " received, stopping gracefully", "mwallet-sim stopped"} {
				if !strings.Contains(rest.String(), want) {
					t.Errorf("output after the signal lacks %q:\n%s", want, rest.String())
				}
			}
			// Stopped means stopped: nothing listens any more.
			if resp, err := http.Get(base + "/_sim/credentials"); err == nil {
				resp.Body.Close()
				t.Error("the server still answers after exiting")
			}
		})
	}
}
