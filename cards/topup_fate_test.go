package cards_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// How a backend learns a card top-up's fate, the way docs/concepts.md says:
// card.topup.credited (data.id bare, REST id ctp_<id>) is the credit;
// without it, the card is read: while a top-up is in flight its close-check
// names topup_in_flight, and once none is, a balance that did not grow means
// the issuer rejected it (the hold is released at once and no event is
// sent). A timed-out top-up stays in flight until reconciliation.
func TestTopUpFate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		drive     func(sim *simulator.Simulator, id string) error
		inFlight  bool
		credited  bool
		wantEvent bool
	}{
		{"credited", func(sim *simulator.Simulator, id string) error { return sim.Cards.CreditTopUp(id) }, false, true, true},
		{"rejected by the issuer", func(sim *simulator.Simulator, id string) error { return sim.Cards.RejectTopUp(id) }, false, false, false},
		{"timed out upstream", func(sim *simulator.Simulator, id string) error { return sim.Cards.TimeoutTopUp(id) }, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t)
			ctx := context.Background()
			cardID := issueVirtual(t, sim, cl, "")
			before, err := cl.Cards.Get(ctx, member, cardID)
			if err != nil {
				t.Fatal(err)
			}
			top, err := cl.Cards.TopUp(ctx, member, cardID, cards.TopUpParams{Amount: usdt("25"), SourceAsset: "USDT"})
			if err != nil || top.Status != cards.TopUpProcessing {
				t.Fatalf("TopUp = %+v, %v", top, err)
			}
			if !inFlight(t, cl.Cards, cardID) {
				t.Fatal("an accepted top-up is not in flight")
			}
			if err := tt.drive(sim, top.ID); err != nil {
				t.Fatal(err)
			}
			credited := slices.ContainsFunc(sim.Events.List(), func(e simulator.Event) bool {
				return e.Type == "card.topup.credited" && "ctp_"+e.ObjectID == top.ID
			})
			if credited != tt.wantEvent {
				t.Errorf("card.topup.credited sent = %v, want %v", credited, tt.wantEvent)
			}
			if got := inFlight(t, cl.Cards, cardID); got != tt.inFlight {
				t.Errorf("in flight = %v, want %v", got, tt.inFlight)
			}
			after, err := cl.Cards.Get(ctx, member, cardID)
			if err != nil {
				t.Fatal(err)
			}
			if grew := after.Balance.Cmp(before.Balance) > 0; grew != tt.credited {
				t.Errorf("balance %s -> %s; credited = %v, want %v", before.Balance, after.Balance, grew, tt.credited)
			}
			_, locked := funds(t, sim, member, "USDT")
			if held := locked.Sign() > 0; held != tt.inFlight {
				t.Errorf("member's USDT locked %s; want a hold only while in flight", locked)
			}
		})
	}
}

func inFlight(t *testing.T, c *cards.Client, cardID string) bool {
	t.Helper()
	cc, err := c.CheckClose(context.Background(), member, cardID)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(cc.Reasons, cards.CloseBlockedTopUpInFlight)
}
