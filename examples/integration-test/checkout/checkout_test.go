package checkout_test

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite" // the orders' database: SQLite, a pure-Go driver

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/examples/integration-test/checkout"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/sqlstore"
)

const member = simulator.DefaultMemberExternalID

// harness is one isolated service under test: its own simulator, SQLite
// database, client and webhook receiver. Every test gets its own, so all
// run in parallel.
type harness struct {
	t       *testing.T
	sim     *simulator.Simulator
	db      *sql.DB
	svc     *checkout.Service
	maxWait time.Duration
}

// openDB opens the service's database: a SQLite file of the test's own,
// with a busy timeout and WAL, as package sqlstore recommends.
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "checkout.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newHarness starts a simulator and wires the service to it. The end user's
// step-up is played by the simulator; the polling fallback sleeps on the
// simulator clock (never on the wall clock) and gives up after maxWait of
// simulated time. Every test ends by checking that the books balance.
func newHarness(t *testing.T, maxWait time.Duration, opts ...simulator.Option) *harness {
	t.Helper()
	sim := simtest.Start(t, opts...) // checks the books and closes it when t ends
	h := &harness{t: t, sim: sim, db: openDB(t), maxWait: maxWait}
	h.svc = h.service()
	return h
}

// service is the service as one process starts it: its own client on the
// shared database (a restarted process is a second call).
func (h *harness) service() *checkout.Service {
	h.t.Helper()
	store, err := checkout.OpenStore(context.Background(), h.db, sqlstore.SQLite)
	if err != nil {
		h.t.Fatal(err)
	}
	var waited time.Duration
	return &checkout.Service{
		Client: h.sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond),
			mwallet.WithPendingStore(store.SDK().Pending()), mwallet.WithTokenStore(store.SDK().Tokens())),
		Store: store,
		StepUp: func(_ context.Context, _ string, su *mwallet.StepUp) error {
			return h.sim.StepUp.Complete(su.ChallengeID) // the end user finishes the hosted screen
		},
		Wait: []qrpay.WaitOption{qrpay.WithSleep(func(ctx context.Context, d time.Duration) error {
			if waited += d; waited > h.maxWait {
				return context.DeadlineExceeded
			}
			h.sim.Clock.Advance(d)
			return ctx.Err()
		})},
	}
}

// order reads an order from the service's database.
func (h *harness) order(id string) checkout.Order {
	h.t.Helper()
	o, ok := h.svc.Store.Get(context.Background(), id)
	if !ok {
		h.t.Fatalf("order %s not found", id)
	}
	return o
}

// receiver serves the service's webhook handler and registers it with the
// simulator.
func (h *harness) receiver(t *testing.T) {
	t.Helper()
	srv := httptest.NewServer(h.svc.WebhookHandler(h.sim.Credentials().WebhookSecretValue(),
		h.sim.Clock.Now)) // the simulator signs with its clock
	t.Cleanup(srv.Close)
	if _, _, err := h.sim.Webhooks.AddEndpoint(srv.URL, "qrpay.order.completed", "qrpay.order.failed", "qrpay.order.refunded"); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) flush(t *testing.T) {
	t.Helper()
	res, err := h.sim.Webhooks.Flush(context.Background())
	if err != nil || res.Failed != 0 {
		t.Fatalf("flush: %+v %v", res, err)
	}
}

func (h *harness) balances(member string) (available, locked money.Amount) {
	h.t.Helper()
	available, locked, err := h.sim.Members.Balance(member, "USDT")
	if err != nil {
		h.t.Fatal(err)
	}
	return available, locked
}

// code is a 250.00 THB PromptPay bill; the upstream prices it at 7.308109
// USDT for the member.
func code(ref string) string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
			Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: ref}}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
}

var (
	usdt         = func(s string) money.Amount { return money.MustParse(s, 6) }
	amountEqual  = cmp.Comparer(money.Amount.Equal)
	startBalance = usdt("1000")
	total        = usdt("7.308109")
	afterPayment = usdt("992.691891") // startBalance - total
)

// The upstream's answer decides the order; the test drives it through the
// simulator and moves the simulated clock instead of sleeping.
func TestPayQROutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		outcome       simulator.OutcomeMode
		maxWait       time.Duration
		wantStatus    checkout.Status
		wantAvailable money.Amount
		wantLocked    money.Amount
	}{
		{"upstream answers at once", simulator.Immediate(), time.Minute,
			checkout.Status(qrpay.StatusCompleted), afterPayment, usdt("0")},
		{"upstream answers after 90 seconds", simulator.After(90 * time.Second), 5 * time.Minute,
			checkout.Status(qrpay.StatusCompleted), afterPayment, usdt("0")},
		// No answer within the wait: the order stays processing and the funds
		// stay held. The service must not unlock them or pay again.
		{"upstream silent", simulator.Manual(), 5 * time.Minute,
			checkout.Status(qrpay.StatusProcessing), afterPayment, total},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tt.maxWait)
			if err := h.sim.Outcomes.Set(simulator.CollectionQROrders, tt.outcome); err != nil {
				t.Fatal(err)
			}

			o, err := h.svc.PayQR(context.Background(), member, code("T1"))
			if err != nil {
				t.Fatalf("PayQR: %v", err)
			}
			if o.Status != tt.wantStatus || o.PaymentID == "" {
				t.Fatalf("order = %+v, want status %s with a payment", o, tt.wantStatus)
			}
			if got := o.AwaitingOutcome(); got != (tt.wantStatus == checkout.Status(qrpay.StatusProcessing)) {
				t.Errorf("AwaitingOutcome = %v", got)
			}
			avail, locked := h.balances(member)
			if diff := cmp.Diff([]money.Amount{tt.wantAvailable, tt.wantLocked}, []money.Amount{avail, locked}, amountEqual); diff != "" {
				t.Errorf("balances (available, locked) (-want +got):\n%s", diff)
			}
		})
	}
}

// An upstream failure, reported by webhook after the polling fallback gave
// up, returns the full debit.
func TestPayQRUpstreamFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 10*time.Second)
	h.receiver(t)

	o, err := h.svc.PayQR(context.Background(), member, code("T2"))
	if err != nil || !o.AwaitingOutcome() {
		t.Fatalf("PayQR = %+v, %v; want an order awaiting its outcome", o, err)
	}
	if err := h.sim.QRPay.Fail(o.PaymentID); err != nil {
		t.Fatal(err)
	}
	h.flush(t)
	if got := h.order(o.ID); got.Status != checkout.Status(qrpay.StatusFailed) {
		t.Fatalf("status = %s, want failed", got.Status)
	}
	avail, locked := h.balances(member)
	if !avail.Equal(startBalance) || locked.Sign() != 0 {
		t.Errorf("balances = %s available, %s locked; want everything returned", avail, locked)
	}
}

// The connection drops after the service executed the payment: the SDK
// resends with the same idempotency key and gets the stored result. One
// order, one hold, one upstream notice.
func TestPayQRDroppedAnswerIsReplayed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, time.Minute)
	if err := h.sim.Outcomes.Set(simulator.CollectionQROrders, simulator.Immediate()); err != nil {
		t.Fatal(err)
	}
	stepUp := h.svc.StepUp
	h.svc.StepUp = func(ctx context.Context, m string, su *mwallet.StepUp) error {
		// The resend after step-up is the call that executes: drop its answer.
		if err := h.sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/qrpay/payments", Kind: simulator.FaultDropAfter}); err != nil {
			return err
		}
		return stepUp(ctx, m, su)
	}

	o, err := h.svc.PayQR(context.Background(), member, code("T3"))
	if err != nil {
		t.Fatalf("PayQR: %v", err)
	}
	if !o.Paid() {
		t.Fatalf("status = %s, want completed", o.Status)
	}
	type call struct {
		Key             string
		Status          int
		Dropped, Replay bool
	}
	var got []call
	for _, r := range h.sim.Requests.List() {
		if r.Path == "/v1/qrpay/payments" {
			got = append(got, call{r.IdempotencyKey, r.Status, r.Dropped, r.Replay})
		}
	}
	k := o.IdempotencyKey
	want := []call{
		{k, 400, false, false}, // step_up_required
		{k, 0, true, false},    // executed, answer lost
		{k, 201, false, true},  // the same key replays the stored 201
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payment calls (-want +got):\n%s", diff)
	}
	if n := h.sim.QRPay.UpstreamCalls().Notices; n != 1 {
		t.Errorf("upstream notices = %d, want 1", n)
	}
	avail, _ := h.balances(member)
	if !avail.Equal(afterPayment) {
		t.Errorf("available = %s, want one debit of %s", avail, total)
	}
}

// Webhooks settle an order the polling fallback left processing, and later
// move it to refunded; duplicates and older deliveries change nothing.
func TestWebhooksMoveOrderForward(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 10*time.Second)
	h.receiver(t)

	o, err := h.svc.PayQR(context.Background(), member, code("T4"))
	if err != nil || !o.AwaitingOutcome() {
		t.Fatalf("PayQR = %+v, %v; want an order awaiting its outcome", o, err)
	}

	steps := []struct {
		name        string
		drive       func() error
		wantStatus  qrpay.Status
		wantVersion int64
	}{
		{"completed", func() error { return h.sim.QRPay.Complete(o.PaymentID) }, qrpay.StatusCompleted, 3},
		{"late processing event dropped", func() error {
			_, err := h.sim.Events.Emit("qrpay.order.completed", "qrpay_order", o.PaymentID[len("qrp_"):], member, "processing", 2)
			return err
		}, qrpay.StatusCompleted, 3},
		{"refunded", func() error { return h.sim.QRPay.Refund(o.PaymentID) }, qrpay.StatusRefunded, 4},
		// A status this service does not know, with a newer version: stored
		// verbatim (ordered by its version), flagged, never defaulted.
		{"unknown status kept verbatim", func() error {
			_, err := h.sim.Events.Emit("qrpay.order.refunded", "qrpay_order", o.PaymentID[len("qrp_"):], member, "refund_reversed", 5)
			return err
		}, qrpay.Status("refund_reversed"), 5},
	}
	for _, st := range steps {
		if err := st.drive(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		h.flush(t)
		got := h.order(o.ID)
		if got.Status != checkout.Status(st.wantStatus) || got.StatusVersion != st.wantVersion {
			t.Errorf("%s: order = %s v%d, want %s v%d", st.name, got.Status, got.StatusVersion, st.wantStatus, st.wantVersion)
		}
	}
	if got := h.order(o.ID); !got.Unknown() {
		t.Errorf("order %+v: an unknown status is not flagged", got)
	}
	avail, locked := h.balances(member)
	if !avail.Equal(startBalance) || locked.Sign() != 0 {
		t.Errorf("after the refund: %s available, %s locked; want %s and 0", avail, locked, startBalance)
	}
}

// A webhook whose delivery failed is retried on the service's schedule:
// the test advances the clock by the first retry delay and flushes again.
func TestWebhookRetriedAfterReceiverOutage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 10*time.Second)
	o, err := h.svc.PayQR(context.Background(), member, code("T5"))
	if err != nil {
		t.Fatal(err)
	}
	// The receiver answers 503 while it is down.
	var up atomic.Bool
	handler := h.svc.WebhookHandler(h.sim.Credentials().WebhookSecretValue(), h.sim.Clock.Now)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	if _, _, err := h.sim.Webhooks.AddEndpoint(srv.URL, "qrpay.order.completed"); err != nil {
		t.Fatal(err)
	}
	if err := h.sim.QRPay.Complete(o.PaymentID); err != nil {
		t.Fatal(err)
	}
	if res, _ := h.sim.Webhooks.Flush(context.Background()); res.Failed != 1 {
		t.Fatalf("first attempt: %+v, want one failure", res)
	}
	if got := h.order(o.ID); !got.AwaitingOutcome() {
		t.Fatalf("order = %s before any delivery succeeded", got.Status)
	}

	up.Store(true)
	h.sim.Clock.Advance(time.Minute) // the first retry is due 1 minute after the failure
	h.flush(t)
	if got := h.order(o.ID); !got.Paid() {
		t.Errorf("order = %s, want completed from the retried delivery", got.Status)
	}
}

// Failures before anything is held leave no trace: the order is rejected
// with the service's code and the balance is untouched.
func TestPayQRRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     []simulator.Option
		member   string
		stepUp   checkout.StepUpFunc
		wantCode mwallet.Code
		wantErr  error
	}{
		{
			name:    "end user abandons step-up",
			member:  member,
			stepUp:  func(context.Context, string, *mwallet.StepUp) error { return errors.New("closed the screen") },
			wantErr: checkout.ErrStepUpAbandoned,
		},
		{
			// Business failures of payments currently come back as 500
			// api_error; the SDK retries once with the same key (which replays
			// the failure), then reports it.
			name:     "insufficient balance",
			opts:     []simulator.Option{simulator.WithMember(simulator.MemberSeed{ExternalID: "poor", KYCLevel: 1, Balances: map[string]string{"USDT": "1"}})},
			member:   "poor",
			wantCode: mwallet.CodeAPIError,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, time.Minute, tt.opts...)
			if tt.stepUp != nil {
				h.svc.StepUp = tt.stepUp
			}
			before, _ := h.balances(tt.member)

			o, err := h.svc.PayQR(context.Background(), tt.member, code("T6"))
			if err == nil {
				t.Fatal("PayQR succeeded, want an error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if o.Status != checkout.Rejected || o.RejectCode != tt.wantCode || o.PaymentID != "" {
				t.Errorf("order = %+v, want rejected with code %q and no payment", o, tt.wantCode)
			}
			avail, locked := h.balances(tt.member)
			if !avail.Equal(before) || locked.Sign() != 0 {
				t.Errorf("balances = %s available, %s locked; want %s untouched", avail, locked, before)
			}
		})
	}
}

// The process dies after the order and its intent to pay were committed and
// the payment was sent, before it read the answer: executed and the answer
// lost (drop_after), or never executed (drop_before). The restarted process
// finds the intent in its own database and Recover sends it again with the
// same key: the service replays the payment that had executed, and executes
// the other once. One order, one hold, one upstream notice either way.
func TestCrashBetweenSendAndAnswerIsRecovered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind     simulator.FaultKind
		replayed bool
	}{{simulator.FaultDropAfter, true}, {simulator.FaultDropBefore, false}} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, time.Minute)
			stepUp := h.svc.StepUp
			h.svc.StepUp = func(ctx context.Context, m string, su *mwallet.StepUp) error {
				// Every attempt of the resend after step-up loses its answer:
				// the process gives up (or dies) without knowing the outcome.
				if err := h.sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/qrpay/payments", Kind: tc.kind, Count: 10}); err != nil {
					return err
				}
				return stepUp(ctx, m, su)
			}
			o, err := h.svc.PayQR(context.Background(), member, code("T7"))
			var te *mwallet.TransportError
			if !errors.As(err, &te) || o.Status != checkout.Created || o.PaymentID != "" {
				t.Fatalf("PayQR = %+v, %v; want the order created, no payment id, a transport error", o, err)
			}
			if err := h.sim.Faults.Clear(); err != nil {
				t.Fatal(err)
			}

			restarted := h.service() // a new process on the same database
			recovered, err := restarted.Recover(context.Background())
			if err != nil || len(recovered) != 1 {
				t.Fatalf("Recover = %+v, %v; want the one order", recovered, err)
			}
			got := h.order(o.ID)
			if got.PaymentID == "" || !got.AwaitingOutcome() || got.IdempotencyKey != o.IdempotencyKey {
				t.Fatalf("order after Recover = %+v; want its payment, processing", got)
			}
			var replays, executed int
			for _, r := range h.sim.Requests.List() {
				if r.Path == "/v1/qrpay/payments" && r.IdempotencyKey == o.IdempotencyKey && r.Status == 201 {
					if r.Replay {
						replays++
					} else {
						executed++
					}
				}
			}
			wantReplays := 0
			if tc.replayed {
				wantReplays = 1
			}
			if replays != wantReplays || executed != 1-wantReplays {
				t.Errorf("answered 201: %d replays, %d executions; want %d and %d", replays, executed, wantReplays, 1-wantReplays)
			}
			if n := h.sim.QRPay.UpstreamCalls().Notices; n != 1 {
				t.Errorf("upstream notices = %d, want 1", n)
			}
			avail, locked := h.balances(member)
			if !avail.Equal(afterPayment) || !locked.Equal(total) {
				t.Errorf("balances = %s available, %s locked; want one hold of %s", avail, locked, total)
			}
			if again, err := restarted.Recover(context.Background()); err != nil || len(again) != 0 {
				t.Errorf("a second Recover = %+v, %v; want nothing left", again, err)
			}
		})
	}
}
