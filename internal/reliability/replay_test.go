package reliability_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// checkReplay records sim, replays the recording (through its file
// format) into a new simulator and compares the two: the digests of the
// whole state, and full dumps of what the Go API shows (every object with
// its history, balances, the ledger journal, deliveries, events, the
// request journal, the clock).
func checkReplay(t *testing.T, sim *simulator.Simulator) {
	t.Helper()
	start := time.Now()
	rec, err := sim.Recording()
	if err != nil {
		t.Fatalf("Recording: %v", err)
	}
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	size := buf.Len()
	back, err := simulator.ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	replayStart := time.Now()
	rp, err := simulator.New(simulator.WithRecording(back))
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	defer rp.Close()
	replayed := time.Since(replayStart)
	sameAmount := cmp.Comparer(func(a, b money.Amount) bool { return a.Equal(b) && a.String() == b.String() })
	for _, c := range []struct {
		name       string
		live, back any
	}{
		{"State", sim.State(), rp.State()},
		{"LedgerEntries", sim.LedgerEntries(), rp.LedgerEntries()},
		{"Events", sim.Events.List(), rp.Events.List()},
		{"Deliveries", sim.Webhooks.Deliveries(), rp.Webhooks.Deliveries()},
		{"Requests", sim.Requests.List(), rp.Requests.List()},
		{"Faults", sim.Faults.List(), rp.Faults.List()},
		{"Clock", sim.Clock.Now(), rp.Clock.Now()},
	} {
		if diff := cmp.Diff(c.live, c.back, sameAmount); diff != "" {
			t.Errorf("%s (-live +replay):\n%s", c.name, diff)
		}
	}
	dl, err := sim.Digest()
	if err != nil {
		t.Fatal(err)
	}
	dr, err := rp.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if dl != dr {
		t.Errorf("state digest: live %s, replay %s", dl, dr)
	}
	t.Logf("recording of %d inputs (%d bytes) replayed in %s to the same state (%s); recorded, written and read in %s",
		rec.Len(), size, replayed.Round(time.Millisecond), dl, replayStart.Sub(start).Round(time.Millisecond))
}

// TestReplayOfFaultedRun replays the recording of 320 concurrent
// operations from 8 clients under injected faults (dropped before and
// after executing, 502 and 504 answers, delays that release the lock while
// other requests run, random fault draws): the replay reaches the same
// state, the same ids, balances, objects, events, deliveries and journal.
func TestReplayOfFaultedRun(t *testing.T) {
	t.Parallel()
	const (
		seed    = 20260102
		members = 4
		workers = 8
		ops     = 320
	)
	w := newWorld(t, seed, members, "100000")
	if err := faultPlan(w.sim); err != nil {
		t.Fatal(err)
	}
	outs, st := workload(t, w, seed, newClients(w, workers), ops)
	checkExactlyOnce(t, w, outs, outs, true)
	if st.faults[string(simulator.FaultDelay)] == 0 || st.faults[string(simulator.FaultDropAfter)] == 0 {
		t.Errorf("the run met no delays or drops: %v", st)
	}
	checkReplay(t, w.sim)
}
