package cards_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestTopUpOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		outcome     func(sim *simulator.Simulator, id string) error
		wantStatus  string
		wantCard    string // card balance, USD
		avail, held string // member USDT after the outcome
		credited    int    // card.topup.credited events for the top-up
	}{
		{name: "credit", outcome: func(sim *simulator.Simulator, id string) error { return sim.Cards.CreditTopUp(id) }, wantStatus: "completed", wantCard: "100.50", avail: "893.495", held: "0", credited: 1},
		{name: "reject releases the hold at once", outcome: func(sim *simulator.Simulator, id string) error { return sim.Cards.RejectTopUp(id) }, wantStatus: "failed", wantCard: "0", avail: "995", held: "0"},
		{name: "timeout keeps processing and the funds held", outcome: func(sim *simulator.Simulator, id string) error { return sim.Cards.TimeoutTopUp(id) }, wantStatus: "processing", wantCard: "0", avail: "893.495", held: "101.505"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t)
			id := issueVirtual(t, sim, cl, "") // 5 USDT fee
			est, err := cl.Cards.EstimateTopUp(ctx, member, id, cards.EstimateParams{Amount: usdt("100")})
			if err != nil {
				t.Fatal(err)
			}
			wantEst := &cards.Estimate{SourceAsset: "USDT", LedgerScale: 6, Amount: usdt("100"), Fee: usdt("1"), CustomerTotal: usdt("101"),
				Currency: "USD", Scale: 2, CardAmount: money.MustParse("100", 2)}
			est.Response = nil
			if diff := cmp.Diff(wantEst, est, cmp.Comparer(money.Amount.Equal)); diff != "" {
				t.Fatalf("estimate (-want +got):\n%s", diff)
			}
			tp, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("100.50")})
			if err != nil {
				t.Fatal(err)
			}
			// Success is not credit: funds are held, the card is unchanged.
			if tp.Status != cards.TopUpProcessing || tp.Response.StatusCode != 201 {
				t.Fatalf("top-up = %+v", tp)
			}
			wantFunds(t, sim, member, "USDT", "893.495", "101.505") // 100.50 + 1% fee
			if b := getCard(t, cl, id).Balance; !b.IsZero() {
				t.Fatalf("card credited before confirmation: %s", b)
			}
			if err := tt.outcome(sim, tp.ID); err != nil {
				t.Fatal(err)
			}
			if st, _ := sim.Cards.TopUpStatus(tp.ID); st != tt.wantStatus {
				t.Fatalf("top-up status %s, want %s", st, tt.wantStatus)
			}
			wantCard := money.MustParse(tt.wantCard, 2)
			if b := getCard(t, cl, id).Balance; !b.Equal(wantCard) {
				t.Fatalf("card balance %s, want %s", b, wantCard)
			}
			wantFunds(t, sim, member, "USDT", tt.avail, tt.held)
			if n := len(simtest.EventsOf(sim, "card.topup.credited")); n != tt.credited {
				t.Fatalf("%d card.topup.credited events, want %d", n, tt.credited)
			}
			checkBooks(t, sim)
		})
	}
}

func TestTopUpTimeoutThenReconciled(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := issueVirtual(t, sim, cl, "")
	tp, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("10")})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.TimeoutTopUp(tp.ID); err != nil {
		t.Fatal(err)
	}
	wantFunds(t, sim, member, "USDT", "984.900000", "10.100000")
	// Reconciliation later confirms the credit.
	if err := sim.Cards.CreditTopUp(tp.ID); err != nil {
		t.Fatal(err)
	}
	wantFunds(t, sim, member, "USDT", "984.900000", "0")
	checkBooks(t, sim)
}

func TestTopUpImmediateAndSourceAsset(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	if err := sim.Outcomes.Set(simulator.CollectionCardTopups, simulator.Immediate()); err != nil {
		t.Fatal(err)
	}
	id := issueVirtual(t, sim, cl, "")
	if _, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("50"), SourceAsset: "USDC"}); err != nil {
		t.Fatal(err)
	}
	// USDC paid (50 + 0.5 fee), the card holds 50.00 USD.
	if a, l := funds(t, sim, member, "USDC"); !a.Equal(usdt("449.5")) || !l.IsZero() {
		t.Fatalf("USDC available %s locked %s", a, l)
	}
	if b := getCard(t, cl, id).Balance; !b.Equal(money.MustParse("50", 2)) {
		t.Fatalf("card %s, want 50.00", b)
	}
	checkBooks(t, sim)
}

func TestTopUpErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		amount string
		code   mwallet.Code
	}{
		{"below minimum", "9.99", mwallet.CodeAPIError},
		{"over the per-transaction limit", "10000.01", mwallet.CodeAPIError},
		{"insufficient balance", "1000", mwallet.CodeAPIError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t)
			id := issueVirtual(t, sim, cl, "")
			entries := len(sim.LedgerEntries())
			_, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt(tt.amount)})
			simtest.WantCode(t, err, tt.code)
			if n := len(sim.LedgerEntries()); n != entries {
				t.Fatalf("a refused top-up posted %d entries", n-entries)
			}
			checkBooks(t, sim)
		})
	}
}

// TestSubCentAmountsInTheSourceAsset: first_topup and a top-up's amount are
// amounts in the source asset, at its ledger scale (6 for USDT and USDC),
// not in the card currency. The card receives the amount cut to whole
// cents; the remainder returns to the funding account when the card is
// credited, so the member is charged amount + fee and gets back what the
// card cannot hold.
func TestSubCentAmountsInTheSourceAsset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, asset, amount string
		card                string // card balance after the credit
		left                string // available balance of asset after the credit
	}{
		// 1000 USDT - 5 issue fee - 10.123456 - 0.101235 fee (1%, rounded up) + 0.003456 remainder.
		{"USDT six decimals", "USDT", "10.123456", "10.12", "984.778765"},
		// 500 USDC - 25.999999 - 0.260000 fee + 0.009999 remainder.
		{"USDC through the issuer", "USDC", "25.999999", "25.99", "473.750000"},
		{"whole cents leave nothing", "USDT", "10.120000", "10.12", "984.778800"},
		{"fewer decimals", "USDT", "10.5", "10.50", "984.395000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t)
			id := issueVirtual(t, sim, cl, "")
			amt, err := money.Parse(tt.amount, 6)
			if err != nil {
				t.Fatal(err)
			}
			est, err := cl.Cards.EstimateTopUp(ctx, member, id, cards.EstimateParams{Amount: amt, SourceAsset: tt.asset})
			if err != nil {
				t.Fatalf("estimate: %v", err)
			}
			if !est.CardAmount.Equal(money.MustParse(tt.card, 2)) {
				t.Errorf("estimate card_amount %s, want %s", est.CardAmount, tt.card)
			}
			top, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: amt, SourceAsset: tt.asset})
			if err != nil {
				t.Fatalf("top-up: %v", err)
			}
			if err := sim.Cards.CreditTopUp(top.ID); err != nil {
				t.Fatal(err)
			}
			if b := getCard(t, cl, id).Balance; !b.Equal(money.MustParse(tt.card, 2)) {
				t.Errorf("card balance %s, want %s", b, tt.card)
			}
			wantFunds(t, sim, member, tt.asset, tt.left, "0")
			checkBooks(t, sim)
		})
	}
}

// TestSubCentFirstTopUp: the first top-up follows the same rule when the
// card is issued.
func TestSubCentFirstTopUp(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := issueVirtual(t, sim, cl, "20.456789")
	if b := getCard(t, cl, id).Balance; !b.Equal(money.MustParse("20.45", 2)) {
		t.Errorf("card balance %s, want 20.45", b)
	}
	// 1000 - 5 issue fee - 20.456789 + 0.006789 remainder.
	wantFunds(t, sim, member, "USDT", "974.550000", "0")
	checkBooks(t, sim)
}

// TestSubCentRemainderReturnsToThePrepaid: merchant-funded, the remainder
// goes back to the merchant prepaid account, which paid; the member's wallet
// is untouched.
func TestSubCentRemainderReturnsToThePrepaid(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
	id := issue(t, sim, cl, cards.ApplyParams{ProductID: "cpd_virtual_std", FundingSource: mwallet.FundingMerchant})
	before, _ := funds(t, sim, "", "USDT")
	tp, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("10.123456"), FundingSource: mwallet.FundingMerchant})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.CreditTopUp(tp.ID); err != nil {
		t.Fatal(err)
	}
	after, locked := funds(t, sim, "", "USDT")
	spent, _ := before.Sub(after)
	// 10.123456 + 0.101235 fee held; 10.12 to the card, 0.003456 back.
	if !spent.Equal(usdt("10.221235")) || !locked.IsZero() {
		t.Fatalf("prepaid spent %s (locked %s), want 10.221235 and 0", spent, locked)
	}
	if b := getCard(t, cl, id).Balance; !b.Equal(money.MustParse("10.12", 2)) {
		t.Fatalf("card balance %s, want 10.12", b)
	}
	wantFunds(t, sim, member, "USDT", "1000", "0")
	checkBooks(t, sim)
}
