package cards_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

type journalLine struct {
	Code     string
	Replay   bool
	ReplayOf string
}

// answersOf returns the journal's 500 answers to key on path.
func answersOf(sim *simulator.Simulator, path, key string) ([]journalLine, []string) {
	var out []journalLine
	var ids []string
	for _, r := range sim.Requests.List() {
		if r.Path == path && r.IdempotencyKey == key && r.Status == 500 {
			out = append(out, journalLine{Code: r.Code, Replay: r.Replay, ReplayOf: r.ReplayOf})
			ids = append(ids, r.RequestID)
		}
	}
	return out, ids
}

// TestReplayedApplicationFailureSaysNewKey: a card application refused for
// insufficient balance is a 500 api_error ("retrying the same key only
// repeats the 500"); the client's one same-key retry gets the stored
// failure replayed, which Error.Retry classes new-key, and the journal
// names the request replayed. A caller following the advice stops after one
// more replay; after a deposit, a new key issues the application.
func TestReplayedApplicationFailureSaysNewKey(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "poor", KYCLevel: 1, Balances: map[string]string{"USDT": "4.99"}}))
	ctx := context.Background()
	p := cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT", ClientKey: cards.NewClientKey()}
	_, err := cl.Cards.Apply(ctx, "poor", p)
	e := simtest.WantCode(t, err, mwallet.CodeAPIError)
	if !e.Replayed || e.Retry() != mwallet.RetryNewKey || e.Code.Retry() != mwallet.RetrySameKey {
		t.Fatalf("replayed %v, Retry %s (code's %s); want a replay classed new-key", e.Replayed, e.Retry(), e.Code.Retry())
	}
	const path = "/v1/cards/applications"
	lines, ids := answersOf(sim, path, e.IdempotencyKey)
	want := []journalLine{{Code: "api_error"}, {Code: "api_error", Replay: true}}
	if len(ids) > 0 {
		want[1].ReplayOf = ids[0]
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("journal of the key (-want +got):\n%s", diff)
	}

	sends := 0
	for range 5 {
		sends++
		_, err = cl.Cards.Apply(ctx, "poor", p, mwallet.WithIdempotencyKey(e.IdempotencyKey))
		if simtest.AsError(t, err).Retry() != mwallet.RetrySameKey {
			break
		}
	}
	if lines, _ = answersOf(sim, path, e.IdempotencyKey); sends != 1 || len(lines) != 3 || !lines[2].Replay {
		t.Fatalf("a caller following Retry sent %d more times (%d answers of the key), want 1 replay and a stop", sends, len(lines))
	}

	if _, err := cl.Deposits.Create(ctx, "poor", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("50", 6), Reference: "top-up-1"}); err != nil {
		t.Fatal(err)
	}
	app, err := cl.Cards.Apply(ctx, "poor", p)
	if err != nil {
		t.Fatalf("Apply with a new key after the deposit: %v", err)
	}
	if app.Response.IdempotencyKey == e.IdempotencyKey || app.Response.Attempts != 1 {
		t.Fatalf("key %s attempts %d, want a new key and one attempt", app.Response.IdempotencyKey, app.Response.Attempts)
	}
	checkBooks(t, sim)
}
