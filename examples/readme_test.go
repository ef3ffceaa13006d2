package examples_test

// The code blocks of the top-level README.md are copies of the functions in
// this file: TestREADMESnippets fails when a block and its function differ,
// so every snippet a reader copies compiles, and the ones with an Output
// comment run on every go test.

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

func TestDepositIsCredited(t *testing.T) {
	t.Parallel()
	sim, client := simtest.New(t) // its own simulator and a *mwclient.Client wired to it

	amount := money.MustParse("25", 6) // USDT has ledger_scale 6
	dep, err := client.Deposits.Create(context.Background(), "member-1",
		deposits.CreateParams{Asset: "USDT", Amount: amount, Reference: "bank-transfer-42"})
	if err != nil {
		t.Fatal(err)
	}
	if dep.Status != deposits.StatusCredited {
		t.Errorf("status = %s, want credited", dep.Status)
	}
	available, _, err := sim.Members.Balance("member-1", "USDT")
	if err != nil || !available.Equal(money.MustParse("1025", 6)) {
		t.Errorf("available = %s (%v), want 1025", available, err)
	}
	// When the test ends, simtest checks that the books balance (nothing
	// created or lost) and closes the simulator.
}

func Example_newClient() {
	client, err := mwclient.New("https://sandbox.example.com", mwallet.Credentials{
		ClientID:   os.Getenv("MWALLET_CLIENT_ID"),
		APIKey:     mwallet.Secret(os.Getenv("MWALLET_API_KEY")),     // token exchange only
		SigningKey: mwallet.Secret(os.Getenv("MWALLET_SIGNING_KEY")), // signs every write; never sent
	})
	if err != nil {
		log.Fatal(err) // a *mwallet.ParamError: nothing was sent
	}
	// The first call exchanges the Key for a 30-minute access token; the
	// client caches it and renews it ahead of expiry.
	list, err := client.Assets(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(list.Assets), "assets")
}

func Example_memberContext() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()

	// Member-scoped calls name the member explicitly: the merchant's own
	// external_member_id or the service's mem_<uuid>. There is no default.
	_, err := client.KYC.Get(context.Background(), "   ")
	var pe *mwallet.ParamError
	fmt.Println(errors.As(err, &pe), mwallet.CodeOf(err), "requests sent:", len(sim.Requests.List()))

	_, err = client.KYC.Get(context.Background(), "alice@example.com") // not a member identifier
	fmt.Println(mwallet.CodeOf(err))
	// Output:
	// true member_context_required requests sent: 0
	// member_not_found
}

func Example_money() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()

	// Parse with the asset's ledger_scale (from the cached catalogue)...
	btc, err := client.ParseAmount(ctx, "BTC", "0.00012345")
	if err != nil {
		log.Fatal(err)
	}
	// ...and use display_scale only to show, never to parse.
	shown, _ := client.DisplayAmount(ctx, "BTC", btc)
	fmt.Println(btc, "shown as", shown)

	// Nothing is ever rounded: too many decimals is an error.
	_, err = client.ParseAmount(ctx, "USDT", "1.0000001")
	fmt.Println(errors.Is(err, money.ErrPrecision))
	// Output:
	// 0.00012345 shown as 0.000123
	// true
}

func Example_idempotency() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 10*time.Millisecond))
	ctx := context.Background()

	// Keep the key with your own record, so a resend after a crash reuses it.
	key := mwallet.NewIdempotencyKey()
	p := deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("10", 6), Reference: "payout-7"}

	// The connection drops after the service executed the call: the client
	// resends with the same key and gets the stored answer.
	_ = sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter})
	dep, err := client.Deposits.Create(ctx, "member-1", p, mwallet.WithIdempotencyKey(key))
	if err != nil {
		// Outcome unknown: resend later with mwallet.IdempotencyKeyOf(err).
		log.Fatal(err)
	}
	fmt.Println("attempts:", dep.Response.Attempts, "replayed:", dep.Response.Replayed, "same key:", dep.Response.IdempotencyKey == key)
	available, _, err := sim.Members.Balance("member-1", "USDT")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("credited once:", available)
	// Output:
	// attempts: 2 replayed: true same key: true
	// credited once: 1010.000000
}

func Example_stepUp() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	code := sampleqr.PromptPay // the scanned text, unmodified: a 250.00 THB bill

	p := qrpay.PayParams{CodeValue: code}
	order, err := client.QRPay.Pay(ctx, "member-1", p)
	if su, ok := mwallet.AsStepUp(err); ok { // every QR payment asks for it
		// Send the end user to su.HostedURL and wait until they are done.
		// Here the simulator plays the end user:
		_ = sim.StepUp.Complete(su.ChallengeID)
		// Resend the same parameters with the same key and x-step-up.
		order, err = client.QRPay.Pay(ctx, "member-1", p, su.Options()...)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(order.Status, order.CustomerTotal, order.Asset)
	// Output:
	// processing 7.308109 USDT
}

func Example_processing() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	p := qrpay.PayParams{CodeValue: sampleqr.PromptPay}
	_, err := client.QRPay.Pay(ctx, "member-1", p)
	su, ok := mwallet.AsStepUp(err) // as in the step-up example above
	if !ok {
		log.Fatal(err)
	}
	_ = sim.StepUp.Complete(su.ChallengeID)
	order, err := client.QRPay.Pay(ctx, "member-1", p, su.Options()...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(order.Status) // 201 processing: the outcome is unknown

	// Wait for the qrpay.order.* webhook; polling is the fallback, bounded by
	// the context in production. Here sim.Clock.SleepFunc makes each wait
	// advance the simulator clock instead of sleeping, and ends the polling
	// like a deadline after two simulated minutes, during which the upstream
	// stays silent.
	last, err := client.QRPay.WaitForOutcome(ctx, "member-1", order.ID, qrpay.WithSleep(sim.Clock.SleepFunc(2*time.Minute)))
	if errors.Is(err, context.DeadlineExceeded) {
		// Not a failure: the funds stay held. Do not unlock, do not declare
		// failure, do not pay again. The outcome will come.
		fmt.Println("still", last.Status)
	}
	_, locked, err := sim.Members.Balance("member-1", "USDT")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("held:", locked)
	// Output:
	// processing
	// still processing
	// held: 7.308109
}

// webhookReceiver is the webhook endpoint of a merchant backend: mount it
// with http.Handle("POST /webhooks", webhookReceiver(client, secret)).
// client re-reads the objects events are about; opts reach
// webhooks.Handler (a test passes webhooks.WithClock(sim.Clock.Now)).
func webhookReceiver(client *mwclient.Client, secret mwallet.Secret, opts ...webhooks.Option) http.Handler {
	var mu sync.Mutex
	tracker := webhooks.NewTracker() // merges forward by status_version

	// Handler verifies z-signature over the raw body, decodes the event and
	// drops duplicate event_ids; it answers 2xx only when the function
	// returns nil, so the service retries everything else.
	return webhooks.Handler(secret, func(ctx context.Context, ev webhooks.Event) error {
		mu.Lock()
		defer mu.Unlock()
		if !tracker.Apply(ev) {
			return nil // older than what we already have: drop it
		}
		// The body holds ids and statuses only: re-read the object, acting
		// for the member the event names.
		path, ok := ev.Data.RetrievalPath()
		if !ok {
			return nil // no GET for it: ev.Data.RetrievalNote() says what to read instead
		}
		var object map[string]any
		_, err := client.Do(ctx, &mwallet.Request{Method: http.MethodGet, Path: path,
			MemberScoped: true, Member: ev.Data.ExternalMemberID}, &object)
		// Store the object's new status in your database here. An error
		// answers 500 and the service delivers the event again.
		return err
	}, opts...)
}

func TestWebhookReceiver(t *testing.T) {
	t.Parallel()
	sim, client := simtest.New(t)
	// The simulator signs deliveries with its own clock, which starts at
	// 2026-01-01: the receiver must check timestamps against that clock.
	secret := sim.Credentials().WebhookSecretValue()
	srv := httptest.NewServer(webhookReceiver(client, secret, webhooks.WithClock(sim.Clock.Now)))
	defer srv.Close()
	if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		t.Fatal(err)
	}

	_, err := client.Deposits.Create(context.Background(), "member-1",
		deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "wh-test-1"})
	if err != nil {
		t.Fatal(err)
	}
	// Flush attempts every due delivery. A refused one makes it return a
	// *simulator.FlushError with the receiver's status and answer.
	if res, err := sim.Webhooks.Flush(context.Background()); err != nil || res.Succeeded != 1 {
		t.Fatalf("flush: %+v, %v", res, err)
	}
}

func Example_resumeListing() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		sim.Clock.Advance(time.Second) // each deposit is newer than the one before
		_, _ = client.Deposits.Create(ctx, "member-1", deposits.CreateParams{
			Asset: "USDC", Amount: money.MustParse("1", 6), Reference: fmt.Sprint("ref-", i)})
	}

	// Process one page of two, keep its cursor with your progress, stop.
	var saved string
	for page, err := range client.Deposits.ListPages(ctx, deposits.ListParams{ListParams: mwallet.ListParams{Limit: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		for _, d := range page.Data {
			fmt.Println("first run:", d.Reference)
		}
		saved = page.NextCursor // "" when the list is done
		break
	}

	// Later, maybe in another process: resume right after that page.
	for d, err := range client.Deposits.List(ctx, deposits.ListParams{ListParams: mwallet.ListParams{Limit: 2, Cursor: saved}}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("resumed:", d.Reference)
	}
	// Output:
	// first run: ref-5
	// first run: ref-4
	// resumed: ref-3
	// resumed: ref-2
	// resumed: ref-1
}

func Example_errors() {
	sim := simulator.MustNew(simulator.WithMember(simulator.MemberSeed{
		ExternalID: "member-2", KYCLevel: 1, Balances: map[string]string{"USDT": "1"}}))
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()

	advise := func(err error) {
		var apiErr *mwallet.Error
		if !errors.As(err, &apiErr) {
			return
		}
		// Branch on Retry (or Code), never on Message or HTTP status.
		switch apiErr.Retry() {
		case mwallet.RetryNewKey:
			fmt.Println(apiErr.Code, "- fix the cause, then send with a new key; replayed:", apiErr.Replayed)
		case mwallet.RetrySameKey:
			fmt.Println(apiErr.Code, "- the client already retried; resend later with", mwallet.IdempotencyKeyOf(err) != "")
		default:
			fmt.Println(apiErr.Code, apiErr.Retry())
		}
	}
	_, err := client.Deposits.Create(ctx, "member-1",
		deposits.CreateParams{Asset: "DOGE", Amount: money.MustParse("1", 6), Reference: "r-1"})
	advise(err)
	// Insufficient balance comes back as 500 api_error: the client retried it
	// once with the same key and got the stored failure replayed, which no
	// retry with that key can change.
	_, err = client.Cards.Apply(ctx, "member-2",
		cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT", ClientKey: cards.NewClientKey()})
	advise(err)
	// Output:
	// asset_not_allowed - fix the cause, then send with a new key; replayed: false
	// api_error - fix the cause, then send with a new key; replayed: true
}

func Example_outcomeUnknown() {
	sim := simulator.MustNew()
	defer sim.Close()
	// The client waits 0.5 to 1 s before it resends (on the simulator's clock).
	client := sim.Client(mwallet.WithRetryBackoff(time.Second, 2*time.Second))
	ctx := context.Background()
	clientID := sim.Credentials().ClientID
	p := deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("10", 6), Reference: "payout-8"}

	// The deposit runs and its answer is lost. The Key's rotation overlap
	// closes before the client resends: the resend gets invalid_token, the
	// token renewal invalid_credentials. The deposit ran: the outcome stays
	// unknown, and the error keeps the key.
	closes := sim.Clock.Now().Add(100 * time.Millisecond)
	_ = sim.Keys.Set(clientID, simulator.KeySettings{ValidUntil: &closes})
	_ = sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter})
	_, err := client.Deposits.Create(ctx, "member-1", p)
	key := mwallet.IdempotencyKeyOf(err)
	var apiErr *mwallet.Error
	if errors.As(err, &apiErr) {
		fmt.Println("outcome unknown:", errors.Is(err, mwallet.ErrOutcomeUnknown), "- cause:", apiErr.Code, "- advice:", apiErr.Retry())
	}

	// Once the credentials work again (here the Key's end is lifted), resend
	// with the same key: the stored answer comes back, credited once.
	_ = sim.Keys.Set(clientID, simulator.KeySettings{ValidUntil: &time.Time{}})
	dep, err := client.Deposits.Create(ctx, "member-1", p, mwallet.WithIdempotencyKey(key))
	if err != nil {
		log.Fatal(err)
	}
	available, _, err := sim.Members.Balance("member-1", "USDT")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replayed:", dep.Response.Replayed, "- credited once:", available)
	// Output:
	// outcome unknown: true - cause: invalid_credentials - advice: same-key
	// replayed: true - credited once: 1010.000000
}

func TestQRPayment(t *testing.T) {
	t.Parallel()
	sim, client := simtest.New(t)
	ctx := context.Background()

	p := qrpay.PayParams{CodeValue: sampleqr.PromptPay} // the text a camera read
	_, err := client.QRPay.Pay(ctx, "member-1", p)      // always step_up_required first
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("want step_up_required, got %v", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil { // the end user at su.HostedURL
		t.Fatal(err)
	}
	order, err := client.QRPay.Pay(ctx, "member-1", p, su.Options()...) // same key, x-step-up
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.QRPay.Complete(order.ID); err != nil { // the acquirer confirms
		t.Fatal(err)
	}
	if order, err = client.QRPay.Order(ctx, "member-1", order.ID); err != nil || order.Status != qrpay.StatusCompleted {
		t.Fatalf("order %+v, %v", order, err)
	}
}

func TestCardApplication(t *testing.T) {
	t.Parallel()
	sim, client := simtest.New(t)
	ctx := context.Background()

	app, err := client.Cards.Apply(ctx, "member-1", cards.ApplyParams{
		ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.ApproveApplication(app.ID); err != nil { // the issuer approves
		t.Fatal(err)
	}
	if app, err = client.Cards.GetApplication(ctx, "member-1", app.ID); err != nil || app.CardID == "" {
		t.Fatalf("application %+v, %v", app, err)
	}
	card, err := client.Cards.Get(ctx, "member-1", app.CardID)
	if err != nil || card.Status != cards.CardActive {
		t.Fatalf("card %+v, %v", card, err)
	}
}

func TestRemittance(t *testing.T) {
	t.Parallel()
	sim, client := simtest.New(t)
	ctx := context.Background()

	var payee remittance.Payee
	for py, err := range client.Remittances.Payees(ctx, "member-1", mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if py.Currency == "GBP" {
			payee = py
		}
	}
	rem, err := client.Remittances.Create(ctx, "member-1", remittance.CreateParams{
		PayeeID: payee.ID, PayoutAmount: "100.00", PayoutCurrency: "GBP",
		SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Dispatch(rem.ID); err != nil { // the payout partner takes it
		t.Fatal(err)
	}
	if err := sim.Remittances.Complete(rem.ID, ""); err != nil { // the payee is paid
		t.Fatal(err)
	}
	got, err := client.Remittances.Get(ctx, "member-1", rem.ID)
	if err != nil || !got.IsCompleted() {
		t.Fatalf("remittance %+v, %v", got, err)
	}
}

func TestCrashBetweenSendAndAnswer(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	ctx := context.Background()
	// In production: sqlstore or redisstore, which outlive the process.
	store := mwallet.NewMemoryPendingStore()
	client := sim.Client(mwallet.WithPendingStore(store))

	// The deposit executes, and no answer ever reaches the process: every
	// attempt's connection drops after the service stored the result.
	if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits",
		Kind: simulator.FaultDropAfter, Count: 10}); err != nil {
		t.Fatal(err)
	}
	_, err := client.Deposits.Create(ctx, "member-1", deposits.CreateParams{
		Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "order-7"})
	var te *mwallet.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("want no answer, got %v", err)
	}
	if err := sim.Faults.Clear(); err != nil { // the network is back
		t.Fatal(err)
	}

	// The next process, on the same store: the request is still pending.
	restarted := sim.Client(mwallet.WithPendingStore(store))
	pending, err := restarted.PendingRequests(ctx)
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending = %v, %v", pending, err)
	}
	res, err := restarted.ResumeTyped(ctx, pending[0]) // same key, same body bytes
	if err != nil || res.Deposit == nil || !res.Response.Replayed {
		t.Fatalf("resumed %+v, %v; want the stored deposit, replayed", res, err)
	}
	available, _, err := sim.Members.Balance("member-1", "USDT")
	if err != nil || !available.Equal(money.MustParse("1025", 6)) {
		t.Errorf("available = %s (%v), want 1025: credited once", available, err)
	}
}
