package simulator_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// flakyReceiver is a webhook endpoint that refuses its first n deliveries.
type flakyReceiver struct {
	srv     *httptest.Server
	refuse  atomic.Int64
	served  atomic.Int64
	refused atomic.Int64
}

func newFlakyReceiver(t *testing.T, refuse int) *flakyReceiver {
	rc := &flakyReceiver{}
	rc.refuse.Store(int64(refuse))
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.served.Add(1)
		if rc.refuse.Add(-1) >= 0 {
			rc.refused.Add(1)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// scenario drives every kind of input through e: business requests over
// the SDK and raw HTTP (with faults that drop, fail and delay them, a
// delayed request interleaved with others), control requests over HTTP,
// Go control calls, clock advances that run timers and ones that run
// nothing, and webhook flushes against a flakyReceiver that refuses some
// deliveries.
func scenario(t *testing.T, e *edge) {
	t.Helper()
	ctx, sim := e.ctx, e.sim
	rcv := newFlakyReceiver(t, 3)
	if _, _, err := sim.Webhooks.AddEndpoint(rcv.srv.URL); err != nil {
		t.Fatal(err)
	}
	// Members, by Go and over HTTP.
	if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 2, Balances: map[string]string{"USDT": "5000"}}); err != nil {
		t.Fatal(err)
	}
	e.raw.mustControl("POST", "/_sim/members", map[string]any{"external_member_id": "member-3", "kyc_level": 1, "balances": map[string]string{"USDC": "70"}})
	// Deposits, one through a drop_after fault (executed, answer lost,
	// the SDK's resend replays it) and one through a 502.
	if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter}); err != nil {
		t.Fatal(err)
	}
	for i, ref := range []string{"dep-a", "dep-b"} {
		if _, err := e.c.Deposits.Create(ctx, "member-2", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("10", 6), Reference: ref}); err != nil {
			t.Fatalf("deposit %d: %v", i, err)
		}
		if i == 0 {
			e.raw.mustControl("POST", "/_sim/faults", map[string]any{"path": "/v1/deposits", "kind": "error", "status": 502})
		}
	}
	// A random fault drawn from the seeded generator.
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/assets", Kind: simulator.FaultError, Status: 500, OneIn: 2, Count: 0}); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		_, _ = e.c.Assets(ctx)
	}
	if err := sim.Faults.Clear(); err != nil {
		t.Fatal(err)
	}
	// A delayed request interleaved with others: a deposit waits (the lock
	// released) while another deposit, its own resend and a Go call run.
	hold, held := make(chan struct{}), make(chan string, 1)
	if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDelay, Hold: hold, Held: held}); err != nil {
		t.Fatal(err)
	}
	key := uuid.NewString()
	params := deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("3", 6), Reference: "dep-held"}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := e.c.Deposits.Create(ctx, "member-2", params, mwallet.WithIdempotencyKey(key), mwallet.WithMaxAttempts(1)); err != nil {
			t.Errorf("held deposit: %v", err)
		}
	}()
	<-held
	_, err := e.c.Deposits.Create(ctx, "member-2", params, mwallet.WithIdempotencyKey(key), mwallet.WithMaxAttempts(1))
	simtest.WantCode(t, err, mwallet.CodeIdempotencyInProgress)
	if _, err := e.c.Deposits.Create(ctx, "member-3", deposits.CreateParams{Asset: "USDC", Amount: money.MustParse("4", 6), Reference: "dep-c"}); err != nil {
		t.Fatal(err)
	}
	if err := sim.Merchant.TopUpPrepaid("USDT", "100"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	wg.Wait()
	// QR payments: outcomes by Go, by the control API and by a timer.
	o1, _, err := e.qrPay("member-2", thaiQR("100.00", "R1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.QRPay.Complete(o1.ID); err != nil {
		t.Fatal(err)
	}
	o2, _, err := e.qrPay("member-2", thaiQR("150.00", "R2"))
	if err != nil {
		t.Fatal(err)
	}
	e.mustAct("qrpay/orders/"+o2.ID+"/fail", nil)
	if err := sim.Outcomes.Set(simulator.CollectionQROrders, simulator.After(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.qrPay("member-2", thaiQR("300.00", "R3")); err != nil {
		t.Fatal(err)
	}
	sim.Clock.Advance(10 * time.Second) // runs nothing
	e.raw.mustControl("POST", "/_sim/clock", map[string]any{"advance_seconds": 25})
	// Cards: an application approved over HTTP, a top-up credited by Go, a
	// transaction.
	card := e.issue("member-2", "cpd_virtual_std", "")
	tp := e.topUp("member-2", card, "50")
	if err := sim.Cards.CreditTopUp(tp); err != nil {
		t.Fatal(err)
	}
	e.cardTx(card, "credit", "125")
	if err := sim.Cards.SetLimit("virtual", 7); err != nil {
		t.Fatal(err)
	}
	// A remittance dispatched and completed.
	rm, err := e.remit("member-2", "100.00", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Dispatch(rm.ID); err != nil {
		t.Fatal(err)
	}
	e.mustAct("remittances/"+rm.ID+"/complete", map[string]any{})
	// KYC and keys. The hosted screen's answer, kept under its key, holds a
	// link built from the simulator's address.
	if _, err := e.c.KYC.ProfileSession(ctx, "member-1"); err != nil {
		t.Fatal(err)
	}
	if err := sim.KYC.Update("member-3"); err != nil {
		t.Fatal(err)
	}
	if err := sim.KYC.Approve("member-3", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Keys.Add("key-2", "", "", simulator.KeySettings{Scopes: []string{"qrpay:read"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Events.EmitExtra("kyc.quick.compensated", "quick_kyc_binding", "x1", "member-3", "compensated", 2, map[string]any{"compensation_source": "admin"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Action("members/status", "member-3", []byte(`{"status":"frozen"}`)); err != nil {
		t.Fatal(err)
	}
	// Webhooks: a flush meets refusals, the clock brings the retries due,
	// a second flush over HTTP delivers them.
	// The refusals are wanted here: a *FlushError listing them is the
	// expected answer.
	var refused *simulator.FlushError
	if _, err := sim.Webhooks.Flush(ctx); err != nil && !errors.As(err, &refused) {
		t.Fatal(err)
	}
	sim.Clock.Advance(2 * time.Minute)
	e.raw.mustControl("POST", "/_sim/webhooks/flush", nil)
	if rcv.refused.Load() == 0 || rcv.served.Load() <= rcv.refused.Load() {
		t.Fatalf("the flakyReceiver refused %d of %d deliveries: want some of each", rcv.refused.Load(), rcv.served.Load())
	}
	// Reads change nothing a replay needs, but business reads are inputs.
	if _, err := e.c.Cards.Get(ctx, "member-2", card); err != nil {
		t.Fatal(err)
	}
	e.raw.mustControl("GET", "/_sim/state", nil)
	sim.Clock.Advance(3 * time.Second) // the recording's end line keeps it
}

// replayOf starts a simulator from sim's recording, closed when t ends.
func replayOf(t *testing.T, sim *simulator.Simulator) *simulator.Simulator {
	t.Helper()
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	// Through the file format, as an artifact travels.
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := simulator.ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != rec.Len() {
		t.Fatalf("read back %d inputs of %d", back.Len(), rec.Len())
	}
	return simtest.Start(t, simulator.WithRecording(back))
}

// sameState fails t unless a and b are in the same state: the digests of
// their whole state, and the full dumps of what the Go API shows.
func sameState(t *testing.T, a, b *simulator.Simulator) {
	t.Helper()
	if diff := cmp.Diff(a.State(), b.State()); diff != "" {
		t.Errorf("State (-live +replay):\n%s", diff)
	}
	if diff := cmp.Diff(a.LedgerEntries(), b.LedgerEntries(), cmp.Comparer(func(x, y money.Amount) bool { return x.Equal(y) && x.String() == y.String() })); diff != "" {
		t.Errorf("LedgerEntries (-live +replay):\n%s", diff)
	}
	if diff := cmp.Diff(a.Webhooks.Deliveries(), b.Webhooks.Deliveries()); diff != "" {
		t.Errorf("Deliveries (-live +replay):\n%s", diff)
	}
	if diff := cmp.Diff(a.Requests.List(), b.Requests.List()); diff != "" {
		t.Errorf("Requests (-live +replay):\n%s", diff)
	}
	if diff := cmp.Diff(a.Clock.Now(), b.Clock.Now()); diff != "" {
		t.Errorf("Clock (-live +replay):\n%s", diff)
	}
	da, err := a.Digest()
	if err != nil {
		t.Fatal(err)
	}
	db, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if da != db {
		t.Errorf("digest: live %s, replay %s", da, db)
		sameDump(t, a, b)
	}
}

// TestReplayReachesSameState replays a recording of every kind of input
// and compares the whole state.
func TestReplayReachesSameState(t *testing.T) {
	t.Parallel()
	e := newEdge(t)
	scenario(t, e)
	rp := replayOf(t, e.sim)
	sameState(t, e.sim, rp)
	// Both go on alike: the same inputs on each give the same state.
	for _, s := range []*simulator.Simulator{e.sim, rp} {
		if _, err := s.Members.Create(simulator.MemberSeed{ExternalID: "after", KYCLevel: 1, Balances: map[string]string{"USDT": "1"}}); err != nil {
			t.Fatal(err)
		}
		r := &raw{t: t, sim: s, hc: http.DefaultClient, creds: s.Credentials()}
		tok := r.token()
		wantStatus(t, r.write(tok, "POST", "/v1/deposits", "after", uuidN(77), depositBody("after-1", "2")), http.StatusCreated)
		s.Clock.Advance(time.Hour)
	}
	sameState(t, e.sim, rp)
	if !strings.HasPrefix(mustDigest(t, rp), "sha256:") {
		t.Error("digest format")
	}
}

func mustDigest(t *testing.T, s *simulator.Simulator) string {
	t.Helper()
	d, err := s.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameDump fails t with the lines where the state dumps of a and b differ.
func sameDump(t *testing.T, a, b *simulator.Simulator) {
	t.Helper()
	da, err := simulator.StateDump(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := simulator.StateDump(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(da, db); diff != "" {
		t.Errorf("state dump (-live +replay):\n%s", diff)
	}
}

// TestRecordingOverEveryServer takes the digest and the recording of a
// simulator served each way it can be (its own httptest server, HTTPS,
// HTTP/2, and a handler the caller serves), with webhook deliveries made
// so every lazily built part exists, and replays the recording to the same
// state: how a simulator is served is not state.
func TestRecordingOverEveryServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		start func(t *testing.T) *simulator.Simulator
	}{
		{"http", func(t *testing.T) *simulator.Simulator { return simtest.Start(t) }},
		{"https", func(t *testing.T) *simulator.Simulator { return simtest.Start(t, simulator.WithTLS()) }},
		{"h2", func(t *testing.T) *simulator.Simulator { return simtest.Start(t, simulator.WithHTTP2()) }},
		{"handler", func(t *testing.T) *simulator.Simulator {
			sim, err := simulator.NewHandler()
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(sim)
			t.Cleanup(func() { srv.Close(); sim.Close() })
			sim.SetBaseURL(srv.URL)
			return sim
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim := tc.start(t)
			rc := newFlakyReceiver(t, 0)
			if _, _, err := sim.Webhooks.AddEndpoint(rc.srv.URL); err != nil {
				t.Fatal(err)
			}
			_, err := sim.Client().Deposits.Create(context.Background(), simulator.DefaultMemberExternalID,
				deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "over-" + tc.name})
			if err != nil {
				t.Fatal(err)
			}
			if res := flush(t, sim); res.Succeeded == 0 || res.Failed != 0 {
				t.Fatalf("flush = %+v, want deliveries answered", res)
			}
			sameState(t, sim, replayOf(t, sim))
		})
	}
}
