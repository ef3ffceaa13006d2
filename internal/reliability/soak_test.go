package reliability_test

import (
	"flag"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

var soak = flag.Duration("soak", 0, "run TestSoak for this long (for example 60s); 0 skips it")

// TestSoak puts sustained load on one simulator over loopback with random
// faults: batches of 400 operations from 8 concurrent clients until -soak
// has passed, checking after every batch that every accepted operation
// executed exactly once, the balances match the clients' outcomes and the
// books balance. The simulator clock moves a day between batches, so daily
// limits start afresh. At the end the run's recording is replayed into a
// new simulator, which must reach the same state (checkReplay). Run it with
//
//	go test ./internal/reliability -run Soak -soak=60s -v
func TestSoak(t *testing.T) {
	if *soak <= 0 {
		t.Skip("soak test: run with -soak=60s (or any duration)")
	}
	const (
		seed    = 7
		workers = 8
		batchN  = 400
	)
	w := newWorld(t, seed, 4, "100000000")
	if err := faultPlan(w.sim); err != nil {
		t.Fatal(err)
	}
	total := stats{ops: map[opKind]int{}, failed: map[string]int{}, faults: map[string]int{}}
	var all []outcome
	// Each batch moves the simulator clock a day, so every client exchanges
	// a new token per batch: faster than the client-side pacing of 20
	// exchanges a minute of real time allows, and within the simulator's
	// quota, which follows its clock.
	clients := newClients(w, workers, mwallet.WithTokenExchangeLimit(0))
	start := time.Now()
	batches := 0
	for time.Since(start) < *soak && !t.Failed() {
		if err := w.sim.Requests.Reset(); err != nil {
			t.Fatal(err)
		}
		batch, st := workload(t, w, uint64(seed+batches), clients, batchN)
		if err := faultPlan(w.sim); err != nil { // workload clears the faults when done
			t.Fatal(err)
		}
		all = append(all, batch...)
		checkExactlyOnce(t, w, all, batch, false)
		batches++
		// A new day on the simulator clock: daily limits start afresh.
		w.sim.Clock.Advance(25 * time.Hour)
		for k, v := range st.ops {
			total.ops[k] += v
		}
		for k, v := range st.faults {
			total.faults[k] += v
		}
		total.requests += st.requests
		total.replays += st.replays
		total.resends += st.resends
		total.sdkRetries += st.sdkRetries
		total.stepUps += st.stepUps
		total.timeouts += st.timeouts
		if batches%10 == 0 {
			t.Logf("%s: %d batches, %d requests served", time.Since(start).Truncate(time.Second), batches, total.requests)
		}
	}
	elapsed := time.Since(start)
	t.Logf("soak %s (asked %s): %d batches of %d operations, invariants held after every batch (%.0f requests/s)\n%v",
		elapsed.Truncate(time.Millisecond), *soak, batches, batchN, float64(total.requests)/elapsed.Seconds(), total)
	checkReplay(t, w.sim)
}
