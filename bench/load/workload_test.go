package main

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/simulator"
)

func TestParseMix(t *testing.T) {
	t.Parallel()
	got, err := parseMix("deposit=3, qr=1,remittance=0,read=4")
	if err != nil {
		t.Fatal(err)
	}
	if want := ([numOps]int{opDeposit: 3, opQR: 1, opRead: 4}); got != want {
		t.Errorf("parseMix = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "deposit=0", "deposit", "deposit=-1", "deposit=x", "withdraw=1"} {
		if _, err := parseMix(bad); err == nil {
			t.Errorf("parseMix(%q) accepted", bad)
		}
	}
}

func TestPickFollowsWeights(t *testing.T) {
	t.Parallel()
	w := [numOps]int{opDeposit: 3, opRead: 1}
	rng := rand.New(rand.NewPCG(3, 4))
	var n [numOps]int
	for range 4000 {
		n[pick(&w, 4, rng)]++
	}
	if n[opQR]+n[opRemittance]+n[opTopUp] != 0 {
		t.Errorf("kinds of weight 0 drawn: %v", n)
	}
	if n[opDeposit] < 2800 || n[opDeposit] > 3200 {
		t.Errorf("deposits drawn %d times of 4000, want about 3000", n[opDeposit])
	}
}

func TestMicros(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int64{"0": 0, "1": 1_000_000, "0.01": 10_000, "1000000.000000": 1_000_000_000_000, "-2.5": -2_500_000, "12.345678": 12_345_678} {
		got, err := micros(s)
		if err != nil || got != want {
			t.Errorf("micros(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "1.1234567", "x", ".5", "1.x"} {
		if _, err := micros(bad); err == nil {
			t.Errorf("micros(%q) accepted", bad)
		}
	}
	for v, want := range map[int64]string{0: "0.000000", 10_000: "0.010000", -2_500_000: "-2.500000", 1_000_000_000_000: "1000000.000000"} {
		if got := formatMicros(v); got != want {
			t.Errorf("formatMicros(%d) = %q, want %q", v, got, want)
		}
	}
}

// newTestSim is a simulator with a data directory, snapshotting every
// snapEvery inputs.
func newTestSim(t *testing.T, snapEvery int) (*simulator.Simulator, string) {
	t.Helper()
	dir := t.TempDir()
	sim, err := simulator.New(simulator.WithDataDir(dir), simulator.WithSnapshotEvery(snapEvery))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return sim, dir
}

// TestAuditFindsWhatIsWrong drives every kind of write through one
// client, checks the audit passes, then breaks what the client believes
// in each way the audit must catch.
func TestAuditFindsWhatIsWrong(t *testing.T) {
	t.Parallel()
	sim, _ := newTestSim(t, 0)
	ctx := context.Background()
	rec := newRecorder(time.Second)
	ctl := &controlClient{base: sim.URL(), hc: newHTTPClient(rec, 2)}
	weights, err := parseMix("deposit=1,qr=1,remittance=1,topup=1,read=1")
	if err != nil {
		t.Fatal(err)
	}
	w, err := setup(ctx, setupConfig{base: sim.URL(), clients: 1, members: 2, weights: weights, runID: "test", rec: rec, logs: newLogCounter(), ctl: ctl, setupConcurrent: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := w.clients[0]
	for range 3 {
		for k := range numOps {
			c.do(w, k)
		}
	}
	var ok [numOps]int
	copy(ok[:], w.stats.ok[:])
	if want := ([numOps]int{3, 3, 3, 3, 3}); ok != want || len(w.stats.refusals) != 0 || len(w.stats.controls) != 0 {
		t.Fatalf("operations ok %v (want %v), refusals %v, control failures %v", ok, want, w.stats.refusals, w.stats.controls)
	}
	if a := audit(ctx, w); !a.ok() || a.Writes != 12 || a.Members != 2 {
		t.Fatalf("audit of a clean run: %+v", a)
	}

	// A write the simulator executed but no client was told of: the
	// member has more than its answered writes make it.
	m := c.members[0]
	if _, err := c.c.Deposits.Create(ctx, m.ext, deposits.CreateParams{Asset: "USDT", Amount: mustMicros(70_000), Reference: "untold-1"}); err != nil {
		t.Fatal(err)
	}
	a := audit(ctx, w)
	if a.ok() || a.BadBalances != 1 || a.Bad != 0 {
		t.Errorf("a write nobody was told of: %+v", a)
	}
	// Take it into account, then make a client believe an amount the
	// simulator never answered, and an id it never made.
	c.writes = append(c.writes, &write{kind: opDeposit, member: m, key: "k-untold", ref: "untold-1", id: "dep_untold-1", amount: 70_000})
	if a := audit(ctx, w); !a.ok() {
		t.Fatalf("after taking the untold write into account: %+v", a)
	}
	c.writes[0].amount++
	c.writes = append(c.writes, &write{kind: opRemittance, member: m, key: "k-lost", id: "rmt_00000000-0000-0000-0000-000000000000", payout: "9.00"})
	a = audit(ctx, w)
	if a.ok() || a.Bad != 2 {
		t.Errorf("a wrong amount and a missing write: %+v", a)
	}
	if !strings.Contains(strings.Join(a.Problems, "\n"), "rmt_00000000") {
		t.Errorf("the problems do not name the missing write: %q", a.Problems)
	}
}

// TestUnknownOutcomeIsResent: a write whose answer the client never got is
// resent with its key before the audit, answered, and counted once.
func TestUnknownOutcomeIsResent(t *testing.T) {
	t.Parallel()
	sim, _ := newTestSim(t, 0)
	ctx := context.Background()
	rec := newRecorder(time.Second)
	ctl := &controlClient{base: sim.URL(), hc: newHTTPClient(rec, 2)}
	w, err := setup(ctx, setupConfig{base: sim.URL(), clients: 1, members: 1, weights: [numOps]int{opDeposit: 1}, peak: true, runID: "unk", rec: rec, logs: newLogCounter(), ctl: ctl, setupConcurrent: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := w.clients[0]
	wr := c.newWrite(opDeposit)
	if err := c.send(ctx, w, wr); err != nil { // executed; pretend the answer was lost
		t.Fatal(err)
	}
	c.pending = append(c.pending, &write{kind: wr.kind, member: wr.member, key: wr.key, ref: wr.ref, amount: wr.amount})
	a := audit(ctx, w)
	if !a.ok() || a.Resent != 1 || a.Writes != 1 {
		t.Errorf("audit: %+v", a)
	}
}

// TestRunAgainstSimulator runs the whole command briefly against an
// in-process simulator with a data directory (-url, -data): it prints its
// lines, sees the snapshots (one every 40 inputs: a loaded machine
// answers only about a hundred requests in the run), audits, and prints
// the Markdown row.
func TestRunAgainstSimulator(t *testing.T) {
	t.Parallel()
	sim, dir := newTestSim(t, 40)
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"-url", sim.URL(), "-data", dir, "-clients", "3", "-members", "2",
		"-duration", "1500ms", "-interval", "500ms", "-control-reads", "digest,ledger", "-control-every", "400ms", "-md"}, &out, &errs)
	if err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, out.String(), errs.String())
	}
	text := out.String()
	for _, want := range []string{intervalHeader, "\naudit        ok:", "GET /_sim/digest x", "GET /_sim/ledger x", markdownHeader(400 * time.Millisecond), "\n| 3 | mix | "} {
		if !strings.Contains(text, want) {
			t.Errorf("the output has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "snapshots    none seen") {
		t.Errorf("no snapshot seen with -snapshot-every 40:\n%s", text)
	}
	if !cmp.Equal(errs.String(), "") {
		t.Errorf("stderr: %s", errs.String())
	}
}

func TestRefusalsByCode(t *testing.T) {
	t.Parallel()
	s := newOpStats()
	clock := &fakeClock{now: at(0)}
	s.now = clock.Now
	nonces := func(secs int) error {
		return &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeServiceUnavailable,
			Message: "the nonce store is full: retry after " + strconv.Itoa(secs) + " seconds", RetryDelay: time.Duration(secs) * time.Second}
	}
	s.refused(opDeposit, nonces(261))
	clock.now = at(1000)
	s.refused(opQR, nonces(260))
	s.refused(opDeposit, &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeServiceUnavailable, Message: "the idempotency store is full"})
	clock.now = at(2000)
	s.refused(opDeposit, nonces(259))
	s.refused(opRead, errors.New("no code"))
	if diff := cmp.Diff(map[string]int{"service_unavailable": 4, "error": 1}, s.refusalsByCode()); diff != "" {
		t.Errorf("refusals by code (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"deposit service_unavailable": 3, "qr service_unavailable": 1, "read error": 1}, s.refusals); diff != "" {
		t.Errorf("refusals by kind and code (-want +got):\n%s", diff)
	}
	want := map[string]*reason{
		"service_unavailable the nonce store is full: retry after N seconds (Retry-After NmNs)": {
			Code: "service_unavailable", Count: 3, First: at(0), Last: at(2000), Example: "the nonce store is full: retry after 261 seconds (Retry-After 4m21s)"},
		"service_unavailable the idempotency store is full": {Code: "service_unavailable", Count: 1, First: at(1000), Last: at(1000), Example: "the idempotency store is full"},
		"error no code": {Code: "error", Count: 1, First: at(2000), Last: at(2000), Example: "no code"},
	}
	if diff := cmp.Diff(want, s.reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}
