package cards_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestProducts(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	got := listProducts(t, cl)
	ids := []string{}
	for _, p := range got {
		ids = append(ids, p.ID)
		if p.Currency != "USD" || p.BIN == "" || p.Scheme == "" || len(p.CardTypes) == 0 || !p.FormFactor.Known() {
			t.Errorf("product %+v lacks fields", p)
		}
	}
	want := []string{"cpd_virtual_std", "cpd_virtual_review", "cpd_virtual_premium", "cpd_physical_std"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Fatalf("products (-want +got):\n%s", diff)
	}

	// Only enabled products whose BIN is authorized are listed.
	if err := sim.Cards.SetBINAuthorizations("489012", "531994"); err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.SetProductEnabled("cpd_physical_std", false); err != nil {
		t.Fatal(err)
	}
	got = listProducts(t, cl)
	if len(got) != 1 || got[0].ID != "cpd_virtual_std" {
		t.Fatalf("restricted products = %+v, want only cpd_virtual_std", got)
	}
	// A product hidden from the caller is not found by the quote.
	_, err := cl.Cards.Quote(ctx, member, "cpd_virtual_review", cards.QuoteParams{})
	simtest.WantCode(t, err, mwallet.CodeNotFound)
	checkBooks(t, sim)
}

func listProducts(t *testing.T, cl *mwclient.Client) []cards.Product {
	t.Helper()
	var out []cards.Product
	for p, err := range cl.Cards.Products(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestQuote(t *testing.T) {
	t.Parallel()
	amt := func(s string) money.Amount { return money.MustParse(s, 6) }
	tests := []struct {
		name    string
		product string
		setup   func(t *testing.T, sim *simulator.Simulator)
		want    cards.Invoice
	}{
		{name: "virtual, no minimum, bare id", product: "virtual_std", want: cards.Invoice{
			ProductID: "cpd_virtual_std", FormFactor: cards.ProductFormFactorVirtual, FeeAsset: "USDT", LedgerScale: 6, DisplayScale: 2,
			IssueFee: amt("5"), MinFirstTopUp: amt("0"), ShippingFee: amt("0"), CanApply: true}},
		{name: "manual review with minimum first top-up", product: "cpd_virtual_review", want: cards.Invoice{
			ProductID: "cpd_virtual_review", FormFactor: cards.ProductFormFactorVirtual, FeeAsset: "USDT", LedgerScale: 6, DisplayScale: 2,
			IssueFee: amt("10"), MinFirstTopUp: amt("20"), ShippingFee: amt("0"), CanApply: true}},
		{name: "L2 product for an L1 member", product: "cpd_virtual_premium", want: cards.Invoice{
			ProductID: "cpd_virtual_premium", FormFactor: cards.ProductFormFactorVirtual, FeeAsset: "USDT", LedgerScale: 6, DisplayScale: 2,
			IssueFee: amt("50"), MinFirstTopUp: amt("100"), ShippingFee: amt("0"), CanApply: false, Reason: "kyc_required"}},
		{name: "restricted KYC country", product: "cpd_virtual_review",
			setup: func(t *testing.T, sim *simulator.Simulator) {
				if err := sim.Cards.SetKYCCountry(member, "US"); err != nil {
					t.Fatal(err)
				}
			},
			want: cards.Invoice{ProductID: "cpd_virtual_review", FormFactor: cards.ProductFormFactorVirtual, FeeAsset: "USDT", LedgerScale: 6, DisplayScale: 2,
				IssueFee: amt("10"), MinFirstTopUp: amt("20"), ShippingFee: amt("0"), CanApply: false, Reason: "kyc_country_restricted"}},
		{name: "card limit reached", product: "cpd_virtual_std",
			setup: func(t *testing.T, sim *simulator.Simulator) {
				if err := sim.Cards.SetLimit("virtual", 0); err != nil {
					t.Fatal(err)
				}
			},
			want: cards.Invoice{ProductID: "cpd_virtual_std", FormFactor: cards.ProductFormFactorVirtual, FeeAsset: "USDT", LedgerScale: 6, DisplayScale: 2,
				IssueFee: amt("5"), MinFirstTopUp: amt("0"), ShippingFee: amt("0"), CanApply: false, Reason: "card_limit_reached"}},
		{name: "physical, shipping per address", product: "cpd_physical_std",
			setup: func(t *testing.T, sim *simulator.Simulator) {
				if _, err := sim.Cards.AddShippingAddress(member, "FR", false); err != nil { // not shipped to: left out
					t.Fatal(err)
				}
			},
			want: cards.Invoice{
				ProductID: "cpd_physical_std", FormFactor: cards.ProductFormFactorPhysical, FeeAsset: "USDT", LedgerScale: 6, DisplayScale: 2,
				IssueFee: amt("25"), MinFirstTopUp: amt("0"), ShippingFee: amt("15"), CanApply: true,
				ShippingByAddress: []cards.ShippingQuote{
					{AddressID: "adr_0001", Country: "SG", IsDefault: true, ShippingFee: amt("15"), Total: amt("40"), Deliverable: true},
					{AddressID: "adr_0002", Country: "HK", ShippingFee: amt("20"), Total: amt("45"), Deliverable: true},
				}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, cl := simtest.New(t)
			if tt.setup != nil {
				tt.setup(t, sim)
			}
			got, err := cl.Cards.Quote(ctx, member, tt.product, cards.QuoteParams{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Response == nil || got.Response.RequestID == "" {
				t.Errorf("quote without response metadata")
			}
			got.Response = nil
			if diff := cmp.Diff(&tt.want, got, cmp.Comparer(money.Amount.Equal)); diff != "" {
				t.Errorf("invoice (-want +got):\n%s", diff)
			}
			if got.HasMinFirstTopUp() != (tt.want.MinFirstTopUp.Sign() > 0) {
				t.Errorf("HasMinFirstTopUp = %v", got.HasMinFirstTopUp())
			}
			checkBooks(t, sim)
		})
	}
}

func TestQuoteErrors(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	_, err := cl.Cards.Quote(ctx, member, "cpd_nope", cards.QuoteParams{})
	simtest.WantCode(t, err, mwallet.CodeNotFound)
	_, err = cl.Cards.Quote(ctx, "", "cpd_virtual_std", cards.QuoteParams{})
	wantParam(t, err, "member")
	_, err = cl.Cards.Quote(ctx, member, " ", cards.QuoteParams{})
	wantParam(t, err, "product id")
	// A binding that is not active makes can_apply false with a reason.
	iv, err := cl.Cards.Quote(ctx, member, "cpd_virtual_std", cards.QuoteParams{QuickKYCBindingID: "qkb_missing"})
	if err != nil {
		t.Fatal(err)
	}
	if iv.CanApply || iv.Reason == "" {
		t.Fatalf("invoice with an inactive binding: can_apply %v reason %q", iv.CanApply, iv.Reason)
	}
	checkBooks(t, sim)
}
