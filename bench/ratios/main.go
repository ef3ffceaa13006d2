// Command ratios reads `go test -bench -benchmem` output and prints the
// performance targets of the SDK and the simulator: each one a ratio of our
// benchmark to its bare baseline (or an absolute bound), the measured
// figure, and whether the target is met.
//
// Both sides of a ratio must come from the same `go test` invocation. The
// output may hold several invocations one after the other (bench/run.sh runs
// rounds of -count 1 and appends them): the k-th sample of a benchmark is
// paired with the k-th sample of its baseline, a ratio is computed for each
// pair, and the median of those ratios is reported with their range.
//
// Usage:
//
//	go run ./bench/ratios [-md] [-strict] bench.txt...
//
// With no file it reads standard input. -md prints a Markdown table; -strict
// exits with status 1 when a target is not met or has no samples.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

const module = "github.com/mwallet/mwallet-go"

// sample is one result line.
type sample struct {
	ns, bytes, allocs float64
}

// samples holds every result by "pkg/Benchmark/sub" name, in input order.
type samples map[string][]sample

// kind is how a target compares its figures.
type kind int

const (
	timeRatioMax  kind = iota // ours ns / base ns <= limit
	allocRatioMax             // ours allocs / base allocs <= limit
	throughputMin             // base ns / ours ns (requests per second ratio) >= limit
	nsMax                     // ours ns <= limit
	allocsMax                 // ours allocs <= limit
)

type target struct {
	label      string
	ours, base string // benchmark names; base is empty for absolute bounds
	kind       kind
	limit      float64
}

// targets are the targets, in the order BENCHMARKS.md lists them.
var targets = []target{
	{"Signed idempotent POST via Client vs bare net/http: time", "root/BenchmarkSignedPOST", "root/BenchmarkBareNetHTTPSignedPOST", timeRatioMax, 1.3},
	{"Signed idempotent POST via Client vs bare net/http: allocs", "root/BenchmarkSignedPOST", "root/BenchmarkBareNetHTTPSignedPOST", allocRatioMax, 2},
	{"Signed idempotent POST over HTTP/2 (TLS) via Client vs bare net/http: time", "root/BenchmarkSignedPOSTHTTP2", "root/BenchmarkBareNetHTTPSignedPOSTHTTP2", timeRatioMax, 1.3},
	{"Signed idempotent POST over HTTP/2 (TLS) via Client vs bare net/http: allocs", "root/BenchmarkSignedPOSTHTTP2", "root/BenchmarkBareNetHTTPSignedPOSTHTTP2", allocRatioMax, 2},
	{"Sign 1 KiB body vs bare SHA-256 + HMAC-SHA-256: time", "root/BenchmarkSign1KiB", "root/BenchmarkBareHMAC1KiB", timeRatioMax, 1.2},
	{"Sign 1 KiB body: allocs (the output string only)", "root/BenchmarkSign1KiB", "", allocsMax, 1},
	{"Signed idempotent POST with the OpenTelemetry Observer vs without: time", "otel/BenchmarkSignedPOSTOTelObserver", "otel/BenchmarkSignedPOSTNoObserver", timeRatioMax, 2},
	{"Signed idempotent POST with the OpenTelemetry Observer vs without: allocs", "otel/BenchmarkSignedPOSTOTelObserver", "otel/BenchmarkSignedPOSTNoObserver", allocRatioMax, 2},
	{"Same, in memory (no network): time", "otel/BenchmarkSignedPOSTInMemoryOTelObserver", "otel/BenchmarkSignedPOSTInMemoryNoObserver", timeRatioMax, 2},
	{"Same, in memory (no network): allocs", "otel/BenchmarkSignedPOSTInMemoryOTelObserver", "otel/BenchmarkSignedPOSTInMemoryNoObserver", allocRatioMax, 2},
	{"webhooks.Verify 1 KiB vs bare HMAC-SHA-256: time", "webhooks/BenchmarkVerify1KiB", "webhooks/BenchmarkBareHMAC1KiB", timeRatioMax, 1.2},
	{"webhooks.Verify 64 KiB vs bare HMAC-SHA-256: time", "webhooks/BenchmarkVerify64KiB", "webhooks/BenchmarkBareHMAC64KiB", timeRatioMax, 1.2},
	{"money.Parse 11 digits vs strconv int64 parser: time", "money/BenchmarkParse", "money/BenchmarkParseStrconvBaseline", timeRatioMax, 1.5},
	{"money.Parse 11 digits: allocs", "money/BenchmarkParse", "", allocsMax, 0},
	{"money.Parse 18 digits vs strconv int64 parser: time", "money/BenchmarkParse18Digits", "money/BenchmarkParseStrconvBaseline18Digits", timeRatioMax, 1.5},
	{"money.Parse 18 digits: allocs", "money/BenchmarkParse18Digits", "", allocsMax, 0},
	{"Amount.Append into the caller's buffer: allocs", "money/BenchmarkAppend", "", allocsMax, 0},
	{"Amount.Append 18 decimals: allocs", "money/BenchmarkAppendBig", "", allocsMax, 0},
	{"Simulator GET /v1/assets: req/s vs bare handler", "simulator/BenchmarkAssets/simulator", "simulator/BenchmarkAssets/bare", throughputMin, 0.5},
	{"Simulator signed idempotent write: req/s vs bare handler", "simulator/BenchmarkSignedWrite/simulator", "simulator/BenchmarkSignedWrite/bare", throughputMin, 0.25},
	{"Simulator persisted signed deposits, 8 clients: req/s vs in memory", "simulator/BenchmarkConcurrentSignedDeposits/data", "simulator/BenchmarkConcurrentSignedDeposits/memory", throughputMin, 0.5},
	{"simulator.New + Close: ns", "simulator/BenchmarkNewClose", "", nsMax, 2e6},
	{"Card transactions, 100k: last page / first page", "simulator/BenchmarkCardTransactionsPage/last", "simulator/BenchmarkCardTransactionsPage/first", timeRatioMax, 1.2},
	{"Card transactions: first page 100k / first page 1k", "simulator/BenchmarkCardTransactionsPage/first", "simulator/BenchmarkCardTransactionsPage/first-1k", timeRatioMax, 1.2},
	{"Remittances, 100k: last page / first page", "simulator/BenchmarkRemittancesPage/last", "simulator/BenchmarkRemittancesPage/first", timeRatioMax, 1.2},
	{"Remittances: first page 100k / first page 1k", "simulator/BenchmarkRemittancesPage/first", "simulator/BenchmarkRemittancesPage/first-1k", timeRatioMax, 1.2},
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads benchmark result lines, naming each by its package (relative
// to the module, "root" for the module itself) and benchmark.
func parse(r io.Reader, into samples) error {
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(p), module), "/")
			if pkg == "" {
				pkg = "root"
			}
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue // a benchmark's own log line
		}
		var s sample
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				s.ns = v
			case "B/op":
				s.bytes = v
			case "allocs/op":
				s.allocs = v
			}
		}
		name := pkg + "/" + procSuffix.ReplaceAllString(f[0], "")
		into[name] = append(into[name], s)
	}
	return sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// result is one evaluated target.
type result struct {
	target
	ours, base float64 // medians of the figure compared (ns or allocs)
	value      float64 // median ratio, or the absolute median
	lo, hi     float64 // range of the per-round ratios
	n          int     // rounds
	met, ok    bool    // ok is false without samples
}

func (t target) figure(s sample) float64 {
	if t.kind == allocRatioMax || t.kind == allocsMax {
		return s.allocs
	}
	return s.ns
}

func evaluate(t target, all samples) result {
	r := result{target: t}
	ours := all[t.ours]
	if len(ours) == 0 {
		return r
	}
	var of []float64
	for _, s := range ours {
		of = append(of, t.figure(s))
	}
	r.ours = median(of)
	if t.base == "" {
		r.value, r.n, r.ok = r.ours, len(of), true
		r.lo, r.hi = slices.Min(of), slices.Max(of)
		r.met = r.value <= t.limit
		return r
	}
	base := all[t.base]
	n := min(len(ours), len(base))
	if n == 0 {
		return r
	}
	var bf, ratios []float64
	for i := 0; i < n; i++ {
		o, b := t.figure(ours[i]), t.figure(base[i])
		bf = append(bf, b)
		var q float64
		switch {
		case t.kind == throughputMin && o > 0:
			q = b / o
		case t.kind != throughputMin && b > 0:
			q = o / b
		case o == b:
			q = 1 // 0 allocations on both sides
		default:
			q = o // 0 allocations in the baseline: the count itself
		}
		ratios = append(ratios, q)
	}
	r.base = median(bf)
	r.value, r.n, r.ok = median(ratios), n, true
	r.lo, r.hi = slices.Min(ratios), slices.Max(ratios)
	if t.kind == throughputMin {
		r.met = r.value >= t.limit
	} else {
		r.met = r.value <= t.limit
	}
	return r
}

func (r result) limitText() string {
	switch r.kind {
	case throughputMin:
		return fmt.Sprintf(">= %.2f", r.limit)
	case nsMax:
		return "<= " + dur(r.limit)
	case allocsMax:
		return fmt.Sprintf("<= %g allocs/op", r.limit)
	}
	return fmt.Sprintf("<= %.2fx", r.limit)
}

func (r result) valueText() string {
	switch r.kind {
	case nsMax:
		return dur(r.value)
	case allocsMax:
		return fmt.Sprintf("%g allocs/op", r.value)
	}
	return fmt.Sprintf("%.2fx", r.value)
}

func (r result) rangeText() string {
	switch r.kind {
	case nsMax:
		return dur(r.lo) + " .. " + dur(r.hi)
	case allocsMax:
		return fmt.Sprintf("%g .. %g", r.lo, r.hi)
	}
	return fmt.Sprintf("%.2f .. %.2f", r.lo, r.hi)
}

func (r result) sidesText() string {
	unit := func(v float64) string {
		if r.kind == allocRatioMax || r.kind == allocsMax {
			return fmt.Sprintf("%g allocs/op", v)
		}
		return dur(v)
	}
	if r.base == 0 && r.kind != allocRatioMax {
		return unit(r.ours)
	}
	return unit(r.ours) + " / " + unit(r.base)
}

func (r result) verdict() string {
	switch {
	case !r.ok:
		return "no samples"
	case r.met:
		return "met"
	}
	return "NOT MET"
}

// dur prints nanoseconds with a readable unit.
func dur(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f ns", ns)
}

func main() {
	md := flag.Bool("md", false, "print a Markdown table")
	strict := flag.Bool("strict", false, "exit with status 1 when a target is not met or has no samples")
	flag.Parse()
	all := samples{}
	if flag.NArg() == 0 {
		if err := parse(os.Stdin, all); err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(2)
		}
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(2)
		}
		err = parse(f, all)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratios:", err)
			os.Exit(2)
		}
	}
	failed := false
	var rows []result
	for _, t := range targets {
		r := evaluate(t, all)
		failed = failed || !r.met
		rows = append(rows, r)
	}
	if *md {
		fmt.Println("| Target | Ours / baseline (medians) | Measured | Range over rounds | Rounds | Limit | Result |")
		fmt.Println("|---|---|---|---|---|---|---|")
		for _, r := range rows {
			if !r.ok {
				fmt.Printf("| %s | | | | 0 | %s | no samples |\n", r.label, r.limitText())
				continue
			}
			fmt.Printf("| %s | %s | **%s** | %s | %d | %s | %s |\n", r.label, r.sidesText(), r.valueText(), r.rangeText(), r.n, r.limitText(), r.verdict())
		}
	} else {
		w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "TARGET\tOURS / BASELINE\tMEASURED\tRANGE\tROUNDS\tLIMIT\tRESULT")
		for _, r := range rows {
			if !r.ok {
				fmt.Fprintf(w, "%s\t\t\t\t0\t%s\tno samples\n", r.label, r.limitText())
				continue
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.label, r.sidesText(), r.valueText(), r.rangeText(), r.n, r.limitText(), r.verdict())
		}
		w.Flush()
	}
	if *strict && failed {
		os.Exit(1)
	}
}
