package simulator

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// writeLoad sends signed deposits, deposit lists and clock advances to s
// from n goroutines until stop is closed; done counts the requests
// answered.
func writeLoad(t *testing.T, s *Simulator, n int, stop <-chan struct{}, done *atomic.Int64) *sync.WaitGroup {
	t.Helper()
	tok, err := inProcessToken(s)
	if err != nil {
		t.Fatal(err)
	}
	var keys atomic.Int64
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				switch {
				case i%3 == 2:
					inProcessGet(s, tok, "/v1/deposits?limit=5", DefaultMemberExternalID)
				case g == 0 && i%50 == 49:
					s.Clock.Advance(time.Second)
				default:
					k := keys.Add(1)
					body := []byte(fmt.Sprintf(`{"asset":"USDT","amount":"1.5","reference":"capture-%d"}`, k))
					if w := inProcessSigned(s, tok, "/v1/deposits", DefaultMemberExternalID, fmt.Sprintf("00000000-0000-4000-a000-%012d", k), body); w.Code >= 300 {
						t.Errorf("deposit %d: %d %s", k, w.Code, w.Body)
						return
					}
				}
				done.Add(1)
			}
		}()
	}
	return &wg
}

// TestCaptureIsTheStateAtItsInstant takes a capture of the state while
// writes run, and encodes, hashes and reads it while they go on: the image
// of the capture, read into a new simulator, has the digest the live state
// had at the instant of the capture (taken under the same hold of the
// state lock), and so has the digest of the capture itself, although the
// live state moved on meanwhile. Under -race it is also the proof that
// nothing the encoder reads is written by the requests running beside it.
func TestCaptureIsTheStateAtItsInstant(t *testing.T) {
	t.Parallel()
	s := mustNewHandler()
	defer s.Close()
	stop := make(chan struct{})
	var done atomic.Int64
	wg := writeLoad(t, s, 3, stop, &done)
	defer func() { close(stop); wg.Wait() }()
	for done.Load() < 300 {
		time.Sleep(time.Millisecond)
	}
	for round := range 3 {
		tx := s.k.BeginCapture(false)
		want, err := s.wiring.image.digest(tx)
		if err != nil {
			t.Fatal(err)
		}
		c := s.k.Capture(tx)
		tx.End()
		before := done.Load()

		var img bytes.Buffer
		rtx := c.Read()
		if err := kernel.WriteState(&img, rtx); err != nil {
			t.Fatal(err)
		}
		got, err := s.wiring.image.digest(rtx)
		ledger := s.st.ledger.Check(rtx)
		rtx.End()
		c.Release()
		if err != nil {
			t.Fatal(err)
		}
		// Let the writes go on a little more, so that the live state is
		// sure to have moved past the capture.
		for done.Load() < before+5 {
			time.Sleep(time.Millisecond)
		}
		if got != want {
			t.Errorf("round %d: the capture's digest %s, the state's at the capture %s", round, got, want)
		}
		if ledger != nil {
			t.Errorf("round %d: the capture's ledger: %v", round, ledger)
		}
		restored := mustNewHandler()
		if err := restored.wiring.image.readState(&img); err != nil {
			t.Fatal(err)
		}
		if d, err := restored.Digest(); err != nil || d != want {
			t.Errorf("round %d: restored from the capture's image: %s, %v; the state at the capture: %s", round, d, err, want)
		}
		restored.Close()
		if now, err := s.Digest(); err != nil || now == want {
			t.Errorf("round %d: the live state did not move on (%s, %v): the test proves nothing", round, now, err)
		}
	}
}

// TestWholeStateReadsDoNotHoldTheLock lists every read that walks the
// whole state, over HTTP and in Go, and the snapshot: each reads a capture
// of the state, and while it reads, a business request runs to its answer
// (it would wait for the state lock if the read held it).
func TestWholeStateReadsDoNotHoldTheLock(t *testing.T) {
	t.Parallel()
	reads := []struct {
		name string
		run  func(s *Simulator) error
	}{
		{"snapshot", func(s *Simulator) error {
			s.wiring.rec.Store().Snapshot()
			return nil
		}},
		{"GET /_sim/digest", func(s *Simulator) error { return controlRead(s, "/_sim/digest")() }},
		{"GET /_sim/recording", func(s *Simulator) error { return controlRead(s, "/_sim/recording")() }},
		{"GET /_sim/ledger", func(s *Simulator) error { return controlRead(s, "/_sim/ledger")() }},
		{"GET /_sim/state", func(s *Simulator) error { return controlRead(s, "/_sim/state")() }},
		{"Digest", func(s *Simulator) error { _, err := s.Digest(); return err }},
		{"Recording", func(s *Simulator) error { _, err := s.Recording(); return err }},
		{"State", func(s *Simulator) error { s.State(); return nil }},
		{"LedgerEntries", func(s *Simulator) error { s.LedgerEntries(); return nil }},
		{"CheckLedger", func(s *Simulator) error { return s.CheckLedger() }},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			s, err := New(WithDataDir(t.TempDir()), WithSnapshotEvery(0), WithDiagnostics(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tok, err := inProcessToken(s)
			if err != nil {
				t.Fatal(err)
			}
			var beside []int
			s.wiring.image.onCapture = func() {
				answered := make(chan int, 1)
				go func() { answered <- inProcessGet(s, tok, "/v1/deposits?limit=5", DefaultMemberExternalID).Code }()
				select {
				case code := <-answered:
					beside = append(beside, code)
				case <-time.After(time.Minute):
					t.Errorf("a request waited a minute beside the read: the read holds the state lock")
				}
			}
			if err := r.run(s); err != nil {
				t.Fatal(err)
			}
			if len(beside) == 0 {
				t.Fatalf("the read took no capture of the state")
			}
			for _, code := range beside {
				if code != 200 {
					t.Errorf("the request beside the read answered %d", code)
				}
			}
		})
	}
}

// controlRead is a GET of a control route, in process, that must answer
// 200.
func controlRead(s *Simulator, path string) func() error {
	return func() error {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Code != 200 {
			return fmt.Errorf("GET %s: %d %.200s", path, w.Code, w.Body)
		}
		return nil
	}
}
