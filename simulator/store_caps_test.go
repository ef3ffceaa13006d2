package simulator_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// capOf is one window store's cap as the refusal of a full store and
// Stats name it.
type capOf struct {
	store, entries, flag, option string
	count, cap                   func(simulator.Stats) int
}

var (
	capNonces = capOf{"nonce", "nonces", "-max-nonces", "WithMaxNonces",
		func(s simulator.Stats) int { return s.Nonces }, func(s simulator.Stats) int { return s.NoncesCap }}
	capIdempotency = capOf{"idempotency", "idempotency keys", "-max-idempotency-keys", "WithMaxIdempotencyKeys",
		func(s simulator.Stats) int { return s.IdempotencyRecords }, func(s simulator.Stats) int { return s.IdempotencyRecordsCap }}
	capChallenges = capOf{"step-up challenge", "step-up challenges", "-max-step-up-challenges", "WithMaxStepUpChallenges",
		func(s simulator.Stats) int { return s.StepUpChallenges }, func(s simulator.Stats) int { return s.StepUpChallengesCap }}
)

// wantCapNamed checks that r refuses a full store naming it, its cap of
// limit, and the flag and option that raise it, and that the store is at
// its cap.
func wantCapNamed(t *testing.T, r result, which capOf, limit, retry int) {
	t.Helper()
	want := fmt.Sprintf("the simulator's %s store is full (its cap of %d %s; raise it with mwallet-sim serve %s or simulator.%s); nothing was executed: retry after %d seconds",
		which.store, limit, which.entries, which.flag, which.option, retry)
	if got, _ := r.body["message"].(string); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// TestStoreCapOptions: each cap option sets its store's cap, Stats (and GET
// /_sim/stats) show it beside the store's size, a store filled to its cap
// refuses the next entry with a message that names the store, the cap and
// the flag and option that raise it, and a simulator without the options
// has the defaults.
func TestStoreCapOptions(t *testing.T) {
	t.Parallel()
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		st := simtest.Start(t).Stats()
		got := [3]int{st.NoncesCap, st.IdempotencyRecordsCap, st.StepUpChallengesCap}
		want := [3]int{simulator.DefaultMaxNonces, simulator.DefaultMaxIdempotencyKeys, simulator.DefaultMaxStepUpChallenges}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("default caps (-want +got):\n%s", diff)
		}
	})
	rows := []struct {
		which capOf
		opt   func(int) simulator.Option
		// fill adds one entry to the store; next is the request refused
		// once it is full, and retry its Retry-After.
		fill, next func(w *world, i int) result
		retry      int
	}{
		{capNonces, simulator.WithMaxNonces,
			func(w *world, i int) result { return w.post("/v1/kyc/profile-sessions", member1, `{}`) },
			func(w *world, i int) result { return w.post("/v1/kyc/profile-sessions", member1, `{}`) }, 300},
		{capIdempotency, simulator.WithMaxIdempotencyKeys,
			func(w *world, i int) result {
				return w.postKey("/v1/deposits", member1, w.key(), fmt.Sprintf(`{"asset":"USDT","amount":"1","reference":"cap-%d"}`, i))
			},
			func(w *world, i int) result {
				return w.postKey("/v1/deposits", member1, w.key(), `{"asset":"USDT","amount":"1","reference":"cap-next"}`)
			}, 86400},
		{capChallenges, simulator.WithMaxStepUpChallenges,
			func(w *world, i int) result {
				return w.post("/v1/qrpay/payments", member1, `{"code_value":"`+w.qr+`"}`)
			},
			func(w *world, i int) result {
				return w.post("/v1/qrpay/payments", member1, `{"code_value":"`+w.qr+`"}`)
			}, 300},
	}
	for _, r := range rows {
		t.Run(r.which.option, func(t *testing.T) {
			t.Parallel()
			// The world's fixture adds entries of its own: the cap leaves
			// room for them and for 3 more.
			const room = 3
			probe := newWorld(t)
			limit := r.which.count(probe.sim.Stats()) + room
			w := newWorld(t, r.opt(limit))
			if st := w.sim.Stats(); r.which.cap(st) != limit {
				t.Fatalf("Stats cap %d, want %d", r.which.cap(st), limit)
			}
			for i := range room {
				if res := r.fill(w, i); res.status/100 != 2 && res.code() != "step_up_required" {
					t.Fatalf("entry %d: %v", i, res)
				}
			}
			st := w.sim.Stats()
			if r.which.count(st) != limit {
				t.Fatalf("store holds %d, want its cap %d", r.which.count(st), limit)
			}
			before := fingerprint(t, w.sim)
			wantStoreFull(t, w, r.next(w, room), r.retry, before, r.which)
			// GET /_sim/stats shows the fill: size and cap.
			got := w.c.mustControl("GET", "/_sim/stats", nil).body
			name := map[string]string{"nonce": "nonces", "idempotency": "idempotency_records", "step-up challenge": "step_up_challenges"}[r.which.store]
			if got[name] != float64(limit) || got[name+"_cap"] != float64(limit) {
				t.Errorf("GET /_sim/stats %s %v, %s_cap %v; want both %d", name, got[name], name, got[name+"_cap"], limit)
			}
		})
	}
}

// TestStoreCapIsConfiguration: the cap is configuration, not state. A data
// directory filled to its nonce cap of 2 and opened again with a cap of 10
// serves the write the first refused; opened with none it has the default.
// Every restart replays the whole log (no snapshots), the refusal
// included: it stays a refusal (the journal keeps it), and the recording
// of the directory replays to the same digest.
func TestStoreCapIsConfiguration(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	open := func(opts ...simulator.Option) (*simulator.Simulator, *raw) {
		t.Helper()
		sim, err := simulator.New(append([]simulator.Option{simulator.WithDataDir(dir), simulator.WithSnapshotEvery(0), simulator.WithDiagnostics(&strings.Builder{})}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		c := &raw{t: t, sim: sim, hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, creds: sim.Credentials()}
		return sim, c
	}
	deposit := func(c *raw, tok, ref string) result {
		return c.write(tok, "POST", "/v1/deposits", member1, uuid.NewString(), depositBody(ref, "1"))
	}
	refusals := func(sim *simulator.Simulator) int {
		n := 0
		for _, r := range sim.Requests.List() {
			if r.Code == "service_unavailable" {
				n++
			}
		}
		return n
	}

	sim, c := open(simulator.WithMaxNonces(2))
	tok := c.token()
	wantStatus(t, deposit(c, tok, "a"), http.StatusCreated)
	wantStatus(t, deposit(c, tok, "b"), http.StatusCreated)
	refused := deposit(c, tok, "c")
	wantCode(t, refused, 400, "service_unavailable")
	wantCapNamed(t, refused, capNonces, 2, 300)
	digest := mustDigest(t, sim)
	sim.Close()

	sim, c = open(simulator.WithMaxNonces(10))
	c.nonce.Store(100) // past the first client's nonces
	if got := mustDigest(t, sim); got != digest {
		t.Errorf("digest after the restart %s, before %s", got, digest)
	}
	if st := sim.Stats(); st.Nonces != 2 || st.NoncesCap != 10 {
		t.Errorf("after the restart with -max-nonces 10: nonces %d/%d, want 2/10", st.Nonces, st.NoncesCap)
	}
	if n := refusals(sim); n != 1 {
		t.Errorf("%d refusals in the journal after the restart, want the one refused", n)
	}
	wantStatus(t, deposit(c, tok, "c"), http.StatusCreated)
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	digest = mustDigest(t, sim)
	sim.Close()
	rp, err := simulator.New(simulator.WithRecording(rec))
	if err != nil {
		t.Fatal(err)
	}
	if got := mustDigest(t, rp); got != digest {
		t.Errorf("digest of the recording's replay %s, of the directory %s", got, digest)
	}
	if n := refusals(rp); n != 1 {
		t.Errorf("%d refusals in the replay's journal, want 1", n)
	}
	rp.Close()

	sim, _ = open()
	defer sim.Close()
	if got := mustDigest(t, sim); got != digest {
		t.Errorf("digest after the second restart %s, before %s", got, digest)
	}
	if st := sim.Stats(); st.Nonces != 3 || st.NoncesCap != simulator.DefaultMaxNonces {
		t.Errorf("after a restart without the option: nonces %d/%d, want 3/%d", st.Nonces, st.NoncesCap, simulator.DefaultMaxNonces)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}
