package simulator_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
)

// storeFull checks the refusal of a full store: 400 service_unavailable,
// Retry-After of retry seconds, the envelope, a message naming the store,
// its cap and the flag and option that raise it, and nothing changed.
func wantStoreFull(t *testing.T, w *world, r result, retry int, before string, which capOf) {
	t.Helper()
	wantCode(t, r, 400, "service_unavailable")
	if got := r.header.Get("Retry-After"); got != strconv.Itoa(retry) {
		t.Errorf("Retry-After %q, want %d", got, retry)
	}
	wantCapNamed(t, r, which, which.cap(w.sim.Stats()), retry)
	unchanged(t, w.sim, before)
}

// TestFullStoresFailClosed fills each bounded store of the simulator (with
// its cap lowered) and checks it fails closed: nothing inside its window is
// forgotten (a consumed nonce stays refused, a key keeps its result and
// never executes twice, a challenge stays usable, a memoised quote is
// reused), a request that would add an entry is refused before anything
// executes, with service_unavailable and Retry-After, and is not stored
// under its key; once the window passes, the store takes entries again.
func TestFullStoresFailClosed(t *testing.T) {
	t.Parallel()
	t.Run("nonces", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		simulator.SetStoreCaps(w.sim, 3+int(w.sim.Stats().Nonces), 0, 0)
		first := w.c.nonce.Load() + 1
		for i := 0; i < 3; i++ {
			wantStatus(t, w.post("/v1/kyc/profile-sessions", member1, `{}`), http.StatusCreated)
		}
		before := fingerprint(t, w.sim)
		key := w.key()
		wantStoreFull(t, w, w.postKey("/v1/deposits", member1, key, depBody), 300, before, capNonces)
		// The first nonce is still remembered: reused, it is refused.
		reuse := w.keyedSend("/v1/deposits", member1, w.key(), depBody, func(h http.Header) {
			nonce := "nonce-" + strconv.FormatInt(first, 10)
			h.Set("X-Nonce", nonce)
			h.Set("X-Signature", sign(w.c.creds.SigningKey, "POST", "/v1/deposits", h.Get("X-Timestamp"), nonce, []byte(depBody)))
		})
		wantCode(t, reuse, 401, "nonce_reused")
		wantStatus(t, w.c.get(w.tok, "/v1/assets", ""), http.StatusOK) // reads need no nonce
		w.sim.Clock.Advance(5 * time.Minute)
		r := w.postKey("/v1/deposits", member1, key, depBody)
		if r.status != http.StatusCreated || r.header.Get("X-Idempotent-Replay") != "" {
			t.Fatalf("after the window, the refused request's key: %v", r)
		}
	})
	t.Run("idempotency records", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		simulator.SetStoreCaps(w.sim, 0, 3+w.sim.Stats().IdempotencyRecords, 0)
		k1 := w.key()
		wantStatus(t, w.postKey("/v1/deposits", member1, k1, depBody), http.StatusCreated)
		for _, ref := range []string{"b", "c"} {
			wantStatus(t, w.post("/v1/deposits", member1, `{"asset":"USDT","amount":"1","reference":"`+ref+`"}`), http.StatusCreated)
		}
		before := fingerprint(t, w.sim)
		k4, body4 := w.key(), `{"asset":"USDT","amount":"1","reference":"d"}`
		wantStoreFull(t, w, w.postKey("/v1/deposits", member1, k4, body4), 86400, before, capIdempotency)
		// The first key keeps its result: replayed, and never executed
		// again with another body.
		r := w.postKey("/v1/deposits", member1, k1, depBody)
		if r.status != http.StatusCreated || r.header.Get("X-Idempotent-Replay") != "true" {
			t.Fatalf("the first key after the store filled: %v", r)
		}
		wantCode(t, w.postKey("/v1/deposits", member1, k1, `{"asset":"USDT","amount":"99","reference":"e"}`), 409, "idempotency_key_reused")
		unchanged(t, w.sim, before)
		// Writes without a key are still served.
		wantStatus(t, w.post("/v1/cards/"+w.cardID+"/freeze", member1, `{}`), http.StatusOK)
		w.sim.Clock.Advance(24 * time.Hour)
		w.tok = w.c.token()
		r = w.postKey("/v1/deposits", member1, k4, body4)
		if r.status != http.StatusCreated || r.header.Get("X-Idempotent-Replay") != "" {
			t.Fatalf("after the window, the refused request's key: %v", r)
		}
	})
	t.Run("step-up challenges", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		simulator.SetStoreCaps(w.sim, 0, 0, 2)
		body := `{"code_value":"` + w.qr + `"}`
		k1 := w.key()
		ch1 := w.stepUp(w.postKey("/v1/qrpay/payments", member1, k1, body))
		wantCode(t, w.post("/v1/qrpay/payments", member1, body), 400, "step_up_required")
		if n := w.sim.Stats().StepUpChallenges; n != 2 {
			t.Fatalf("%d challenges, want 2", n)
		}
		before := fingerprint(t, w.sim)
		k3 := w.key()
		wantStoreFull(t, w, w.postKey("/v1/qrpay/payments", member1, k3, body), 300, before, capChallenges)
		// A completed challenge is still usable.
		wantStatus(t, w.keyedSend("/v1/qrpay/payments", member1, k1, body, withStepUp(ch1)), http.StatusCreated)
		w.sim.Clock.Advance(5 * time.Minute)
		r := w.postKey("/v1/qrpay/payments", member1, k3, body)
		wantCode(t, r, 400, "step_up_required")
		if r.header.Get("X-Idempotent-Replay") != "" {
			t.Fatal("the refusal of a full store was stored under its key")
		}
		if n := w.sim.Stats().StepUpChallenges; n != 1 {
			t.Fatalf("%d challenges after the window, want the new one only", n)
		}
	})
	t.Run("QR quote memo", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		body := `{"code_value":"` + w.qr + `"}`
		wantStatus(t, w.post("/v1/qrpay/quotes", member1, body), http.StatusOK)
		calls := w.sim.QRPay.UpstreamCalls().Quotes
		// Other members' quotes fill the memo meanwhile.
		for i := 0; i < 20; i++ {
			m := w.member("memo-"+strconv.Itoa(i), 1, "100")
			wantStatus(t, w.post("/v1/qrpay/quotes", m, body), http.StatusOK)
		}
		w.sim.Clock.Advance(59 * time.Second)
		wantStatus(t, w.post("/v1/qrpay/quotes", member1, body), http.StatusOK)
		if got := w.sim.QRPay.UpstreamCalls().Quotes; got != calls+20 {
			t.Fatalf("upstream quote calls %d, want %d: the memo forgot inside its 60 s", got, calls+20)
		}
		if n := w.sim.Stats().QRQuoteMemo; n != 21 {
			t.Fatalf("memo holds %d, want 21", n)
		}
		w.sim.Clock.Advance(time.Second)
		wantStatus(t, w.c.get(w.tok, "/v1/assets", ""), http.StatusOK) // any request sweeps
		if n := w.sim.Stats().QRQuoteMemo; n != 0 {
			t.Fatalf("memo holds %d after 60 s, want 0", n)
		}
		wantStatus(t, w.post("/v1/qrpay/quotes", member1, body), http.StatusOK)
		if got := w.sim.QRPay.UpstreamCalls().Quotes; got != calls+21 {
			t.Fatalf("upstream quote calls %d, want a new one after 60 s", got)
		}
	})
	t.Run("token exchange window and tokens", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t) // one exchange already
		for i := 0; i < 19; i++ {
			wantStatus(t, w.c.exchangeToken(w.c.creds.ClientID, w.c.creds.APIKey), http.StatusOK)
		}
		for _, wait := range []time.Duration{0, 59 * time.Second} {
			w.sim.Clock.Advance(wait)
			r := w.c.exchangeToken(w.c.creds.ClientID, w.c.creds.APIKey)
			wantCode(t, r, 429, "rate_limited")
		}
		if n := w.sim.Stats().Tokens; n != 20 {
			t.Fatalf("%d tokens live, want 20: the quota bounds them", n)
		}
		w.sim.Clock.Advance(time.Second)
		wantStatus(t, w.c.exchangeToken(w.c.creds.ClientID, w.c.creds.APIKey), http.StatusOK)
	})
	t.Run("QR quote quota window", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		body := `{"code_value":"` + w.qr + `"}`
		for i := 0; i < 30; i++ {
			wantStatus(t, w.post("/v1/qrpay/quotes", member1, body), http.StatusOK)
		}
		for _, wait := range []time.Duration{0, 59 * time.Second} {
			w.sim.Clock.Advance(wait)
			wantCode(t, w.post("/v1/qrpay/quotes", member1, body), 429, "rate_limited")
		}
		w.sim.Clock.Advance(time.Second)
		wantStatus(t, w.post("/v1/qrpay/quotes", member1, body), http.StatusOK)
	})
	t.Run("request journal", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		simulator.SetJournalCapacity(w.sim, 5)
		for i := 0; i < 12; i++ {
			wantStatus(t, w.c.get(w.tok, "/v1/assets", ""), http.StatusOK)
		}
		reqs := w.sim.Requests.List()
		if len(reqs) != 5 || reqs[4].Seq != w.sim.Stats().Requests || reqs[0].Seq != reqs[4].Seq-4 {
			t.Fatalf("journal %d entries, seqs %d..%d; want the newest 5", len(reqs), reqs[0].Seq, reqs[len(reqs)-1].Seq)
		}
	})
}
