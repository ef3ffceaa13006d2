// Command walk runs the seeded random walk of package walk against
// mwallet-sim builds and reports what differs and what breaks the OpenAPI
// documents.
//
// Usage (from the repository root or any directory inside it):
//
//	go run ./openapi/validate/cmd/walk [flags]
//
// By default it builds mwallet-sim twice, at the pinned commit (-base,
// extracted with git archive into a temporary directory) and from the
// working tree, and for each seed starts both with the same -seed, -start
// and a manual clock, sends the same walk to both and compares every
// answer byte for byte (status, headers but Date, body; each simulator's
// own base URL read as {base}). Every exchange with the working tree's
// build and every webhook delivery is validated against openapi/mwallet.yaml
// and openapi/mwallet-sim.yaml (kin-openapi). It exits 1 on a difference
// not in the -allow list, on a violation not in -known, on a stale -allow
// entry, or when a simulator's ledger or invariants fail at the end.
//
// -base "" walks the working tree's build alone (validation only).
// -record DIR writes, per seed, the recording of the base build (GET
// /_sim/recording) and its digest; -base-data runs the base build with a
// data directory (-data) so that recording is read from it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mwallet/mwallet-go/openapi/validate"
	"github.com/mwallet/mwallet-go/openapi/validate/walk"
)

func main() {
	var o options
	flag.StringVar(&o.seeds, "seeds", "1,2,3,4", "comma-separated seeds; a range a-b is allowed")
	flag.IntVar(&o.steps, "steps", 5000, "steps per seed")
	flag.StringVar(&o.base, "base", "368c044", "commit whose build the working tree is compared with (empty: no comparison)")
	flag.StringVar(&o.baseBin, "base-bin", "", "use this mwallet-sim binary as the base instead of building -base")
	flag.StringVar(&o.allow, "allow", "", "allowlist of deliberate differences (OPERATION | SUBSTRING | FIX | TEST)")
	flag.StringVar(&o.known, "known", "", "known OpenAPI violations (KEY | SUBSTRING), as validate-exchanges")
	flag.StringVar(&o.start, "start", "2026-01-01T00:00:00Z", "start of both simulators' manual clock")
	flag.StringVar(&o.record, "record", "", "write the base build's recording and digest per seed into this directory")
	flag.BoolVar(&o.replay, "replay", true, "replay the base build's recording of each seed on the working tree's build and compare the state digests")
	flag.BoolVar(&o.baseData, "base-data", false, "run the base build with -data (a temporary directory)")
	flag.BoolVar(&o.probes, "refusal-probes", false, "also send the control writes whose refusal changed the state of builds before the fix (a debit of an ended card, or one the card cannot cover): for a base that refuses them cleanly too (-base-bin of the working tree)")
	flag.IntVar(&o.keep, "keep-diffs", 200, "differences kept per seed, each matched against -allow; a seed with more fails")
	flag.IntVar(&o.parallel, "parallel", 2, "seeds walked at the same time")
	flag.BoolVar(&o.compareDate, "compare-date", false, "compare the Date header too (when both builds stamp it with the simulator clock)")
	flag.IntVar(&o.show, "show", 3, "differences printed in full per group")
	flag.BoolVar(&o.verbose, "v", false, "print every request")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write the walk's CPU profile to this file")
	flag.Parse()
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "walk:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(o); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "walk:", err)
		os.Exit(1)
	}
}

type options struct {
	seeds, base, baseBin, allow, known, start, record string
	cpuProfile                                        string
	steps, show, parallel, keep                       int
	baseData, verbose, compareDate, replay, probes    bool
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(f), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds: %w", err)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("-seeds: bad range %q", f)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}

func run(o options) error {
	began := time.Now()
	ctx := context.Background()
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return err
	}
	root, err := output("git", "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("not inside the repository: %w", err)
	}
	tmp, err := os.MkdirTemp("", "mwallet-walk-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	cur := filepath.Join(tmp, "mwallet-sim-work")
	fmt.Printf("building mwallet-sim from the working tree %s\n", root)
	if err := build(root, cur); err != nil {
		return err
	}
	bins := []string{cur}
	names := []string{"working tree"}
	switch {
	case o.baseBin != "":
		bins, names = append(bins, o.baseBin), append(names, o.baseBin)
	case o.base != "":
		bin, err := buildCommit(root, o.base, tmp)
		if err != nil {
			return err
		}
		bins, names = append(bins, bin), append(names, "commit "+o.base)
	}
	fmt.Printf("built in %s\n", time.Since(began).Round(time.Millisecond))

	docs, err := validate.Load(ctx)
	if err != nil {
		return err
	}
	var allow *walk.Allowlist
	if o.allow != "" {
		f, err := os.Open(o.allow)
		if err != nil {
			return err
		}
		allow, err = walk.ParseAllowlist(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", o.allow, err)
		}
	}
	var known *validate.Known
	if o.known != "" {
		f, err := os.Open(o.known)
		if err != nil {
			return err
		}
		known, err = validate.ParseKnown(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", o.known, err)
		}
	}

	// Seeds run o.parallel at a time, each with its own checker (a
	// Checker is not safe for concurrent use); results keep seed order.
	results := make([]*walk.Result, len(seeds))
	checkers := make([]*validate.Checker, len(seeds))
	errs := make([]error, len(seeds))
	sem := make(chan struct{}, max(1, o.parallel))
	var wg sync.WaitGroup
	for i, seed := range seeds {
		if checkers[i], err = validate.NewChecker(docs); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], errs[i] = walkSeed(ctx, o, seed, bins, tmp, checkers[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("seed %d: %w", seeds[i], err)
		}
	}
	failed := report(o, names, results, checkers, known, allow)
	fmt.Printf("time: %s\n", time.Since(began).Round(time.Millisecond))
	if failed {
		return fmt.Errorf("the walk found differences, violations or broken books (above)")
	}
	return nil
}

func walkSeed(ctx context.Context, o options, seed uint64, bins []string, tmp string, checker *validate.Checker) (*walk.Result, error) {
	var sims []*sim
	defer func() {
		for _, s := range sims {
			s.stop()
		}
	}()
	for i, bin := range bins {
		args := []string{"serve", "-addr", "127.0.0.1:0", "-clock", "manual", "-start", o.start, "-seed", strconv.FormatUint(seed, 10)}
		if i == 1 && o.baseData {
			dir := filepath.Join(tmp, fmt.Sprintf("data-%d", seed))
			args = append(args, "-data", dir)
		}
		s, err := startSim(bin, args)
		if err != nil {
			return nil, err
		}
		sims = append(sims, s)
	}
	cfg := walk.Config{Seed: seed, Steps: o.steps, Checker: checker, CompareDate: o.compareDate, RefusalProbes: o.probes, KeepDiffs: o.keep}
	for _, s := range sims {
		cfg.Targets = append(cfg.Targets, s.url)
	}
	if o.verbose {
		cfg.Log = os.Stdout
	}
	t0 := time.Now()
	res, err := walk.Run(ctx, cfg)
	if err != nil {
		return res, err
	}
	fmt.Printf("seed %d: %d steps, %d requests per build, %d webhook deliveries, %d differences, %s\n",
		seed, res.Steps, res.Requests, res.Webhooks, res.DiffCount, time.Since(t0).Round(time.Millisecond))
	if len(sims) > 1 && (o.record != "" || o.replay) {
		rec, err := fetchRecording(sims[1].url)
		if err != nil {
			return res, err
		}
		if o.record != "" {
			if err := saveRecording(o.record, seed, rec, o.baseData); err != nil {
				return res, err
			}
		}
		if o.replay {
			problem := replayOn(bins[0], rec, filepath.Join(tmp, fmt.Sprintf("replay-%d.jsonl", seed)))
			res.Books = append(res.Books, problem)
			if problem == "" {
				fmt.Printf("seed %d: the base build's recording (%d bytes) replays on the working tree's build to the digest of its end line\n", seed, len(rec))
			}
		}
	}
	return res, nil
}

// replayOn starts bin from the recording rec (written to file): the
// simulator itself refuses to start when the replay does not reach the
// digest of the recording's end line (a version 1 recording is checked
// against the image as its build encoded it). For a recording of version 2
// or later, whose end line carries the same state digest GET /_sim/digest
// answers, the two are compared here too. "" when the replay holds, else
// what went wrong.
func replayOn(bin string, rec []byte, file string) string {
	lines := bytes.Split(bytes.TrimSpace(rec), []byte("\n"))
	var end struct {
		Op, Digest string
	}
	if err := json.Unmarshal(lines[len(lines)-1], &end); err != nil || end.Op != "end" || end.Digest == "" {
		return "replay: the base build's recording has no end line with a digest"
	}
	var header struct{ Version int }
	if err := json.Unmarshal(lines[0], &header); err != nil {
		return "replay: the base build's recording has no header line"
	}
	if err := os.WriteFile(file, rec, 0o600); err != nil {
		return "replay: " + err.Error()
	}
	s, err := startSim(bin, []string{"serve", "-addr", "127.0.0.1:0", "-replay", file})
	if err != nil {
		return "replay of the base build's recording refused by the working tree's build: " + err.Error()
	}
	defer s.stop()
	if header.Version < 2 {
		return ""
	}
	resp, err := http.Get(s.url + "/_sim/digest")
	if err != nil {
		return "replay: " + err.Error()
	}
	defer resp.Body.Close()
	var got struct{ Digest string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		return "replay: GET /_sim/digest: " + err.Error()
	}
	if got.Digest != end.Digest {
		return fmt.Sprintf("replay of the base build's recording: digest %s, the recording's end line %s", got.Digest, end.Digest)
	}
	return ""
}

// report prints the summary and says whether the walk failed.
func report(o options, names []string, results []*walk.Result, checkers []*validate.Checker, known *validate.Known, allow *walk.Allowlist) bool {
	failed := false
	steps, requests, webhooks, diffs := 0, 0, 0, 0
	ops, ok := map[string]int{}, map[string]int{}
	groups := walk.Groups{}
	fmt.Println()
	fmt.Printf("builds: %s\n", strings.Join(names, " vs "))
	for _, r := range results {
		steps += r.Steps
		requests += r.Requests
		webhooks += r.Webhooks
		diffs += r.DiffCount
		for k, v := range r.PerOperation {
			ops[k] += v
			ok[k] += r.OK[k]
		}
		fmt.Printf("seed %d: requests digest %s, state digests %s\n", r.Seed, r.RequestDigest[:16], strings.Join(r.Digests, " "))
		if len(r.Diffs) > 0 {
			// Later differences may only follow from the first one (the
			// two states diverged there): start reading from it.
			d := r.Diffs[0]
			fmt.Printf("  first difference: step %d request %d, %s\n", d.Step, d.Request, d.Key())
		}
		for _, s := range r.Slow {
			fmt.Printf("  slow: %s\n", s)
		}
		fmt.Printf("  %d control writes refused by the working tree's build, each with its state digest before and after\n", r.RefusedWrites)
		for _, l := range r.Leaks {
			failed = true
			fmt.Printf("  REFUSED BUT CHANGED: %s\n", l)
		}
		for i, b := range r.Books {
			if b != "" {
				failed = true
				if i < len(names) {
					fmt.Printf("  BOOKS of %s: %s\n", names[i], b)
				} else {
					fmt.Printf("  %s\n", b) // the replay check (-replay)
				}
			}
		}
		for _, d := range r.Diffs {
			groups.Add(d, allow, o.show)
		}
		if r.DiffCount > len(r.Diffs) {
			fmt.Printf("  seed %d: %d differences beyond the %d kept\n", r.Seed, r.DiffCount-len(r.Diffs), len(r.Diffs))
			failed = true
		}
	}
	fmt.Printf("seeds: %d, steps: %d, requests per build: %d, webhook deliveries received: %d\n", len(results), steps, requests, webhooks)
	var opNames []string
	for k := range ops {
		opNames = append(opNames, k)
	}
	sort.Strings(opNames)
	fmt.Printf("operations walked: %d (requests, of which answered 2xx by the working tree's build)\n", len(opNames))
	for _, k := range opNames {
		fmt.Printf("  %7d %7d  %s\n", ops[k], ok[k], k)
	}
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Printf("differences: %d in %d groups (operation, part, statuses)\n", diffs, len(keys))
	for _, k := range keys {
		g := groups[k]
		if g.Allowed() {
			fmt.Printf("  %5d  %s\n         allowed: %s\n", g.N, k, g.Fix)
			continue
		}
		failed = true
		fmt.Printf("  %5d  %s (%d not matched by the allowlist)\n", g.N, k, g.Unmatched)
		for _, d := range g.Examples {
			fmt.Println(indent(d.String(), "         "))
		}
	}
	for _, u := range allow.Unused() {
		if o.base != "" || o.baseBin != "" {
			fmt.Printf("  allowlist entry matched nothing (stale?): %s\n", u)
		}
	}
	var n validate.Counts
	var all []validate.Violation
	for _, c := range checkers {
		n.Requests += c.Counts.Requests
		n.Responses += c.Counts.Responses
		n.Webhooks += c.Counts.Webhooks
		n.RefusedInvalid += c.Counts.RefusedInvalid
		n.NoRoute += c.Counts.NoRoute
		all = append(all, c.Violations()...)
	}
	fmt.Printf("OpenAPI: %d exchanges validated (%d requests, %d responses, %d webhooks, %d refused as invalid, %d outside both documents)\n",
		n.Requests+n.NoRoute+n.Webhooks, n.Requests, n.Responses, n.Webhooks, n.RefusedInvalid, n.NoRoute)
	var unknown []validate.Violation
	for _, v := range all {
		if !known.Match(v) {
			unknown = append(unknown, v)
		}
	}
	fmt.Printf("OpenAPI violations: %d (%d known)\n", len(unknown), len(all)-len(unknown))
	seen := map[string]int{}
	for _, v := range unknown {
		seen[v.Key+" ["+v.Kind+"] "+v.Detail]++
		if seen[v.Key+" ["+v.Kind+"] "+v.Detail] == 1 {
			fmt.Printf("  %s\n", v)
		}
	}
	return failed || len(unknown) > 0
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pre)
}

func output(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return strings.TrimSpace(string(out)), err
}

func build(dir, out string) error {
	cmd := exec.Command("go", "build", "-o", out, "./cmd/mwallet-sim")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %w", dir, err)
	}
	return nil
}

// buildCommit extracts commit with git archive and builds its mwallet-sim.
func buildCommit(root, commit, tmp string) (string, error) {
	full, err := output("git", "-C", root, "rev-parse", "--verify", commit+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("commit %s is not in this repository's history (a shallow clone? fetch it): %w", commit, err)
	}
	src := filepath.Join(tmp, "base-src")
	if err := os.MkdirAll(src, 0o700); err != nil {
		return "", err
	}
	fmt.Printf("building mwallet-sim at %s (%s)\n", commit, full[:12])
	cmd := exec.Command("bash", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "archive", root, full, src)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git archive %s: %w", commit, err)
	}
	bin := filepath.Join(tmp, "mwallet-sim-base")
	return bin, build(src, bin)
}

// sim is one running mwallet-sim.
type sim struct {
	cmd *exec.Cmd
	url string
}

func startSim(bin string, args []string) (*sim, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sim{cmd: cmd}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "mwallet-sim listening on "); ok {
			s.url = strings.TrimSpace(u)
			break
		}
	}
	if s.url == "" {
		s.stop()
		return nil, fmt.Errorf("%s printed no address", bin)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return s, nil
}

func (s *sim) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
	}
}

// fetchRecording reads the recording of the simulator at base (GET
// /_sim/recording; its end line carries the state digest).
func fetchRecording(base string) ([]byte, error) {
	resp, err := http.Get(base + "/_sim/recording")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET /_sim/recording: %d %.300s", resp.StatusCode, b)
	}
	return b, nil
}

// saveRecording writes a recording of the base build to
// DIR/walk-seed-N.jsonl, or walk-seed-N-data.jsonl when it ran with -data.
func saveRecording(dir string, seed uint64, rec []byte, data bool) error {
	name := fmt.Sprintf("walk-seed-%d.jsonl", seed)
	if data {
		name = fmt.Sprintf("walk-seed-%d-data.jsonl", seed)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fmt.Printf("recording of seed %d: %s (%d bytes)\n", seed, filepath.Join(dir, name), len(rec))
	return os.WriteFile(filepath.Join(dir, name), rec, 0o600)
}
