package cards_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestApplyApprove(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	app := apply(t, cl, cards.ApplyParams{ProductID: "virtual_std", FirstTopUp: usdt("20")})
	if app.Status != cards.ApplicationSubmitted || app.FormFactor != cards.FormFactorVirtual || app.Existing {
		t.Fatalf("application = %+v, want a new submitted virtual application", app)
	}
	// Fee debited at once; first top-up held until issuance.
	wantFunds(t, sim, member, "USDT", "975", "20")
	checkBooks(t, sim)

	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	got, err := cl.Cards.GetApplication(ctx, member, app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != cards.ApplicationIssued || got.CardID == "" || got.StatusVersion != 2 || got.ProductID != "cpd_virtual_std" {
		t.Fatalf("application after approval = %+v", got)
	}
	card := getCard(t, cl, got.CardID)
	if card.Status != cards.CardActive || !card.Balance.Equal(money.MustParse("20", 2)) || len(card.Last4) != 4 {
		t.Fatalf("card = %+v, want active with 20.00", card)
	}
	wantFunds(t, sim, member, "USDT", "975", "0")

	// Events: submitted at creation, approved, then the first top-up credit.
	var seq []string
	for _, e := range sim.Events.List() {
		if e.Object == "card_application" || e.Object == "card_topup" {
			seq = append(seq, e.Type+"/"+e.Status)
		}
	}
	want := []string{"card.application.submitted/submitted", "card.application.approved/issued", "card.topup.credited/completed"}
	if diff := cmp.Diff(want, seq); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	checkBooks(t, sim)
}

func TestApplyRejectRefundsFee(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		product string
		first   string
		debit   string // fee + shipping
	}{
		{"manual review virtual", "cpd_virtual_review", "20", "10"},
		{"physical with shipping", "cpd_physical_std", "15", "40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t)
			app := apply(t, cl, cards.ApplyParams{ProductID: tc.product, FirstTopUp: usdt(tc.first)})
			if app.Status != cards.ApplicationPendingReview {
				t.Fatalf("status = %s, want pending_review", app.Status)
			}
			avail, _ := funds(t, sim, member, "USDT")
			debited, _ := usdt("1000").Sub(avail)
			want, _ := usdt(tc.debit).Add(usdt(tc.first))
			if !debited.Equal(want) {
				t.Fatalf("debited %s, want %s", debited, want)
			}
			if err := sim.Cards.RejectApplication(app.ID); err != nil {
				t.Fatal(err)
			}
			wantFunds(t, sim, member, "USDT", "1000", "0")
			got, err := cl.Cards.GetApplication(ctx, member, app.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != cards.ApplicationRejected || got.CardID != "" || got.Status.InProgress() {
				t.Fatalf("application after rejection = %+v", got)
			}
			if n := len(simtest.EventsOf(sim, "card.application.rejected")); n != 1 {
				t.Fatalf("%d rejected events, want 1", n)
			}
			// A settled application cannot be approved any more.
			if err := sim.Cards.ApproveApplication(app.ID); err == nil {
				t.Fatal("approving a rejected application succeeded")
			}
			checkBooks(t, sim)
		})
	}
}

func TestApplyClientKeyIsPermanent(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	key := cards.NewClientKey()
	p := cards.ApplyParams{ClientKey: key, SourceAsset: "USDT", ProductID: "cpd_virtual_std"}
	first, err := cl.Cards.Apply(ctx, member, p)
	if err != nil {
		t.Fatal(err)
	}
	if first.ClientKey != key || first.Existing {
		t.Fatalf("first = %+v", first)
	}
	// Well past the 24-hour idempotency window, with a new x-idempotency-key:
	// the same client_key is still the same application, and nothing is debited.
	sim.Clock.Advance(25 * time.Hour)
	again, err := cl.Cards.Apply(ctx, member, p)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || !again.Existing {
		t.Fatalf("resend = %+v, want existing %s", again, first.ID)
	}
	if again.Response.IdempotencyKey == first.Response.IdempotencyKey {
		t.Fatal("the resend reused the idempotency key; it should be a new call")
	}
	wantFunds(t, sim, member, "USDT", "995", "0")
	checkBooks(t, sim)
}

func TestApplyOutcomeModes(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	if err := sim.Outcomes.Set(simulator.CollectionCardApplications, simulator.Immediate()); err != nil {
		t.Fatal(err)
	}
	app := apply(t, cl, cards.ApplyParams{ProductID: "cpd_virtual_std"})
	got, err := cl.Cards.GetApplication(ctx, member, app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != cards.ApplicationIssued {
		t.Fatalf("immediate outcome: status %s, want issued", got.Status)
	}
	if err := sim.Outcomes.Set(simulator.CollectionCardApplications, simulator.After(time.Hour)); err != nil {
		t.Fatal(err)
	}
	app = apply(t, cl, cards.ApplyParams{ProductID: "cpd_virtual_std"})
	sim.Clock.Advance(59 * time.Minute)
	if got, _ = cl.Cards.GetApplication(ctx, member, app.ID); got.Status != cards.ApplicationSubmitted {
		t.Fatalf("before the delay: %s", got.Status)
	}
	sim.Clock.Advance(time.Minute)
	if got, _ = cl.Cards.GetApplication(ctx, member, app.ID); got.Status != cards.ApplicationIssued {
		t.Fatalf("after the delay: %s", got.Status)
	}
	checkBooks(t, sim)
}

func TestApplyErrorsChangeNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  []simulator.Option
		setup func(t *testing.T, sim *simulator.Simulator) string // returns the member to apply for
		p     cards.ApplyParams
		code  mwallet.Code
		field string
	}{
		{name: "asset not allowed", p: cards.ApplyParams{ProductID: "cpd_virtual_review", SourceAsset: "USDC", FirstTopUp: usdt("20")}, code: mwallet.CodeProductNotAvailable},
		{name: "unknown product", p: cards.ApplyParams{ProductID: "cpd_gold"}, code: mwallet.CodeProductNotAvailable},
		{name: "form factor conflicts with product", p: cards.ApplyParams{ProductID: "cpd_virtual_std", FormFactor: cards.FormFactorPhysical}, code: mwallet.CodeProductNotAvailable},
		{name: "BIN without a product of that form factor", p: cards.ApplyParams{BIN: "489012", FormFactor: cards.FormFactorPhysical}, code: mwallet.CodeProductNotAvailable},
		{name: "first top-up below min_first_topup", p: cards.ApplyParams{ProductID: "cpd_virtual_review", FirstTopUp: usdt("19.99")}, code: mwallet.CodeAmountOutOfRange},
		{name: "no first top-up where one is required", p: cards.ApplyParams{ProductID: "cpd_virtual_review"}, code: mwallet.CodeAmountOutOfRange},
		{name: "first top-up below the top-up minimum", p: cards.ApplyParams{ProductID: "cpd_virtual_std", FirstTopUp: usdt("5")}, code: mwallet.CodeAPIError},
		{name: "KYC not passed", p: cards.ApplyParams{ProductID: "cpd_virtual_premium", FirstTopUp: usdt("100")}, code: mwallet.CodeAPIError},
		{name: "card limit reached", p: cards.ApplyParams{ProductID: "cpd_virtual_std"}, code: mwallet.CodeAPIError,
			setup: func(t *testing.T, sim *simulator.Simulator) string {
				if err := sim.Cards.SetLimit("virtual", 0); err != nil {
					t.Fatal(err)
				}
				return member
			}},
		{name: "outstanding penalties", p: cards.ApplyParams{ProductID: "cpd_virtual_std"}, code: mwallet.CodeAPIError,
			setup: func(t *testing.T, sim *simulator.Simulator) string {
				if err := sim.Cards.SetPenalty(member, true); err != nil {
					t.Fatal(err)
				}
				return member
			}},
		{name: "unsupported shipping country", code: mwallet.CodeAPIError,
			setup: func(t *testing.T, sim *simulator.Simulator) string {
				if _, err := sim.Cards.AddShippingAddress(member, "FR", true); err != nil {
					t.Fatal(err)
				}
				return member
			},
			p: cards.ApplyParams{ProductID: "cpd_physical_std"}},
		{name: "unknown address", p: cards.ApplyParams{ProductID: "cpd_physical_std", AddressID: "adr_9999"}, code: mwallet.CodeInvalidFields, field: "address_id"},
		{name: "insufficient balance", code: mwallet.CodeAPIError,
			opts:  []simulator.Option{simulator.WithMember(simulator.MemberSeed{ExternalID: "poor", KYCLevel: 1, Balances: map[string]string{"USDT": "4.99"}})},
			setup: func(*testing.T, *simulator.Simulator) string { return "poor" },
			p:     cards.ApplyParams{ProductID: "cpd_virtual_std"}},
		{name: "inactive quick KYC binding", p: cards.ApplyParams{ProductID: "cpd_virtual_std", QuickKYCBindingID: "qkb_missing"}, code: mwallet.CodeInvalidFields, field: "quick_kyc_binding_id"},
		{name: "merchant funding on a platform_hosted account", p: cards.ApplyParams{ProductID: "cpd_virtual_std", FundingSource: mwallet.FundingMerchant}, code: mwallet.CodeInvalidFields, field: "funding_source"},
		{name: "merchant_hosted without funding_source", opts: []simulator.Option{simulator.WithModel(simulator.MerchantHosted)},
			p: cards.ApplyParams{ProductID: "cpd_virtual_std"}, code: mwallet.CodeInvalidFields, field: "funding_source"},
		{name: "merchant_hosted with member funding", opts: []simulator.Option{simulator.WithModel(simulator.MerchantHosted)},
			p: cards.ApplyParams{ProductID: "cpd_virtual_std", FundingSource: mwallet.FundingMember}, code: mwallet.CodeInvalidFields, field: "funding_source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t, tt.opts...)
			who := member
			if tt.setup != nil {
				who = tt.setup(t, sim)
			}
			entries, events := len(sim.LedgerEntries()), len(sim.Events.List())
			p := tt.p
			p.ClientKey = cards.NewClientKey()
			if p.SourceAsset == "" {
				p.SourceAsset = "USDT"
			}
			_, err := cl.Cards.Apply(ctx, who, p)
			apiErr := simtest.WantCode(t, err, tt.code)
			if tt.field != "" && (len(apiErr.Fields) == 0 || apiErr.Fields[0].Key != tt.field) {
				t.Fatalf("fields = %+v, want %s first", apiErr.Fields, tt.field)
			}
			if n := len(sim.LedgerEntries()); n != entries {
				t.Fatalf("a failed application posted %d ledger entries", n-entries)
			}
			if n := len(sim.Events.List()); n != events {
				t.Fatalf("a failed application emitted %d events", n-events)
			}
			// No slot was taken either: the same member can still apply.
			if tt.name != "card limit reached" {
				iv, err := cl.Cards.Quote(ctx, who, "cpd_virtual_std", cards.QuoteParams{})
				if err != nil {
					t.Fatal(err)
				}
				if !iv.CanApply && iv.Reason == "card_limit_reached" {
					t.Fatal("a failed application took a card-limit slot")
				}
			}
			checkBooks(t, sim)
		})
	}
}

func TestApplyMerchantHosted(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
	prepaid, _ := funds(t, sim, "", "USDT")
	id := issue(t, sim, cl, cards.ApplyParams{ProductID: "cpd_virtual_std", FundingSource: mwallet.FundingMerchant, FirstTopUp: usdt("30")})
	// The member's wallet is untouched; the prepaid paid fee and first top-up.
	wantFunds(t, sim, member, "USDT", "1000", "0")
	after, locked := funds(t, sim, "", "USDT")
	spent, _ := prepaid.Sub(after)
	if !spent.Equal(usdt("35")) || !locked.IsZero() {
		t.Fatalf("prepaid spent %s (locked %s), want 35 and 0", spent, locked)
	}
	if c := getCard(t, cl, id); !c.Balance.Equal(money.MustParse("30", 2)) {
		t.Fatalf("card balance %s, want 30.00", c.Balance)
	}
	// Top-ups draw on the prepaid too, and need funding_source merchant.
	_, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("10")})
	simtest.WantCode(t, err, mwallet.CodeInvalidFields)
	tp, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("10"), FundingSource: mwallet.FundingMerchant})
	if err != nil {
		t.Fatal(err)
	}
	if _, locked = funds(t, sim, "", "USDT"); !locked.Equal(usdt("10.1")) {
		t.Fatalf("prepaid locked %s, want 10.100000", locked)
	}
	if err := sim.Cards.CreditTopUp(tp.ID); err != nil {
		t.Fatal(err)
	}
	if c := getCard(t, cl, id); !c.Balance.Equal(money.MustParse("40", 2)) {
		t.Fatalf("card balance %s, want 40.00", c.Balance)
	}
	wantFunds(t, sim, member, "USDT", "1000", "0")
	checkBooks(t, sim)
}

func TestApplyWithQuickKYC(t *testing.T) {
	t.Parallel()
	newbie := simulator.WithMember(simulator.MemberSeed{ExternalID: "newbie", KYCLevel: 0, Balances: map[string]string{"USDT": "100"}})
	sim, cl := simtest.New(t, newbie)
	try := func(p cards.ApplyParams) (*cards.Application, error) {
		p.ClientKey, p.SourceAsset = cards.NewClientKey(), "USDT"
		return cl.Cards.Apply(ctx, "newbie", p)
	}
	// No genuine L1 and no quick profile: KYC not passed.
	_, err := try(cards.ApplyParams{ProductID: "cpd_virtual_std"})
	simtest.WantCode(t, err, mwallet.CodeAPIError)
	// A quick profile never satisfies an L2 product.
	_, err = try(cards.ApplyParams{ProductID: "cpd_virtual_premium", FirstTopUp: usdt("100"), QuickKYCEmail: "new@example.com"})
	simtest.WantCode(t, err, mwallet.CodeAPIError)
	wantFunds(t, sim, "newbie", "USDT", "100", "0")

	// With an e-mail never used for KYC, a quick profile is allocated (10 USDT).
	app, err := try(cards.ApplyParams{ProductID: "cpd_virtual_std", QuickKYCEmail: "new@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	wantFunds(t, sim, "newbie", "USDT", "85", "0") // 10 quick KYC fee + 5 issue fee
	// Issuance fails: the fee is refunded and the binding compensated.
	if err := sim.Cards.RejectApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	comp := simtest.EventsOf(sim, "kyc.quick.compensated")
	if len(comp) != 1 || comp[0].Extra["application_id"] != app.ID {
		t.Fatalf("compensation events = %+v", comp)
	}
	wantFunds(t, sim, "newbie", "USDT", "100", "0")
	// The e-mail cannot be used again.
	_, err = try(cards.ApplyParams{ProductID: "cpd_virtual_std", QuickKYCEmail: "new@example.com"})
	if apiErr := simtest.WantCode(t, err, mwallet.CodeInvalidFields); len(apiErr.Fields) == 0 || apiErr.Fields[0].Key != "quick_kyc_email" {
		t.Fatalf("fields = %+v", apiErr.Fields)
	}
	checkBooks(t, sim)
}

func TestPlatformDirectMemberGetsNoEvents(t *testing.T) {
	t.Parallel()
	direct := simulator.WithMember(simulator.MemberSeed{ExternalID: "direct", KYCLevel: 1, PlatformDirect: true, Balances: map[string]string{"USDT": "500"}})
	sim, cl := simtest.New(t, direct)
	before := len(sim.Events.List())
	app, err := cl.Cards.Apply(ctx, "direct", cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_physical_std", FirstTopUp: usdt("20")})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	got, err := cl.Cards.GetApplication(ctx, "direct", app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.Ship(got.CardID); err != nil { // would send awaiting_bind to other members
		t.Fatal(err)
	}
	if _, err := cl.Cards.Freeze(ctx, "direct", got.CardID); err == nil {
		t.Fatal("froze an unactivated card")
	}
	if n := len(sim.Events.List()) - before; n != 0 {
		t.Fatalf("%d events for a platform-direct member, want none", n)
	}
	checkBooks(t, sim)
}

// A merchant-funded apply or top-up whose prepaid cannot cover the cost is
// service_unavailable with no order: neither the prepaid nor the member's
// wallet moves, and no application exists afterwards.
func TestMerchantFundedInsufficientPrepaid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) error
	}{
		{name: "apply", call: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) error {
			drainPrepaid(t, sim)
			_, err := cl.Cards.Apply(ctx, member, cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT",
				ClientKey: cards.NewClientKey(), FundingSource: mwallet.FundingMerchant, FirstTopUp: usdt("30")})
			return err
		}},
		{name: "top-up", call: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) error {
			id := issue(t, sim, cl, cards.ApplyParams{ProductID: "cpd_virtual_std", FundingSource: mwallet.FundingMerchant})
			drainPrepaid(t, sim)
			_, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("10"), FundingSource: mwallet.FundingMerchant})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
			err := tt.call(t, sim, cl)
			simtest.WantCode(t, err, mwallet.CodeServiceUnavailable)
			wantFunds(t, sim, member, "USDT", "1000", "0")
			wantFunds(t, sim, "", "USDT", "0", "0")
			wantFunds(t, sim, "", "USDC", "0", "0")
			checkBooks(t, sim)
		})
	}
}

// drainPrepaid empties the merchant prepaid in every card source asset.
func drainPrepaid(t *testing.T, sim *simulator.Simulator) {
	t.Helper()
	for _, asset := range []string{"USDT", "USDC"} {
		if a, _ := funds(t, sim, "", asset); a.IsZero() {
			continue
		}
		if err := sim.Merchant.WithdrawPrepaid(asset, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// A KYC update drops the member to level 0 until re-approval: in the meantime
// the invoice says can_apply false and an application is refused (500
// api_error, KYC not passed) with nothing debited; after approval both work.
func TestKYCUpdateStopsCardIssuing(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	if err := sim.KYC.Update(member); err != nil {
		t.Fatal(err)
	}
	entries := len(sim.LedgerEntries())
	inv, err := cl.Cards.Quote(ctx, member, "cpd_virtual_std", cards.QuoteParams{})
	if err != nil {
		t.Fatal(err)
	}
	if inv.CanApply || inv.Reason == "" {
		t.Fatalf("invoice during review: can_apply %v reason %q, want false with a reason", inv.CanApply, inv.Reason)
	}
	_, err = cl.Cards.Apply(ctx, member, cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT", ClientKey: cards.NewClientKey()})
	simtest.WantCode(t, err, mwallet.CodeAPIError)
	wantFunds(t, sim, member, "USDT", "1000", "0")
	if n := len(sim.LedgerEntries()); n != entries {
		t.Fatalf("a refused application posted %d ledger entries", n-entries)
	}
	if err := sim.KYC.Approve(member, 0); err != nil {
		t.Fatal(err)
	}
	if inv, err = cl.Cards.Quote(ctx, member, "cpd_virtual_std", cards.QuoteParams{}); err != nil || !inv.CanApply {
		t.Fatalf("invoice after approval: %+v %v", inv, err)
	}
	apply(t, cl, cards.ApplyParams{ProductID: "cpd_virtual_std"})
	checkBooks(t, sim)
}
