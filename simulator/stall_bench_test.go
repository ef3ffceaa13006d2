package simulator

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
)

// BenchmarkSnapshotStall is the longest a request waits while a snapshot
// is taken, and while the control reads that walk the whole state run, at
// the 90,000-request state of the restart benchmarks: a data directory
// holding it is opened (outside the timer), stallClients goroutines send
// signed deposits and deposit lists in process without pause, and each
// read in turn runs beside them. The metric of a read is the longest
// latency of a request that overlapped it (ms-stall-); ms-lock- is the
// longest a probe waited for the state lock meanwhile (it takes the lock
// and releases it at once, every millisecond), which separates the time a
// request waits for the lock from the time it waits for a CPU, the
// collector or the disk; ms-fsync- is the longest fsync of the log
// meanwhile (every signed deposit waits for one before its answer, so a
// slow disk is a stall the state lock has no part in); "idle" is the same
// traffic with no read running, for as long as a read, the floor the
// others compare with.
//
//	MWALLET_SIM_VERIFY=0 go test -run '^$' -bench SnapshotStall -benchtime 1x -count 3 ./simulator
func BenchmarkSnapshotStall(b *testing.B) {
	src, err := restartDir()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for from, to := range map[string]string{datadir.LogName: datadir.LogName, datadir.SnapshotName + ".keep": datadir.SnapshotName} {
		data, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	s, err := New(WithDataDir(dir), WithSnapshotEvery(0), WithDiagnostics(io.Discard))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tok, err := inProcessToken(s)
	if err != nil {
		b.Fatal(err)
	}
	st := s.wiring.rec.Store()
	reads := []struct {
		name string
		run  func() error
	}{
		{"idle", func() error { time.Sleep(stallIdle); return nil }},
		{"snapshot", func() error {
			st.Snapshot()
			return nil
		}},
		{"digest", controlRead(s, "/_sim/digest")},
		{"recording", controlRead(s, "/_sim/recording")},
		{"ledger", controlRead(s, "/_sim/ledger")},
		{"state", controlRead(s, "/_sim/state")},
	}
	worst := make([]time.Duration, len(reads))
	worstLock := make([]time.Duration, len(reads))
	worstSync := make([]time.Duration, len(reads))
	took := make([]time.Duration, len(reads))

	var (
		stop    atomic.Bool
		maxLat  atomic.Int64
		wg      sync.WaitGroup
		done    [stallClients]atomic.Int64
		failure atomic.Value
		keys    atomic.Int64
		maxLock atomic.Int64
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			t0 := time.Now()
			tx := s.k.Begin()
			wait := time.Since(t0)
			tx.End()
			for {
				m := maxLock.Load()
				if int64(wait) <= m || maxLock.CompareAndSwap(m, int64(wait)) {
					break
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for c := range stallClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				t0 := time.Now()
				var w *httptest.ResponseRecorder
				if i%2 == 0 {
					w = inProcessGet(s, tok, "/v1/deposits?limit=5", DefaultMemberExternalID)
				} else {
					n := keys.Add(1)
					body := []byte(`{"asset":"USDT","amount":"1","reference":"stall-` + fmt.Sprint(n) + `"}`)
					w = inProcessSigned(s, tok, "/v1/deposits", DefaultMemberExternalID, fmt.Sprintf("00000000-0000-4000-9000-%012d", n), body)
				}
				lat := time.Since(t0)
				if w.Code >= 300 {
					failure.CompareAndSwap(nil, fmt.Sprintf("%d %s", w.Code, w.Body))
				}
				for {
					m := maxLat.Load()
					if int64(lat) <= m || maxLat.CompareAndSwap(m, int64(lat)) {
						break
					}
				}
				done[c].Add(1)
			}
		}()
	}
	// settle waits until every client finished a request begun after now.
	settle := func() {
		var at [stallClients]int64
		for c := range at {
			at[c] = done[c].Load()
		}
		for c := range at {
			for done[c].Load() < at[c]+2 {
				time.Sleep(time.Millisecond)
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		for i, r := range reads {
			settle()
			maxLat.Store(0)
			maxLock.Store(0)
			st.SlowestSync(true)
			t0 := time.Now()
			if err := r.run(); err != nil {
				b.Fatal(err)
			}
			took[i] = max(took[i], time.Since(t0))
			settle()
			worst[i] = max(worst[i], time.Duration(maxLat.Load()))
			worstLock[i] = max(worstLock[i], time.Duration(maxLock.Load()))
			worstSync[i] = max(worstSync[i], st.SlowestSync(false))
		}
	}
	b.StopTimer()
	stop.Store(true)
	wg.Wait()
	if f := failure.Load(); f != nil {
		b.Fatalf("a request failed: %v", f)
	}
	for i, r := range reads {
		b.ReportMetric(float64(worst[i])/float64(time.Millisecond), "ms-stall-"+r.name)
		b.ReportMetric(float64(worstLock[i])/float64(time.Millisecond), "ms-lock-"+r.name)
		b.ReportMetric(float64(worstSync[i])/float64(time.Millisecond), "ms-fsync-"+r.name)
		b.Logf("%-10s took %v; the longest request beside it %v, the longest wait for the state lock %v, the longest fsync of the log %v", r.name, took[i].Round(time.Millisecond), worst[i].Round(time.Millisecond), worstLock[i].Round(time.Millisecond), worstSync[i].Round(time.Millisecond))
	}
}

// stallIdle is how long the "idle" window of BenchmarkSnapshotStall lasts:
// about as long as the reads it is the floor of (a longer window meets
// more of the disk's slow fsyncs).
const stallIdle = 3 * time.Second

// stallClients is how many goroutines send requests in BenchmarkSnapshotStall.
const stallClients = 4
