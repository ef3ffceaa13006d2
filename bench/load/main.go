// Command load drives many SDK clients against one standalone simulator
// with a data directory, as a CI farm shares one, and measures what they
// meet: throughput, latency, stalls, snapshots, the fill of the bounded
// stores, the simulator clock's lag behind the host's, the SDK's clock-skew
// log lines, refusals, 5xx answers; then audits every answered write.
//
// From the repository root:
//
//	go run ./bench/load                              # 32 clients, 1 minute, a mix of writes and reads
//	go run ./bench/load -clients 256 -duration 5m -md
//	go run ./bench/load -mode peak -duration 10m     # deposits only, as fast as the simulator takes them
//	go run ./bench/load -control-reads digest,recording,ledger,state -control-every 15s
//	go run ./bench/load -url http://127.0.0.1:8080 -data ./sim-data   # a simulator already running
//
// Without -url it builds mwallet-sim from this module (or runs -sim),
// serves it on a free loopback port with -data (a new temporary directory
// unless given) and -snapshot-every, and stops it at the end (SIGINT: the
// simulator writes its last snapshot). Each client has an API Key of its own
// (POST /_sim/keys, with the scopes of the simulator's own Key), its own
// connections, and its own members (USDT 1,000,000 each); in -mode mix each
// repeats, one at a time, an operation drawn by the -mix weights:
//
//	deposit     POST /v1/deposits, signed, keyed
//	qr          POST /v1/qrpay/payments: step_up_required, the end user
//	            completes the challenge (POST /_sim/step-up/{id}/complete),
//	            the payment is resent with it, the acquirer completes the
//	            order (POST /_sim/qrpay/orders/{id}/complete)
//	remittance  POST /v1/remittances (GBP)
//	topup       POST /v1/cards/{id}/topups on the client's card, credited
//	            by the issuer (POST /_sim/cards/topups/{id}/credit)
//	read        the member, the last deposit, QR payment or remittance, the
//	            first page of remittances, or the assets
//
// -mode peak sends deposits only: the simulator's peak rate of signed
// writes. -rate caps the operations per second over all clients. When
// -duration has passed the measurement ends; each client then finishes the
// operation it is in, unmeasured, and the audit follows.
//
// Every -interval it prints a line: business requests and signed writes
// answered 2xx per second, latency percentiles, the longest stall, requests
// slower than -slow, snapshots so far, the nonce and idempotency store sizes
// (GET /_sim/stats), the clock lag and Date header lag, the SDK's clock-skew
// log lines so far, refusals, 5xx answers, the load average. At the end, a
// summary and, with -md, a Markdown table row (BENCHMARKS.md).
//
// Definitions:
//
//   - A request's latency runs from the call of the transport to the end of
//     its answer's body, on the client.
//   - A stall is a span during which at least one of the tool's requests was
//     outstanding and none completed: each completion ends one, begun at the
//     later of the previous completion and the moment the number of
//     outstanding requests last went from zero to one. The longest stall
//     and the count and total of the stalls of -slow or more are reported;
//     so are the requests slower than -slow.
//   - A snapshot is seen by its files in the data directory: the simulator
//     encodes the state holding its state lock, then writes
//     DIR/snapshot.tmp and renames it to DIR/snapshot. A stall ended at a
//     snapshot when the encoding ended (snapshot.tmp first seen, else the
//     new snapshot's modification time) within it or up to 0.5 s after it.
//     With -url, -data names the simulator's directory to watch.
//   - The clock lag is the host time half-way through GET /_sim/clock minus
//     the simulator's reading (whole seconds): a clock in step reads 0 to
//     1 s. The Date lag is the same for every business answer's Date header.
//   - Store fill is GET /_sim/stats's nonces and idempotency_records against
//     -nonce-cap and -idem-cap (the caps the simulator documents).
//   - The audit resends every write whose outcome stayed unknown, with its
//     key, until it is answered; reads back every answered write (its id and
//     amount); checks each member's available USDT against its setup balance
//     and its answered writes; and checks GET /_sim/ledger and GET
//     /_sim/invariants.
//
// -control-reads makes whole-state control reads under load (digest,
// recording, ledger, state: GET /_sim/NAME, one every -control-every, in
// turn) and reports how long each took and the stalls around them.
// -quit-on-stall D sends SIGQUIT to the simulator the tool started as soon
// as a stall has lasted D, so its log holds every goroutine's stack in the
// middle of the stall, and ends the run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errAuditFailed):
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

var errAuditFailed = errors.New("the audit failed")

// config is the command line.
type config struct {
	url, sim, data, token string
	snapshotEvery         int
	simArgs               []string
	clients, members      int
	duration, interval    time.Duration
	mode, mix             string
	weights               [numOps]int
	rate                  float64
	slow                  time.Duration
	clockEvery            time.Duration
	statsEvery            time.Duration
	controlReads          []string
	controlEvery          time.Duration
	audit                 bool
	md                    bool
	quitOnStall           time.Duration
	nonceCap, idemCap     int64
	keep                  bool
}

// stringsFlag is a repeatable flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, " ") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./bench/load [flags]   (see go doc ./bench/load)")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.url, "url", "", "attach to the simulator at this URL instead of starting one")
	fs.StringVar(&c.sim, "sim", "", "the mwallet-sim binary to start (default: built from this module)")
	fs.StringVar(&c.data, "data", "", "the data directory: of the simulator started (default: a new temporary one), or, with -url, of the simulator attached to, to watch its snapshots")
	fs.StringVar(&c.token, "control-token", os.Getenv("MWALLET_SIM_CONTROL_TOKEN"), "the simulator's control token, if it has one (default $MWALLET_SIM_CONTROL_TOKEN)")
	fs.IntVar(&c.snapshotEvery, "snapshot-every", -1, "-snapshot-every of the simulator started (default: the simulator's default)")
	fs.Var((*stringsFlag)(&c.simArgs), "sim-arg", "one more argument of the simulator started (repeatable)")
	fs.IntVar(&c.clients, "clients", 32, "concurrent SDK clients, each with its own Key and connections")
	fs.IntVar(&c.members, "members", 4, "members per client")
	fs.DurationVar(&c.duration, "duration", time.Minute, "how long the clients run")
	fs.DurationVar(&c.interval, "interval", 10*time.Second, "how often a line is printed")
	fs.StringVar(&c.mode, "mode", "mix", "mix (the -mix operations) or peak (deposits only)")
	fs.StringVar(&c.mix, "mix", "deposit=3,qr=1,remittance=1,topup=1,read=4", "the operations' weights in -mode mix")
	fs.Float64Var(&c.rate, "rate", 0, "operations per second over all clients (0: each client sends its next as soon as the last is answered)")
	fs.DurationVar(&c.slow, "slow", 400*time.Millisecond, "requests slower than this, and stalls this long, are counted")
	fs.DurationVar(&c.clockEvery, "clock-every", 250*time.Millisecond, "how often GET /_sim/clock is sampled")
	fs.DurationVar(&c.statsEvery, "stats-every", time.Second, "how often GET /_sim/stats is sampled")
	var reads string
	fs.StringVar(&reads, "control-reads", "", "whole-state control reads to make under load, in turn: any of digest, recording, ledger, state")
	fs.DurationVar(&c.controlEvery, "control-every", 15*time.Second, "how often a -control-reads read is made")
	fs.BoolVar(&c.audit, "audit", true, "audit every answered write at the end")
	fs.BoolVar(&c.md, "md", false, "print the run as a Markdown table row, with its header")
	fs.DurationVar(&c.quitOnStall, "quit-on-stall", 0, "send SIGQUIT to the simulator started once a stall lasts this long (its goroutine dump goes to its log), and end the run")
	fs.Int64Var(&c.nonceCap, "nonce-cap", 0, "the nonce store's cap, to print its fill against (default: nonces_cap of GET /_sim/stats)")
	fs.Int64Var(&c.idemCap, "idem-cap", 0, "the idempotency store's cap, to print its fill against (default: idempotency_records_cap of GET /_sim/stats)")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (the data directory and the simulator's log)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case c.clients < 1:
		return nil, errors.New("-clients must be at least 1")
	case c.members < 1:
		return nil, errors.New("-members must be at least 1")
	case c.duration <= 0 || c.interval <= 0:
		return nil, errors.New("-duration and -interval must be positive")
	case c.mode != "mix" && c.mode != "peak":
		return nil, fmt.Errorf("-mode %q: want mix or peak", c.mode)
	case c.url != "" && (c.sim != "" || c.snapshotEvery >= 0 || len(c.simArgs) > 0 || c.quitOnStall > 0):
		return nil, errors.New("-sim, -snapshot-every, -sim-arg and -quit-on-stall are for a simulator the tool starts, not with -url")
	}
	w, err := parseMix(c.mix)
	if err != nil {
		return nil, err
	}
	c.weights = w
	for r := range strings.SplitSeq(reads, ",") {
		switch r = strings.TrimSpace(r); r {
		case "":
		case "digest", "recording", "ledger", "state":
			c.controlReads = append(c.controlReads, "/_sim/"+r)
		default:
			return nil, fmt.Errorf("-control-reads: %q is not one of digest, recording, ledger, state", r)
		}
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	p := func(format string, args ...any) { fmt.Fprintf(stdout, format+"\n", args...) }
	rec := newRecorder(cfg.slow)
	monitorHTTP := newHTTPClient(rec, 4)

	base := strings.TrimSuffix(cfg.url, "/")
	var sim *simProcess
	if base == "" {
		work, err := os.MkdirTemp("", "mwallet-load-")
		if err != nil {
			return err
		}
		if cfg.keep {
			defer p("kept %s", work)
		} else {
			defer os.RemoveAll(work)
		}
		bin := cfg.sim
		if bin == "" {
			p("building mwallet-sim from this module")
			if bin, err = buildSim(ctx, work); err != nil {
				return err
			}
		}
		if cfg.data == "" {
			cfg.data = filepath.Join(work, "data")
		}
		args := []string{"-data", cfg.data}
		if cfg.snapshotEvery >= 0 {
			args = append(args, "-snapshot-every", fmt.Sprint(cfg.snapshotEvery))
		}
		if cfg.token != "" {
			args = append(args, "-control-token", cfg.token)
		}
		args = append(args, cfg.simArgs...)
		if sim, err = startSim(ctx, bin, filepath.Join(work, "mwallet-sim.log"), args); err != nil {
			return err
		}
		defer func() {
			if err := sim.stop(2 * time.Minute); err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "load: stopping mwallet-sim: %v\n", err)
			}
		}()
		base = sim.url
		p("mwallet-sim %s serving %s with -data %s (its output: %s)", strings.Join(args, " "), base, cfg.data, sim.logPath)
	}
	ctl := &controlClient{base: base, token: cfg.token, hc: monitorHTTP}

	logs := newLogCounter()
	runID := uuid.NewString()[:6]
	setupStart := time.Now()
	w, err := setup(ctx, setupConfig{
		base: base, token: cfg.token, clients: cfg.clients, members: cfg.members, weights: cfg.weights,
		peak: cfg.mode == "peak", rate: cfg.rate, runID: runID, rec: rec, logs: logs, ctl: ctl, setupConcurrent: 16,
	})
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	mode := cfg.mode
	if mode == "mix" {
		mode = "mix " + cfg.mix
	}
	if cfg.rate > 0 {
		mode += fmt.Sprintf(" at %g ops/s", cfg.rate)
	}
	p("run %s: %d clients (%d members each), %s, for %s; setup took %s", runID, cfg.clients, cfg.members, mode, cfg.duration, time.Since(setupStart).Round(time.Millisecond))

	mon := &monitor{ctl: ctl, dataDir: cfg.data, clockEvery: cfg.clockEvery, statsEvery: cfg.statsEvery,
		readPaths: cfg.controlReads, readEvery: cfg.controlEvery}
	s := &summary{Clients: cfg.clients, Mode: rowMode(cfg), SlowThreshold: cfg.slow, NonceCap: cfg.nonceCap, IdemCap: cfg.idemCap}
	if l, ok := loadAverage(); ok {
		s.HaveLoad, s.LoadStart, s.LoadMin, s.LoadMax = true, l, l, l
	}
	cpu0, simCPU0 := toolCPU(), simCPU(sim)

	runCtx, cancelRun := context.WithTimeout(ctx, cfg.duration)
	defer cancelRun()
	monCtx, stopMon := context.WithCancel(context.Background())
	rec.start()
	mon.start(monCtx)
	var quitStall interval
	var quitWG sync.WaitGroup
	if cfg.quitOnStall > 0 {
		quitWG.Add(1)
		go func() {
			defer quitWG.Done()
			quitStall = watchStall(runCtx, rec, cfg.quitOnStall, func() { sim.quit(); cancelRun() })
		}()
	}
	done := make(chan struct{})
	go func() {
		w.runClients(runCtx)
		close(done)
	}()

	p("%s", intervalHeader)
	start := time.Now()
	tick := time.NewTicker(cfg.interval)
	defer tick.Stop()
	lastRefused := 0
	line := func(win *window) {
		_, largest, lags := mon.take()
		warn, info := skewLines(logs.snapshot())
		refused := 0
		for _, v := range w.stats.refusalsByCode() {
			refused += v
		}
		l := intervalLine{Elapsed: time.Since(start), W: win, Snapshots: mon.snapshotCount(),
			Nonces: largest[statNonces], Idem: largest[statIdem], SkewW: warn, SkewI: info, Refused: refused - lastRefused}
		lastRefused = refused
		if len(lags) > 0 {
			l.HaveLag, l.Lag = true, distributionOf(lags).Max
		}
		l.DateLag = distributionOf(append([]time.Duration(nil), win.DateLag...)).Max
		if load, ok := loadAverage(); ok {
			l.HaveL, l.Load = true, load
			s.LoadMin, s.LoadMax = min(s.LoadMin, load), max(s.LoadMax, load)
		}
		p("%s", l)
	}
loop:
	for {
		select {
		case <-runCtx.Done():
			break loop
		case <-tick.C:
			line(rec.roll())
		}
	}
	// The measured run ends here; a stall still running is its last.
	last, unfinished := rec.stop()
	s.Measured = time.Since(start)
	s.ToolCPU = toolCPU() - cpu0
	if c := simCPU(sim); c > 0 {
		s.HaveSimCPU, s.SimCPU = true, c-simCPU0
	}
	if last.seconds() >= 0.5 {
		line(last)
	}
	// The clients finish the operations they are in, unmeasured. The
	// snapshot watcher looks on a little longer, to see the end of a
	// snapshot that a stall still running at the end was waiting for.
	<-done
	time.Sleep(snapshotSlack)
	stopMon()
	mon.wait()
	quitWG.Wait()
	if l, ok := loadAverage(); ok {
		s.LoadEnd = l
	}

	ws := rec.allWindows()
	s.combine(ws)
	stalls, longest := rec.stalls()
	s.Longest, s.Unfinished = longest, unfinished
	if unfinished.Len() > 0 {
		stalls = append(stalls, unfinished)
		if unfinished.Len() > s.Longest.Len() {
			s.Longest = unfinished
		}
	}
	s.Over = summarize(stalls, cfg.slow)
	fill, lags, snaps, reads, monErrs := mon.results()
	s.Snapshots, s.Reads = snaps, reads
	s.Attribution = attribute(stalls, cfg.slow, snaps, reads)
	for _, f := range fill {
		s.NoncesMax = max(s.NoncesMax, f.Stats[statNonces])
		s.IdemMax = max(s.IdemMax, f.Stats[statIdem])
		// The simulator's own caps, when no flag gave them.
		if cfg.nonceCap == 0 {
			s.NonceCap = max(s.NonceCap, f.Stats[statNonces+"_cap"])
		}
		if cfg.idemCap == 0 {
			s.IdemCap = max(s.IdemCap, f.Stats[statIdem+"_cap"])
		}
	}
	s.ClockLag = distributionOf(lags)
	for _, l := range lags {
		if l >= 2*time.Second {
			s.LagOver++
		}
	}
	var dateLags []time.Duration
	for _, win := range ws {
		dateLags = append(dateLags, win.DateLag...)
	}
	s.DateLag = distributionOf(dateLags)
	s.LogLines = logs.snapshot()
	s.SkewW, s.SkewI = skewLines(s.LogLines)
	w.stats.mu.Lock()
	s.Refusals, s.ControlFailure, s.StepUps, s.Start = w.stats.refusals, w.stats.controls, w.stats.stepUps, start
	for _, r := range w.stats.reasons {
		s.Reasons = append(s.Reasons, *r)
	}
	slices.SortFunc(s.Reasons, func(a, b reason) int { return a.First.Compare(b.First) })
	for _, n := range w.stats.unknown {
		s.Unknown += n
	}
	w.stats.mu.Unlock()
	if len(monErrs) > 0 {
		p("sampling failed: %s", countsText(monErrs))
	}

	switch {
	case quitStall.Len() > 0:
		p("SIGQUIT sent to mwallet-sim %s into a stall that began at %s; its goroutines are in %s (no audit: the simulator is gone)",
			ms(quitStall.Len()), quitStall.From.Format("15:04:05.000"), sim.logPath)
	case ctx.Err() != nil:
		p("interrupted: no audit")
	case cfg.audit:
		p("auditing %d answered writes and %d calls with an unknown outcome", s.WritesOK, s.Unknown)
		s.Audit = audit(context.Background(), w)
	}
	s.text(stdout)
	if cfg.md {
		p("")
		p("%s", markdownHeader(cfg.slow))
		p("%s", s.markdown())
	}
	if s.Audit != nil && !s.Audit.ok() {
		return errAuditFailed
	}
	return nil
}

// rowMode names the mode in the Markdown row: mix or peak, and the rate.
func rowMode(cfg *config) string {
	if cfg.rate > 0 {
		return fmt.Sprintf("%s at %g ops/s", cfg.mode, cfg.rate)
	}
	return cfg.mode
}

// watchStall calls quit once a stall has lasted d, and returns it; it
// returns the zero interval when ctx ends first.
func watchStall(ctx context.Context, rec *recorder, d time.Duration, quit func()) interval {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return interval{}
		case <-t.C:
			if s := rec.current(); s.Len() >= d {
				quit()
				return s
			}
		}
	}
}

func toolCPU() time.Duration {
	c, _ := procCPU(os.Getpid())
	return c
}

func simCPU(sim *simProcess) time.Duration {
	if sim == nil {
		return 0
	}
	c, _ := procCPU(sim.pid())
	return c
}
