package simulator_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
)

// loadRequests sets how many requests TestMemoryBoundedUnderLoad drives;
// bench/run.sh passes -sim.load=1000000.
var loadRequests = flag.Int("sim.load", 40_000, "requests driven by TestMemoryBoundedUnderLoad")

// Traffic shape of TestMemoryBoundedUnderLoad: the simulator clock moves one
// minute every loadPerMinute requests, half of them signed idempotent writes.
const (
	loadPerMinute       = 20
	loadWritesPerMinute = loadPerMinute / 2
)

// TestMemoryBoundedUnderLoad serves many requests in process (no sockets):
// alternately an authenticated GET /v1/assets and a signed idempotent
// POST /v1/deposits that repeats a known reference (so it executes, stores
// an idempotency record and consumes a nonce, but creates no deposit), with
// the clock moving on. Nonces, idempotency records and tokens must expire by
// the clock, not by the safety caps, and the journal must stay at its
// capacity: the sizes stay at what one window of traffic holds, however
// many requests were served.
//
// The default run covers 33 hours of simulated traffic (more than one
// idempotency window); bench/run.sh runs one million requests (five weeks).
func TestMemoryBoundedUnderLoad(t *testing.T) {
	t.Parallel()
	n := *loadRequests
	sim, err := simulator.NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	// The heap of the simulator as it serves: verify mode's checkpoints
	// around every step are the tests' proof, not its cost.
	simulator.WithoutVerify(sim)
	creds := sim.Credentials()

	serve := func(req *http.Request) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		sim.ServeHTTP(w, req)
		return w
	}
	var tok string
	var tokExp time.Time
	refresh := func() {
		req := httptest.NewRequest(http.MethodPost, "/v1/connect/token", nil)
		req.Header.Set("X-Client-Id", creds.ClientID)
		req.Header.Set("X-Api-Key", creds.APIKey)
		w := serve(req)
		var out struct {
			Token     string `json:"auth_token"`
			ExpiredAt int64  `json:"expired_at"`
		}
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &out) != nil {
			t.Fatalf("token exchange: %d %s", w.Code, w.Body)
		}
		tok, tokExp = out.Token, time.Unix(out.ExpiredAt, 0)
	}

	const target = "/v1/deposits"
	body := depositBody("load-1", "1")
	write := func(i int) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
		ts := strconv.FormatInt(sim.Clock.Now().Unix(), 10)
		nonce := "load-" + strconv.Itoa(i)
		req.Header.Set("X-Auth-Token", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-On-Behalf-Of", member1)
		req.Header.Set("X-Idempotency-Key", uuidN(i))
		req.Header.Set("X-Timestamp", ts)
		req.Header.Set("X-Nonce", nonce)
		req.Header.Set("X-Signature", sign(creds.SigningKey, http.MethodPost, target, ts, nonce, body))
		return serve(req)
	}
	read := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/v1/assets", nil)
		req.Header.Set("X-Auth-Token", "Bearer "+tok)
		return serve(req)
	}

	refresh()
	if w := write(0); w.Code != http.StatusCreated {
		t.Fatalf("first deposit: %d %s", w.Code, w.Body)
	}
	events := sim.Stats().Events
	// At most one window of traffic (plus the current minute) is live.
	const (
		maxIdem    = loadWritesPerMinute * (24*60 + 1)
		maxNonces  = loadWritesPerMinute * (5 + 1)
		maxTokens  = 2
		maxJournal = 10_000
	)
	var peak simulator.Stats
	for i := 1; i <= n; i++ {
		if i%loadPerMinute == 0 {
			sim.Clock.Advance(time.Minute)
		}
		if !sim.Clock.Now().Before(tokExp.Add(-time.Minute)) {
			refresh()
		}
		if i%2 == 0 {
			if w := read(); w.Code != http.StatusOK {
				t.Fatalf("request %d: GET /v1/assets: %d %s", i, w.Code, w.Body)
			}
		} else if w := write(i); w.Code != http.StatusOK {
			t.Fatalf("request %d: duplicate deposit: %d %s", i, w.Code, w.Body)
		}
		if i%5_000 == 0 || i == n {
			st := sim.Stats()
			if st.IdempotencyRecords > maxIdem || st.Nonces > maxNonces || st.Tokens > maxTokens ||
				st.JournalEntries > maxJournal || st.Events != events {
				t.Fatalf("after %d requests: %+v; want at most %d idempotency records, %d nonces, %d tokens, %d journal entries, %d events",
					i, st, maxIdem, maxNonces, maxTokens, maxJournal, events)
			}
			peak.IdempotencyRecords = max(peak.IdempotencyRecords, st.IdempotencyRecords)
			peak.Nonces = max(peak.Nonces, st.Nonces)
			peak.Tokens = max(peak.Tokens, st.Tokens)
			peak.JournalEntries = max(peak.JournalEntries, st.JournalEntries)
		}
	}
	st := sim.Stats()
	if elapsed := sim.Clock.Now().Sub(simulator.DefaultStart); elapsed > 24*time.Hour && st.IdempotencyRecords == 0 {
		t.Errorf("after %v of traffic no idempotency record is live: %+v", elapsed, st)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d requests over %v of simulator time: final %+v; peak %d idempotency records, %d nonces, %d tokens, %d journal entries; process heap in use %d MiB",
		st.Requests, sim.Clock.Now().Sub(simulator.DefaultStart), st, peak.IdempotencyRecords, peak.Nonces, peak.Tokens, peak.JournalEntries, ms.HeapInuse>>20)
	if err := sim.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
