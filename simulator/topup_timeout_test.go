package simulator_test

import (
	"strings"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// TestCardTopUpUpstreamTimeout plays the contract's 504 upstream_timeout of
// card top-ups as a modelled scenario through the SDK: the issuer call
// times out after the hold, the order exists and stays processing with its
// funds held, the SDK's retry with the same key replays the order, and the
// hold is released or credited only by reconciliation.
func TestCardTopUpUpstreamTimeout(t *testing.T) {
	t.Parallel()
	for _, outcome := range []string{"credit", "reject"} {
		t.Run(outcome, func(t *testing.T) {
			t.Parallel()
			sim, cl := newSDK(t)
			card := eaIssue(t, sim, cl, "cpd_virtual_std")
			// Outcomes run at once for this collection: a timed-out order
			// must not reach one by itself.
			if err := sim.Outcomes.Set(simulator.CollectionCardTopups, simulator.Immediate()); err != nil {
				t.Fatal(err)
			}
			if err := sim.Cards.TimeoutNextTopUps(1); err != nil {
				t.Fatal(err)
			}
			entries := len(sim.LedgerEntries())
			var resp *mwallet.Response
			tp, err := cl.Cards.TopUp(eaCtx, member1, card, cards.TopUpParams{Amount: money.MustParse("20", 6)}, mwallet.WithResponse(&resp))
			if err != nil {
				t.Fatalf("top-up: %v", err)
			}
			if !resp.Replayed || resp.Attempts != 2 || tp.Status != cards.TopUpProcessing || !strings.HasPrefix(tp.ID, "ctp_") {
				t.Fatalf("top-up = %+v, response %+v: want the replayed processing order on the second attempt", tp, resp)
			}
			recs := sim.Requests.List()
			first := recs[len(recs)-2]
			if first.Status != 504 || first.Code != "upstream_timeout" || first.Fault != "" {
				t.Errorf("first attempt in the journal = %+v, want the modelled 504", first)
			}
			if got := len(sim.State().CardTopUps); got != 1 {
				t.Errorf("%d top-up orders, want 1", got)
			}
			if got := len(sim.LedgerEntries()) - entries; got != 1 {
				t.Errorf("%d ledger entries, want 1 (the hold)", got)
			}
			// 20 plus the 1 % fee stays held while the order is processing.
			sim.Clock.Advance(24 * time.Hour)
			if st, _ := sim.Cards.TopUpStatus(tp.ID); st != "processing" {
				t.Errorf("top-up is %s after a day, want processing (a timeout never releases)", st)
			}
			if _, locked, _ := sim.Cards.Funds(member1, "USDT"); !locked.Equal(money.MustParse("20.2", 6)) {
				t.Errorf("locked = %s, want 20.200000", locked)
			}
			// Reconciliation decides.
			var aerr error
			if outcome == "credit" {
				aerr = sim.Cards.CreditTopUp(tp.ID)
			} else {
				aerr = sim.Cards.RejectTopUp(tp.ID)
			}
			if aerr != nil {
				t.Fatal(aerr)
			}
			if _, locked, _ := sim.Cards.Funds(member1, "USDT"); !locked.IsZero() {
				t.Errorf("locked after %s = %s, want 0", outcome, locked)
			}
			// The scenario was for one top-up: the next one is answered 201.
			next, err := cl.Cards.TopUp(eaCtx, member1, card, cards.TopUpParams{Amount: money.MustParse("10", 6)}, mwallet.WithResponse(&resp))
			if err != nil || resp.Attempts != 1 || resp.Replayed {
				t.Errorf("next top-up = %+v, %v, response %+v", next, err, resp)
			}
		})
	}
}
