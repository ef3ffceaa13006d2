package reliability_test

import (
	"net/http"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// faultErrorAfter is the fault kind that executes a request, stores its
// real outcome under its idempotency key and answers an error instead (the
// specification's "504, may have executed"). The matrix runs its cells when
// the simulator knows the kind.
const faultErrorAfter = "error_after"

// protocols are the ways the SDK reaches the simulator.
var protocols = []struct {
	name  string
	opts  []simulator.Option
	proto string // what the clients speak
}{
	{"http1", nil, "HTTP/1.1"},
	{"http1-tls", []simulator.Option{simulator.WithTLS()}, "HTTP/1.1"},
	{"h2", []simulator.Option{simulator.WithHTTP2()}, "HTTP/2.0"},
}

// matrixFaults are the faults of the matrix, each alone: stat is its name
// in the run's stats.
var matrixFaults = []struct {
	stat  string
	fault simulator.Fault
}{
	{"drop_after", simulator.Fault{Kind: simulator.FaultDropAfter}},
	{"drop_before", simulator.Fault{Kind: simulator.FaultDropBefore}},
	{"error_502", simulator.Fault{Kind: simulator.FaultError, Status: 502}},
	{"error_504", simulator.Fault{Kind: simulator.FaultError, Status: 504}},
	{faultErrorAfter, simulator.Fault{Kind: faultErrorAfter, Status: 504}},
}

// TestExactlyOnceMatrix runs the exactly-once workload over each protocol
// (HTTP/1.1, HTTP/1.1 with TLS, HTTP/2 with TLS) under each fault kind
// alone, striking one in four business requests: 80 money-moving
// operations from 4 concurrent clients per cell, every one executed exactly
// once, the books balanced and the invariants held.
func TestExactlyOnceMatrix(t *testing.T) {
	t.Parallel()
	const (
		seed    = 20261123
		workers = 4
		ops     = 80
	)
	for _, p := range protocols {
		for _, mf := range matrixFaults {
			t.Run(p.name+"/"+mf.stat, func(t *testing.T) {
				t.Parallel()
				if !mf.fault.Kind.Known() {
					t.Skipf("this simulator has no %s fault", mf.fault.Kind)
				}
				w := newWorld(t, seed, 2, "100000", p.opts...)
				resp, err := w.sim.HTTPClient().Get(w.sim.URL() + "/_sim/clock")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.Proto != p.proto || resp.StatusCode != http.StatusOK {
					t.Fatalf("the simulator answers %d over %s, want %s", resp.StatusCode, resp.Proto, p.proto)
				}
				for _, path := range businessPaths {
					f := mf.fault
					f.Path, f.OneIn = path, 4
					if err := w.sim.Faults.Inject(f); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.sim.Requests.Reset(); err != nil {
					t.Fatal(err)
				}
				outs, st := workload(t, w, seed, newClients(w, workers), ops)
				checkExactlyOnce(t, w, outs, outs, true)
				if len(outs) != ops {
					t.Errorf("%d of %d operations accepted", len(outs), ops)
				}
				if st.faults[mf.stat] == 0 {
					t.Errorf("no %s fault was met: %v", mf.stat, st)
				}
				t.Logf("%s over %s: %d operations, %d requests, %s faults %d, replays %d, SDK retries %d, caller resends %d",
					mf.stat, p.name, len(outs), st.requests, mf.stat, st.faults[mf.stat], st.replays, st.sdkRetries, st.resends)
			})
		}
	}
}
