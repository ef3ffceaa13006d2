package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// simProcess is a mwallet-sim the tool started.
type simProcess struct {
	cmd     *exec.Cmd
	url     string
	logPath string
	done    chan struct{}
	exitErr error
}

// buildSim builds mwallet-sim from the module the tool runs in.
func buildSim(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "mwallet-sim")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/mwallet/mwallet-go/cmd/mwallet-sim")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/mwallet-sim (run the tool from the repository): %v\n%s", err, out)
	}
	return bin, nil
}

// startSim starts bin serving on a free loopback port with args after
// "serve", its output written to logPath, and waits for its banner.
func startSim(ctx context.Context, bin, logPath string, args []string) (*simProcess, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &simProcess{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	urls := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		// Copy stdout to the log, picking the URL out of the banner.
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if u, ok := strings.CutPrefix(line, "mwallet-sim listening on "); ok {
				select {
				case urls <- strings.TrimSpace(u):
				default:
				}
			}
		}
		_, _ = io.Copy(logFile, pr)
	}()
	go func() {
		p.exitErr = cmd.Wait()
		pw.Close()
		<-scanned
		logFile.Close()
		close(p.done)
	}()
	select {
	case p.url = <-urls:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("mwallet-sim exited before serving (%v); its output is in %s", p.exitErr, logPath)
	case <-time.After(5 * time.Minute): // a restart may replay a long log
		p.kill()
		return nil, fmt.Errorf("mwallet-sim printed no banner in 5 minutes; its output is in %s", logPath)
	case <-ctx.Done():
		p.kill()
		return nil, ctx.Err()
	}
}

// stop asks the simulator to stop (SIGINT: requests in flight finish, a
// last snapshot is written) and waits for it, killing it after timeout.
func (p *simProcess) stop(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.exitErr
	default:
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		p.kill()
		return err
	}
	select {
	case <-p.done:
		return p.exitErr
	case <-time.After(timeout):
		p.kill()
		return fmt.Errorf("mwallet-sim did not stop within %s of SIGINT; killed", timeout)
	}
}

func (p *simProcess) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// quit sends SIGQUIT: the Go runtime writes every goroutine's stack to the
// simulator's stderr (its log) and exits.
func (p *simProcess) quit() {
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.kill()
	}
}

func (p *simProcess) pid() int { return p.cmd.Process.Pid }

// controlClient calls the simulator's control API.
type controlClient struct {
	base  string
	token string
	hc    *http.Client
}

// controlError is a control API answer that is not 2xx.
type controlError struct {
	Method, Path string
	Status       int
	Code         string
	Message      string
}

func (e *controlError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Status, e.Code, e.Message)
}

// call sends a control request with body in (nil: none) and decodes a 2xx
// answer into out (nil: discarded).
func (c *controlClient) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if method != http.MethodGet {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("X-Sim-Control-Token", c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var env struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_ = json.Unmarshal(b, &env)
		return &controlError{Method: method, Path: path, Status: resp.StatusCode, Code: env.Error.Code, Message: env.Error.Message}
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// count reads the body of a control GET to its end and returns its size.
func (c *controlClient) count(ctx context.Context, path string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return 0, err
	}
	if c.token != "" {
		req.Header.Set("X-Sim-Control-Token", c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = &controlError{Method: http.MethodGet, Path: path, Status: resp.StatusCode}
	}
	return n, err
}

// usdtAvailable reads a member's available USDT, in millionths.
func (c *controlClient) usdtAvailable(ctx context.Context, member string) (int64, error) {
	var m struct {
		Balances map[string]struct {
			Available string `json:"available"`
		} `json:"balances"`
	}
	if err := c.call(ctx, http.MethodGet, "/_sim/members/"+member, nil, &m); err != nil {
		return 0, err
	}
	return micros(m.Balances["USDT"].Available)
}

// micros parses a decimal with at most six decimals into millionths.
func micros(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 6 || whole == "" {
		return 0, fmt.Errorf("amount %q: not a decimal of at most 6 places", s)
	}
	frac += strings.Repeat("0", 6-len(frac))
	neg := strings.HasPrefix(whole, "-")
	w, err := strconv.ParseInt(strings.TrimPrefix(whole, "-"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	v := w*1_000_000 + f
	if neg {
		v = -v
	}
	return v, nil
}

// formatMicros prints millionths as a decimal of six places.
func formatMicros(v int64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%06d", sign, v/1_000_000, v%1_000_000)
}

// procCPU returns the CPU time (user and system) process pid has used, from
// /proc (Linux; false elsewhere). /proc counts in clock ticks of 1/100 s,
// the value of CLK_TCK on every Linux architecture Go supports.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After the name: state is field 3, utime 14 and stime 15.
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, false
	}
	return time.Duration(u+s) * 10 * time.Millisecond, true
}

// loadAverage reads the one-minute load average (Linux; false elsewhere).
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// onceErr keeps the first error of many goroutines.
type onceErr struct {
	mu  sync.Mutex
	err error
}

func (o *onceErr) set(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
	}
}

func (o *onceErr) get() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}
