// Package webhookcrash is the crash test of the webhook Handler and its
// Dedupers: a receiver process is killed with SIGKILL at each point of the
// handling of one event (before the function, inside it, after it returned
// and before the id is recorded as done, after that), started again on the
// same Deduper, and the service's retries are delivered; the test then
// counts how often each event's effect was applied.
//
// The receiver is the test binary itself, run again with MaybeReceive
// called first thing in TestMain: each module with a Deduper (the root
// module's MemoryDeduper, redisstore, sqlstore) passes the function that
// opens its Deduper from a configuration string, and Run drives the
// simulator and the processes.
package webhookcrash

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Deduper is webhooks.Deduper.
type Deduper = webhooks.Deduper

// The points where a receiver is killed while it handles the victim event.
const (
	BeforeFunction = "before the function"           // claimed, the function not called
	InsideFunction = "inside the function"           // the function runs, its effect not committed
	AfterFunction  = "after the function, not done"  // the effect committed, the id not recorded as done
	AfterDone      = "after done, before the answer" // recorded as done, no answer sent
)

// Points lists the kill points in the order of the handling.
var Points = []string{BeforeFunction, InsideFunction, AfterFunction, AfterDone}

// Environment of the receiver process.
const (
	envReceiver = "MWALLET_WEBHOOK_CRASH_RECEIVER"
	envAddr     = "MWALLET_WEBHOOK_CRASH_ADDR"
	envSecret   = "MWALLET_WEBHOOK_CRASH_SECRET"
	envClock    = "MWALLET_WEBHOOK_CRASH_CLOCK"
	envLog      = "MWALLET_WEBHOOK_CRASH_LOG"
	envPoint    = "MWALLET_WEBHOOK_CRASH_POINT"
	envVictim   = "MWALLET_WEBHOOK_CRASH_VICTIM"
	envConfig   = "MWALLET_WEBHOOK_CRASH_DEDUPER"
)

// Lease is the receiver's lease (webhooks.WithLease): the service's
// retries come 1 and then 5 minutes after a failure, so the first retry
// finds a dead receiver's claim held and the second takes it over.
const Lease = 2 * time.Minute

// MaybeReceive runs the receiver and exits when the process was started as
// one by Run; otherwise it returns at once. open opens the Deduper from the
// configuration Run was given.
func MaybeReceive(open func(config string) (Deduper, error)) {
	if os.Getenv(envReceiver) != "1" {
		return
	}
	if err := receive(open); err != nil {
		fmt.Fprintln(os.Stderr, "receiver:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// receive serves webhooks.Handler on the Deduper until killed. Its function
// appends the event id to the effect log (fsync'd: the merchant's
// database); at the configured point for the victim event it prints
// "reached" and waits to be killed.
func receive(open func(string) (Deduper, error)) error {
	inner, err := open(os.Getenv(envConfig))
	if err != nil {
		return fmt.Errorf("open the deduper: %w", err)
	}
	point, victim := os.Getenv(envPoint), os.Getenv(envVictim)
	stop := func(at, id string) {
		if at == point && id == victim {
			fmt.Printf("reached %s %s\n", at, id)
			select {} // killed here
		}
	}
	d := &pausing{inner: inner, stop: stop}
	logPath := os.Getenv(envLog)
	var mu sync.Mutex
	fn := func(_ context.Context, ev webhooks.Event) error {
		stop(InsideFunction, ev.EventID)
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.WriteString(ev.EventID + "\n"); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	clockURL := os.Getenv(envClock)
	h := webhooks.Handler(mwallet.Secret(os.Getenv(envSecret)), fn, webhooks.WithDeduper(d),
		webhooks.WithLease(Lease), webhooks.WithClock(func() time.Time { return simNow(clockURL) }))
	l, err := net.Listen("tcp", os.Getenv(envAddr))
	if err != nil {
		return err
	}
	fmt.Println("ready")
	return http.Serve(l, h)
}

// simNow reads the simulator's clock (GET /_sim/clock): the handler's clock
// is the one the simulator signs with.
func simNow(url string) time.Time {
	resp, err := http.Get(url)
	if err != nil {
		return time.Time{}
	}
	defer resp.Body.Close()
	var c struct {
		Now string `json:"now"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, c.Now)
	return t
}

// pausing wraps a Deduper with the kill points around Claim and Done.
type pausing struct {
	inner Deduper
	stop  func(at, id string)
}

func (p *pausing) Claim(ctx context.Context, id string, now time.Time, lease time.Duration) (webhooks.Claim, error) {
	c, err := p.inner.Claim(ctx, id, now, lease)
	if err == nil && c.State == webhooks.ClaimAcquired {
		p.stop(BeforeFunction, id)
	}
	return c, err
}

func (p *pausing) Done(ctx context.Context, id string, now time.Time) error {
	p.stop(AfterFunction, id)
	err := p.inner.Done(ctx, id, now)
	if err == nil {
		p.stop(AfterDone, id)
	}
	return err
}

func (p *pausing) Release(ctx context.Context, id, token string) error {
	return p.inner.Release(ctx, id, token)
}

// Row is one line of the crash table.
type Row struct {
	Deduper string
	Point   string
	// Events were emitted; Processed of them had their effect applied at
	// least once; Duplicates counts the effects applied beyond the first.
	Events, Processed, Duplicates int
	// VictimEffects is how often the killed event's effect was applied.
	VictimEffects int
}

// Config is one deduper under test.
type Config struct {
	// Name is the deduper's name in the table.
	Name string
	// Deduper is the configuration MaybeReceive's open function is given;
	// NewDeduper returns a fresh one per kill point (new keys or tables).
	NewDeduper func(t *testing.T) string
	// Persistent is false for a deduper that dies with the process.
	Persistent bool
}

// Run kills a receiver on cfg's deduper at every point and returns the
// rows. For a persistent deduper it fails the test unless every event was
// processed, every event other than the killed one exactly once, and the
// killed one once, or twice when killed after the function and before done
// (the documented window). For one that dies with the process it checks
// only that every event was processed.
func Run(t *testing.T, cfg Config) []Row {
	t.Helper()
	var rows []Row
	for _, point := range Points {
		row := runPoint(t, cfg, point)
		rows = append(rows, row)
		if row.Processed != row.Events {
			t.Errorf("%s, killed %s: %d of %d events processed", cfg.Name, point, row.Processed, row.Events)
		}
		if !cfg.Persistent {
			continue
		}
		want := 1
		if point == AfterFunction {
			want = 2
		}
		if row.VictimEffects != want || row.Duplicates != want-1 {
			t.Errorf("%s, killed %s: the killed event applied %d times, %d duplicates in all; want %d and %d",
				cfg.Name, point, row.VictimEffects, row.Duplicates, want, want-1)
		}
	}
	return rows
}

// Format renders rows as the crash table.
func Format(rows []Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s | %-30s | %9s | %10s | %s\n", "deduper", "killed", "processed", "duplicates", "killed event applied")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-10s | %-30s | %4d of %d | %10d | %d\n", r.Deduper, r.Point, r.Processed, r.Events, r.Duplicates, r.VictimEffects)
	}
	return b.String()
}

const events = 3

func runPoint(t *testing.T, cfg Config, point string) Row {
	t.Helper()
	sim := simtest.Start(t)
	addr := freeAddr(t)
	_, secret, err := sim.Webhooks.AddEndpoint("http://"+addr+"/webhooks", "deposit.credited")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range events {
		id, err := sim.Events.Emit("deposit.credited", "deposit", fmt.Sprintf("%d", 1000+i), simulator.DefaultMemberExternalID, "credited", 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	victim := ids[1]
	dir := t.TempDir()
	env := []string{
		envReceiver + "=1", envAddr + "=" + addr, envSecret + "=" + secret,
		envClock + "=" + sim.URL() + "/_sim/clock", envLog + "=" + dir + "/effects.log",
		envConfig + "=" + cfg.NewDeduper(t), envVictim + "=" + victim,
	}
	ctx := context.Background()

	first := start(t, append(env, envPoint+"="+point))
	flushed := make(chan error, 1)
	go func() { _, err := sim.Webhooks.FlushExpectingFailures(ctx); flushed <- err }()
	select {
	case line := <-first.lines:
		if line != "reached "+point+" "+victim {
			t.Fatalf("receiver said %q", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the receiver never reached %q", point)
	}
	first.kill() // kill -9
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}

	second := start(t, env)
	defer second.kill()
	// The service's retries: 1 and 5 minutes after a failure, then more.
	for _, d := range []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute} {
		sim.Clock.Advance(d)
		if _, err := sim.Webhooks.FlushExpectingFailures(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, dl := range sim.Webhooks.Deliveries() {
		if slices.Contains(ids, dl.EventID) && dl.Status != "sent" {
			t.Errorf("killed %s: delivery of %s is %s after the retries", point, dl.EventID, dl.Status)
		}
	}
	b, err := os.ReadFile(dir + "/effects.log")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, id := range strings.Fields(string(b)) {
		count[id]++
	}
	row := Row{Deduper: cfg.Name, Point: point, Events: events, VictimEffects: count[victim]}
	for _, id := range ids {
		if count[id] > 0 {
			row.Processed++
			row.Duplicates += count[id] - 1
		}
		if id != victim && cfg.Persistent && count[id] != 1 {
			t.Errorf("killed %s: event %s (not the killed one) applied %d times, want 1", point, id, count[id])
		}
	}
	return row
}

// receiver is a running receiver process.
type receiver struct {
	cmd   *exec.Cmd
	lines chan string
}

// start runs the test binary as a receiver and waits until it listens.
func start(t *testing.T, env []string) *receiver {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &receiver{cmd: cmd, lines: make(chan string, 4)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	t.Cleanup(r.kill)
	select {
	case line := <-r.lines:
		if line != "ready" {
			t.Fatalf("receiver said %q, want ready", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the receiver did not start")
	}
	return r
}

// kill sends SIGKILL and reaps the process.
func (r *receiver) kill() {
	if r.cmd.ProcessState != nil {
		return
	}
	_ = r.cmd.Process.Kill()
	_ = r.cmd.Wait()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
