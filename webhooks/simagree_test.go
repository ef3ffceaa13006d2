package webhooks_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// The events the simulator sends name their objects the way the retrieval
// table reads them: each event's Data.RESTID is the id the SDK returned for
// the object (card.topup.credited carries the bare top-up id; RESTID adds
// ctp_), and RetrievalPath, where there is one, reads the object.
func TestSimulatorEventsAgreeWithRetrievalTable(t *testing.T) {
	t.Parallel()
	sim, client := simtest.New(t)
	ctx := context.Background()
	var mu sync.Mutex
	var got []webhooks.Event
	srv := httptest.NewServer(sim.Webhooks.Handler(func(_ context.Context, ev webhooks.Event) error {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
		return nil
	}))
	t.Cleanup(srv.Close)
	if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		t.Fatal(err)
	}
	const member = "member-1"
	want := map[webhooks.ObjectKind]string{} // object kind -> the id the SDK returned

	// A card, issued, and a top-up credited to it.
	app, err := client.Cards.Apply(ctx, member, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	if app, err = client.Cards.GetApplication(ctx, member, app.ID); err != nil {
		t.Fatal(err)
	}
	want[webhooks.ObjectCardApplication] = app.ID // a virtual card's issuance sends no card event
	top, err := client.Cards.TopUp(ctx, member, app.CardID, cards.TopUpParams{Amount: money.MustParse("25", 6), SourceAsset: "USDT"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.CreditTopUp(top.ID); err != nil {
		t.Fatal(err)
	}
	want[webhooks.ObjectCardTopup] = top.ID

	// A QR payment, completed.
	p := qrpay.PayParams{CodeValue: sampleqr.PromptPay}
	_, err = client.QRPay.Pay(ctx, member, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("want step_up_required, got %v", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	order, err := client.QRPay.Pay(ctx, member, p, su.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.QRPay.Complete(order.ID); err != nil {
		t.Fatal(err)
	}
	want[webhooks.ObjectQRPayOrder] = order.ID

	// A remittance, paid out.
	var payee remittance.Payee
	for py, err := range client.Remittances.Payees(ctx, member, mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if py.Currency == "GBP" {
			payee = py
		}
	}
	rem, err := client.Remittances.Create(ctx, member, remittance.CreateParams{PayeeID: payee.ID, PayoutAmount: "100.00",
		PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Dispatch(rem.ID); err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Complete(rem.ID, ""); err != nil {
		t.Fatal(err)
	}
	want[webhooks.ObjectRemittance] = rem.ID

	if _, err := sim.Webhooks.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	seen := map[webhooks.ObjectKind]string{}
	for _, ev := range got {
		id, ok := ev.Data.RESTID()
		if !ok {
			t.Errorf("%s (%s %s): no REST id", ev.EventType, ev.Data.Object, ev.Data.ID)
			continue
		}
		if w, tracked := want[ev.Data.Object]; tracked && id != w {
			t.Errorf("%s: data.id %q gives REST id %q; the SDK returned %q", ev.EventType, ev.Data.ID, id, w)
		}
		seen[ev.Data.Object] = id
		path, ok := ev.Data.RetrievalPath()
		if !ok {
			continue
		}
		var raw map[string]any
		if _, err := client.Do(ctx, &mwallet.Request{Method: "GET", Path: path, MemberScoped: true, Member: ev.Data.ExternalMemberID}, &raw); err != nil {
			t.Errorf("%s: GET %s: %v", ev.EventType, path, err)
		}
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("objects of the events (-SDK ids +event REST ids):\n%s", diff)
	}
}
