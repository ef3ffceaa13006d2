package simulator_test

import (
	"slices"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// faultPattern sends n reads with a one-in-four error fault armed and
// returns which of them took the fault.
func faultPattern(t *testing.T, n int, opts ...simulator.Option) []bool {
	t.Helper()
	sim, c := newRaw(t, opts...)
	tok := c.token()
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/members/*", Kind: simulator.FaultError, Code: "upstream_error", OneIn: 4}); err != nil {
		t.Fatal(err)
	}
	var out []bool
	for i := 0; i < n; i++ {
		r := c.get(tok, "/v1/members/mem_missing", "")
		out = append(out, r.code() == "upstream_error")
	}
	took := 0
	for _, rec := range sim.Requests.List() {
		if rec.Fault == string(simulator.FaultError) {
			took++
		}
	}
	if want := count(out); took != want {
		t.Fatalf("journal records %d faults, answers show %d", took, want)
	}
	if f := sim.Faults.List(); len(f) != 1 || f[0].Count != 0 || f[0].OneIn != 4 {
		t.Fatalf("an unlimited random fault lists as %+v, want still armed with count 0", f)
	}
	return out
}

func count(v []bool) int {
	n := 0
	for _, b := range v {
		if b {
			n++
		}
	}
	return n
}

func TestFaultOneIn(t *testing.T) {
	t.Parallel()
	const n = 400
	a := faultPattern(t, n, simulator.WithSeed(7))
	b := faultPattern(t, n, simulator.WithSeed(7))
	other := faultPattern(t, n, simulator.WithSeed(8))
	if !slices.Equal(a, b) {
		t.Errorf("the same seed and traffic met different faults")
	}
	if slices.Equal(a, other) {
		t.Errorf("another seed met exactly the same faults")
	}
	// One in four of 400: mean 100, standard deviation about 8.7.
	if got := count(a); got < 60 || got > 140 {
		t.Errorf("%d of %d requests took a one-in-four fault", got, n)
	}
	t.Logf("one in 4: %d of %d requests faulted (seed 7), %d (seed 8)", count(a), n, count(other))
}

func TestFaultOneInWithCount(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/members/*", Kind: simulator.FaultError, Status: 502, OneIn: 2, Count: 5}); err != nil {
		t.Fatal(err)
	}
	// A request the draw spares falls through to the next fault.
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/members/*", Kind: simulator.FaultError, Status: 504, Count: 1}); err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for i := 0; i < 100; i++ {
		codes[c.get(tok, "/v1/members/mem_missing", "").code()]++
	}
	if codes["upstream_error"] != 5 || codes["upstream_timeout"] != 1 || codes["member_not_found"]+codes["not_found"] != 94 {
		t.Fatalf("answers %v, want 5 upstream_error, 1 upstream_timeout, the rest not found", codes)
	}
	if f := sim.Faults.List(); len(f) != 0 {
		t.Fatalf("faults left armed: %+v", f)
	}
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/*", Kind: simulator.FaultError, OneIn: -1}); err == nil {
		t.Fatal("a negative one_in was accepted")
	}
}
