package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// The stores /_sim/stats sizes, with their caps.
const (
	statNonces = "nonces"
	statIdem   = "idempotency_records"
)

// intervalHeader heads the lines printed at every interval.
const intervalHeader = "elapsed   req/s writes/s     p50     p99     max   stall  slow snaps  nonces    idem  lag  date skew w/i refused  5xx  load"

// intervalLine is one line of the running report.
type intervalLine struct {
	Elapsed        time.Duration
	W              *window
	Snapshots      int
	Nonces, Idem   int64
	Lag            time.Duration // largest clock lag sampled in the window
	DateLag        time.Duration // largest Date header lag in the window
	SkewW, SkewI   int           // SDK skew lines so far
	Refused        int           // refusals in the window
	Load           float64
	HaveLag, HaveL bool
}

func (l intervalLine) String() string {
	d := distributionOf(append([]time.Duration(nil), l.W.Latency...))
	secs := l.W.seconds()
	lag, load := "   -", "   -"
	if l.HaveLag {
		lag = fmt.Sprintf("%4.1f", l.Lag.Seconds())
	}
	if l.HaveL {
		load = fmt.Sprintf("%5.2f", l.Load)
	}
	return fmt.Sprintf("%7s %7.0f %8.0f %7s %7s %7s %7s %5d %5d %7d %7d %s %5.1f %4d/%-4d %6d %4d %s",
		l.Elapsed.Round(time.Second), float64(l.W.Requests)/secs, float64(l.W.WritesOK)/secs,
		ms(d.P50), ms(d.P99), ms(d.Max), ms(l.W.Longest.Len()), l.W.Slow, l.Snapshots,
		l.Nonces, l.Idem, lag, l.DateLag.Seconds(), l.SkewW, l.SkewI, l.Refused, l.W.Status5xx, load)
}

// ms prints a duration in milliseconds, or seconds from ten seconds.
func ms(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%dms", d.Round(time.Millisecond)/time.Millisecond)
	default:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
}

// summary is the whole run's figures.
type summary struct {
	Clients  int
	Mode     string
	Measured time.Duration

	Requests, Writes, WritesOK, Control int
	All, WritesDist                     distribution
	Slow, Status5xx, TransportErrors    int

	Longest       interval
	Unfinished    interval // the stall still running when the run ended
	Over          stallSummary
	SlowThreshold time.Duration
	Attribution   attribution

	Snapshots []snapshotEvent

	NoncesMax, IdemMax int64
	NonceCap, IdemCap  int64

	ClockLag distribution // GET /_sim/clock
	LagOver  int          // samples of 2 s or more
	DateLag  distribution // every business answer's Date header

	SkewW, SkewI int
	LogLines     map[logLine]int

	Refusals       map[string]int // "kind code"
	Reasons        []reason       // in the order they were first given
	Start          time.Time      // of the measured run
	Unknown        int
	StepUps        int
	ControlFailure map[string]int

	Reads []controlRead

	LoadMin, LoadMax, LoadStart, LoadEnd float64
	HaveLoad                             bool
	ToolCPU, SimCPU                      time.Duration
	HaveSimCPU                           bool

	Audit *auditResult
}

// combine adds up the windows of the run.
func (s *summary) combine(ws []*window) {
	var all, writes []time.Duration
	for _, w := range ws {
		s.Requests += w.Requests
		s.Writes += w.Writes
		s.WritesOK += w.WritesOK
		s.Control += w.Control
		s.Slow += w.Slow
		s.Status5xx += w.Status5xx
		s.TransportErrors += w.TransportErrors
		all = append(all, w.Latency...)
		writes = append(writes, w.WriteLatency...)
	}
	s.All, s.WritesDist = distributionOf(all), distributionOf(writes)
}

func (s *summary) perSecond(n int) float64 { return float64(n) / s.Measured.Seconds() }

func (s *summary) stalledShare() float64 {
	return float64(s.Over.Total) / float64(s.Measured) * 100
}

// text prints the summary for people.
func (s *summary) text(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("")
	p("%d clients, %s, %s measured", s.Clients, s.Mode, s.Measured.Round(time.Second))
	p("throughput   %.1f business requests/s (%d), %.1f signed writes/s answered 2xx (%d of %d), %.1f control requests/s",
		s.perSecond(s.Requests), s.Requests, s.perSecond(s.WritesOK), s.WritesOK, s.Writes, s.perSecond(s.Control))
	p("latency      business requests p50 %s p90 %s p99 %s max %s; signed writes p50 %s p90 %s p99 %s max %s; %d requests over %s",
		ms(s.All.P50), ms(s.All.P90), ms(s.All.P99), ms(s.All.Max),
		ms(s.WritesDist.P50), ms(s.WritesDist.P90), ms(s.WritesDist.P99), ms(s.WritesDist.Max), s.Slow, ms(s.SlowThreshold))
	longest := "none"
	if s.Longest.Len() > 0 {
		longest = fmt.Sprintf("%s (%s to %s)", ms(s.Longest.Len()), s.Longest.From.Format("15:04:05.000"), s.Longest.To.Format("15:04:05.000"))
	}
	p("stalls       longest %s; %d of %s or more, %s in all (%.1f%% of the run): %d ended at a snapshot (longest %s), %d overlapped a control read (longest %s), %d other (longest %s)",
		longest, s.Over.Count, ms(s.SlowThreshold), ms(s.Over.Total), s.stalledShare(),
		s.Attribution.AtSnapshot, ms(s.Attribution.LongestAtSnapshot), s.Attribution.AtControlRead, ms(s.Attribution.LongestAtControlRead),
		s.Attribution.Other, ms(s.Attribution.LongestOther))
	if s.Unfinished.Len() > 0 {
		p("             a stall of %s was still running when the run ended", ms(s.Unfinished.Len()))
	}
	p("snapshots    %s", s.snapshotText())
	p("stores       nonces: largest %d of %d (%.0f%%); idempotency records: largest %d of %d (%.0f%%)",
		s.NoncesMax, s.NonceCap, pct(s.NoncesMax, s.NonceCap), s.IdemMax, s.IdemCap, pct(s.IdemMax, s.IdemCap))
	p("clock        lag behind the host (GET /_sim/clock, whole seconds: 0 to 1 s is in step) p50 %.1fs p99 %.1fs max %.1fs, %d of %d samples 2 s or more; Date header lag p50 %.1fs p99 %.1fs max %.1fs",
		s.ClockLag.P50.Seconds(), s.ClockLag.P99.Seconds(), s.ClockLag.Max.Seconds(), s.LagOver, s.ClockLag.N,
		s.DateLag.P50.Seconds(), s.DateLag.P99.Seconds(), s.DateLag.Max.Seconds())
	p("SDK log      %d clock-skew warnings (\"the clock differs from the service's Date\"), %d \"agrees again\" lines; %s",
		s.SkewW, s.SkewI, s.otherLogs())
	p("refusals     %s; %d calls with an unknown outcome; %d step-ups asked and completed", countsText(s.Refusals), s.Unknown, s.StepUps)
	for _, r := range s.Reasons {
		p("             %s x%d, from %s to %s: %q", r.Code, r.Count, r.First.Sub(s.Start).Round(time.Second), r.Last.Sub(s.Start).Round(time.Second), r.Example)
	}
	p("errors       %d answers 5xx, %d requests without an answer; control calls of the workload that failed: %s", s.Status5xx, s.TransportErrors, countsText(s.ControlFailure))
	for _, line := range s.readsText() {
		p("control read %s", line)
	}
	if s.HaveLoad {
		p("load         1-minute load average %.2f at the start, %.2f at the end, %.2f to %.2f during the run", s.LoadStart, s.LoadEnd, s.LoadMin, s.LoadMax)
	}
	cpu := fmt.Sprintf("the tool %s", s.ToolCPU.Round(time.Second))
	if s.HaveSimCPU {
		cpu += fmt.Sprintf(", the simulator %s", s.SimCPU.Round(time.Second))
	}
	p("cpu          %s (over %s of wall time)", cpu, s.Measured.Round(time.Second))
	if a := s.Audit; a != nil {
		verdict := "FAILED"
		if a.ok() {
			verdict = "ok"
		}
		p("audit        %s: %d answered writes read back (%d wrong or missing), %d resent after an unknown outcome (%d unresolved), %d members' balances (%d wrong), ledger balanced %v, invariants hold %v (%s)",
			verdict, a.Writes, a.Bad, a.Resent, a.Unresolved, a.Members, a.BadBalances, a.Ledger, a.Invariants, a.Took.Round(time.Second))
		for _, pr := range a.Problems {
			p("             %s", pr)
		}
	}
}

func pct(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of) * 100
}

func (s *summary) snapshotText() string {
	if len(s.Snapshots) == 0 {
		return "none seen"
	}
	var seqs []string
	for _, e := range s.Snapshots {
		seqs = append(seqs, fmt.Sprint(e.Seq))
	}
	last := s.Snapshots[len(s.Snapshots)-1]
	return fmt.Sprintf("%d, after inputs %s; the last %.1f MB", len(s.Snapshots), strings.Join(seqs, ", "), float64(last.Size)/1e6)
}

func (s *summary) otherLogs() string {
	other := map[string]int{}
	for k, v := range s.LogLines {
		if strings.HasPrefix(k.Msg, skewWarnPrefix) || strings.HasPrefix(k.Msg, skewInfoPrefix) {
			continue
		}
		other[k.Level.String()+" "+k.Msg] += v
	}
	if len(other) == 0 {
		return "no other line at info level or above"
	}
	return "other lines: " + countsText(other)
}

func (s *summary) readsText() []string {
	byPath := map[string][]controlRead{}
	var order []string
	for _, r := range s.Reads {
		if byPath[r.Path] == nil {
			order = append(order, r.Path)
		}
		byPath[r.Path] = append(byPath[r.Path], r)
	}
	var out []string
	for _, path := range order {
		rs := byPath[path]
		var took []time.Duration
		var bytes int64
		errs := 0
		for _, r := range rs {
			took = append(took, r.Span.Len())
			bytes = max(bytes, r.Bytes)
			if r.Err != nil {
				errs++
			}
		}
		d := distributionOf(took)
		out = append(out, fmt.Sprintf("GET %s x%d: took p50 %s max %s, up to %.1f MB, %d failed", path, len(rs), ms(d.P50), ms(d.Max), float64(bytes)/1e6, errs))
	}
	return out
}

// countsText prints counts as "name n, name n" in name order.
func countsText(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// markdownHeader heads the table the rows of markdown make.
func markdownHeader(slow time.Duration) string {
	return "| clients | mode | minutes | req/s | writes/s | p50 | p99 | max | longest stall | stalls ≥ " + ms(slow) +
		" (at a snapshot) | time stalled | snapshots | nonces (max) | idempotency (max) | clock lag max | skew lines W/I | refused | 5xx | audit | load |\n" +
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

// markdown prints the run as one row of the table of markdownHeader.
func (s *summary) markdown() string {
	audit := "not run"
	if s.Audit != nil {
		audit = "FAILED"
		if s.Audit.ok() {
			audit = fmt.Sprintf("ok (%d writes)", s.Audit.Writes)
		}
	}
	refused := 0
	for _, v := range s.Refusals {
		refused += v
	}
	load := "-"
	if s.HaveLoad {
		load = fmt.Sprintf("%.1f to %.1f", s.LoadMin, s.LoadMax)
	}
	minutes := s.Measured.Minutes()
	if math.Abs(minutes-math.Round(minutes)) < 0.05 {
		minutes = math.Round(minutes)
	}
	return fmt.Sprintf("| %d | %s | %g | %.0f | %.0f | %s | %s | %s | %s | %d (%d) | %.0f%% | %d | %d | %d | %.1f s | %d/%d | %d | %d | %s | %s |",
		s.Clients, s.Mode, math.Round(minutes*10)/10, s.perSecond(s.Requests), s.perSecond(s.WritesOK),
		ms(s.All.P50), ms(s.All.P99), ms(s.All.Max), ms(s.Longest.Len()), s.Over.Count, s.Attribution.AtSnapshot,
		s.stalledShare(), len(s.Snapshots), s.NoncesMax, s.IdemMax, s.ClockLag.Max.Seconds(), s.SkewW, s.SkewI,
		refused, s.Status5xx, audit, load)
}
