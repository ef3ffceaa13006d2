package simulator_test

import (
	"bytes"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// concurrentClients is how many clients BenchmarkConcurrentSignedDeposits
// runs at once.
const concurrentClients = 8

// BenchmarkConcurrentSignedDeposits is signed deposits (a new key, nonce
// and reference each, so each one moves money) sent by concurrentClients
// clients at once, each with its own connections, over loopback HTTP: to
// an in-memory simulator ("memory") and to one with a data directory
// ("data", where each answer waits until its input is on stable storage;
// the requests waiting together share one fsync). ns/op is wall time per
// deposit over all clients, so data's ns/op over memory's is the inverse
// of the persisted throughput's share of the in-memory one.
//
//	MWALLET_SIM_VERIFY=0 go test -run '^$' -bench ConcurrentSignedDeposits -benchtime 5000x -count 3 -benchmem ./simulator
func BenchmarkConcurrentSignedDeposits(b *testing.B) {
	for _, mode := range []string{"memory", "data"} {
		b.Run(mode, func(b *testing.B) {
			var opts []simulator.Option
			if mode == "data" {
				opts = append(opts, simulator.WithDataDir(b.TempDir()))
			}
			sim := simulator.MustNew(opts...)
			b.Cleanup(sim.Close)
			c := &raw{t: b, sim: sim, hc: &http.Client{}, creds: sim.Credentials()}
			tok := c.token()
			var n atomic.Int64
			procs := runtime.GOMAXPROCS(0)
			b.SetParallelism((concurrentClients + procs - 1) / procs)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				hc := &http.Client{Transport: &http.Transport{}}
				defer hc.CloseIdleConnections()
				for pb.Next() {
					i := int(n.Add(1))
					body := depositBody("concurrent-"+strconv.Itoa(i), "1")
					h := authed(tok)
					h.Set("X-On-Behalf-Of", member1)
					h.Set("X-Idempotency-Key", uuidN(i))
					h.Set("Content-Type", "application/json")
					c.signed(h, "POST", "/v1/deposits", body)
					req, _ := http.NewRequest(http.MethodPost, sim.URL()+"/v1/deposits", bytes.NewReader(body))
					req.Header = h
					resp, err := hc.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						b.Errorf("deposit %d: status %d, want 201", i, resp.StatusCode)
						return
					}
				}
			})
			b.StopTimer()
			if err := sim.CheckLedger(); err != nil {
				b.Fatal(err)
			}
			if err := sim.CheckInvariants(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
