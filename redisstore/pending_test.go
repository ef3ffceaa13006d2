package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/redisstore"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

func TestPendingStoreContract(t *testing.T) {
	t.Parallel()
	store, rdb := newStore(t, redisstore.Options{})
	pending := store.Pending()
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0).UTC()
	// Bodies are kept byte for byte, spacing included.
	body := []byte("{\"amount\": \"12.50\",\n \"code_value\":\"0002\"}")
	recs := []mwallet.PendingRequest{
		{Key: "33333333-3333-4333-8333-333333333333", ClientID: "c1", Method: "POST", Path: "/v1/remittances", Member: "m-1", Body: body, CreatedAt: t0.Add(2 * time.Second)},
		{Key: "11111111-1111-4111-8111-111111111111", ClientID: "c1", Method: "POST", Path: "/v1/qrpay/payments", Member: "m-2", StepUp: "ch_1", Body: body, CreatedAt: t0},
		{Key: "22222222-2222-4222-8222-222222222222", ClientID: "c1", Method: "POST", Path: "/v1/deposits", Query: "a=1", CreatedAt: t0.Add(time.Second)},
	}
	for _, r := range recs {
		if err := pending.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := pending.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []mwallet.PendingRequest{recs[1], recs[2], recs[0]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}
	if !bytes.Equal(got[2].Body, body) {
		t.Fatalf("body %q, want %q", got[2].Body, body)
	}
	// Put replaces the record of the same key.
	again := recs[0]
	again.StepUp = "ch_2"
	if err := pending.Put(ctx, again); err != nil {
		t.Fatal(err)
	}
	if err := pending.Delete(ctx, recs[1].Key); err != nil {
		t.Fatal(err)
	}
	if err := pending.Delete(ctx, "absent"); err != nil {
		t.Fatal(err)
	}
	got, _ = pending.List(ctx)
	if diff := cmp.Diff([]mwallet.PendingRequest{recs[2], again}, got); diff != "" {
		t.Fatalf("after replace and delete (-want +got):\n%s", diff)
	}
	if err := pending.Put(ctx, mwallet.PendingRequest{}); err == nil {
		t.Fatal("a record without a key was accepted")
	}
	// A damaged record is reported, not skipped.
	rdb.HSet(ctx, store.Prefix()+"pending", "bad", "{")
	if _, err := pending.List(ctx); err == nil {
		t.Fatal("a damaged record was skipped silently")
	}
}

// thaiCode is a dynamic PromptPay bill-payment code of amount THB.
func thaiCode(t *testing.T, amount string) string {
	t.Helper()
	s, err := emvqr.Build(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER1"},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: amount, Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A payment executes upstream, the connection drops before the answer and
// the instance dies. A new instance on the same Redis finds the request at
// start-up and resumes it: the service replays the order, the member pays
// once.
func TestCrashAfterPaymentResumesWithReplay(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	store, _ := newStore(t, redisstore.Options{})
	ctx := context.Background()
	fleet := []mwallet.Option{mwallet.WithTokenStore(store.Tokens()), mwallet.WithPendingStore(store.Pending())}
	crashed := sim.Client(fleet...)
	p := qrpay.PayParams{CodeValue: thaiCode(t, "250.00")}

	_, err := crashed.QRPay.Pay(ctx, member1, p, mwallet.WithMaxAttempts(1))
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("first Pay: %v, want step_up_required", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	availBefore, lockedBefore, err := sim.Members.Balance(member1, "USDT")
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: "/v1/qrpay/payments", Kind: simulator.FaultDropAfter}); err != nil {
		t.Fatal(err)
	}
	_, err = crashed.QRPay.Pay(ctx, member1, p, append(su.Options(), mwallet.WithMaxAttempts(1))...)
	var te *mwallet.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("Pay: %v, want a transport error (executed, answer lost)", err)
	}
	crashed = nil // the process dies here

	restarted := sim.Client(fleet...)
	list, err := restarted.PendingRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("pending at start-up: %v, want the payment", list)
	}
	rec := list[0]
	if rec.Key != su.IdempotencyKey || rec.Path != "/v1/qrpay/payments" || rec.Member != member1 || rec.StepUp != su.ChallengeID {
		t.Fatalf("pending %v, want key %s on /v1/qrpay/payments for %s with the challenge", rec, su.IdempotencyKey, member1)
	}
	var resumed struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	resp, err := restarted.Resume(ctx, rec, &resumed)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if !resp.Replayed || resp.StatusCode != http.StatusCreated || resp.IdempotencyKey != su.IdempotencyKey {
		t.Fatalf("Resume answered %+v, want the 201 replay", resp)
	}
	if left, _ := restarted.PendingRequests(ctx); len(left) != 0 {
		t.Fatalf("pending after resume: %v", left)
	}

	// Debited once: one order, one hold, one upstream notice.
	order, err := restarted.QRPay.Order(ctx, member1, resumed.ID)
	if err != nil {
		t.Fatal(err)
	}
	availAfter, lockedAfter, err := sim.Members.Balance(member1, "USDT")
	if err != nil {
		t.Fatal(err)
	}
	debited, _ := availBefore.Sub(availAfter)
	held, _ := lockedAfter.Sub(lockedBefore)
	if !debited.Equal(order.CustomerTotal) || !held.Equal(order.CustomerTotal) || order.CustomerTotal.Sign() <= 0 {
		t.Fatalf("available -%s locked +%s, want exactly one payment of %s", debited, held, order.CustomerTotal)
	}
	if n := sim.QRPay.UpstreamCalls().Notices; n != 1 {
		t.Fatalf("upstream notices = %d, want 1", n)
	}
	var replays, executed int
	for _, r := range requestsTo(sim, http.MethodPost, "/v1/qrpay/payments") {
		switch {
		case r.Replay:
			replays++
		case r.Status == http.StatusCreated || r.Dropped:
			executed++
		}
	}
	if executed != 1 || replays != 1 {
		t.Fatalf("payments executed %d, replayed %d; want 1 and 1", executed, replays)
	}
}

// The same with a deposit: credited once.
func TestCrashAfterDepositResumesWithReplay(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	store, _ := newStore(t, redisstore.Options{})
	ctx := context.Background()
	fleet := []mwallet.Option{mwallet.WithPendingStore(store.Pending())}
	crashed := sim.Client(fleet...)
	before, _, err := sim.Members.Balance(member1, "USDC")
	if err != nil {
		t.Fatal(err)
	}
	amount, err := money.Parse("25.5", 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: "/v1/deposits", Kind: simulator.FaultDropAfter}); err != nil {
		t.Fatal(err)
	}
	_, err = crashed.Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "USDC", Amount: amount, Reference: "order-7781"}, mwallet.WithMaxAttempts(1))
	if !errors.As(err, new(*mwallet.TransportError)) {
		t.Fatalf("Create: %v, want a transport error", err)
	}

	restarted := sim.Client(fleet...)
	list, err := restarted.PendingRequests(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("pending: %v %v", list, err)
	}
	resp, err := restarted.Resume(ctx, list[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Replayed || resp.StatusCode != http.StatusCreated {
		t.Fatalf("Resume answered %+v, want the replayed 201 of the first posting", resp)
	}
	after, _, err := sim.Members.Balance(member1, "USDC")
	if err != nil {
		t.Fatal(err)
	}
	credited, _ := after.Sub(before)
	if !credited.Equal(amount) {
		t.Fatalf("credited %s, want %s once", credited, amount)
	}
	if left, _ := restarted.PendingRequests(ctx); len(left) != 0 {
		t.Fatalf("pending after resume: %v", left)
	}
}

// Two instances start at once and both resume the same record: the deposit
// is credited once and both see its result.
func TestConcurrentResumesExecuteOnce(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	store, _ := newStore(t, redisstore.Options{})
	ctx := context.Background()
	fleet := []mwallet.Option{mwallet.WithTokenStore(store.Tokens()), mwallet.WithPendingStore(store.Pending())}
	before, _, err := sim.Members.Balance(member1, "USDT")
	if err != nil {
		t.Fatal(err)
	}
	amount, _ := money.Parse("3", 6)
	if err := sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: "/v1/deposits", Kind: simulator.FaultDropBefore}); err != nil {
		t.Fatal(err)
	}
	// Dropped before executing: the outcome is unknown to the client all
	// the same.
	_, err = sim.Client(fleet...).Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "USDT", Amount: amount, Reference: "order-42"}, mwallet.WithMaxAttempts(1))
	if !errors.As(err, new(*mwallet.TransportError)) {
		t.Fatalf("Create: %v", err)
	}
	a, b := sim.Client(fleet...), sim.Client(fleet...)
	list, err := a.PendingRequests(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("pending: %v %v", list, err)
	}
	type outcome struct {
		resp *mwallet.Response
		err  error
	}
	done := make(chan outcome, 2)
	for _, c := range []*mwclient.Client{a, b} {
		go func() {
			resp, err := c.Resume(ctx, list[0], nil)
			done <- outcome{resp, err}
		}()
	}
	replays := 0
	for range 2 {
		o := <-done
		if o.err != nil {
			t.Fatal(o.err)
		}
		if o.resp.Replayed {
			replays++
		}
	}
	after, _, err := sim.Members.Balance(member1, "USDT")
	if err != nil {
		t.Fatal(err)
	}
	credited, _ := after.Sub(before)
	if !credited.Equal(amount) || replays != 1 {
		t.Fatalf("credited %s with %d replays, want %s once and 1 replay", credited, replays, amount)
	}
}
