package cards

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// TestMemberControlOps: the ops on a member resolve it with the lookup they
// are given, answer as the control API does, and the plastic answers
// through the conversion it is given.
func TestMemberControlOps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.Set(kernel.AccountMerchantPrepaid, "USDT", money.MustParse("50", 6))
	var looked []string
	ops := NewMemberControlOps(controltest.At[Line], func(_ opRun, id string) string {
		looked = append(looked, id)
		return "mem_1"
	}, func(p Plastic) any { return "plastic " + p.CardID })
	if diff := cmp.Diff([]controltest.Decl{
		{Route: "POST /_sim/cards/{id}/plastic", Action: "cards/plastic", Name: "Cards.Plastic"},
		{Route: "POST /_sim/members/{id}/card_penalty", Name: "Cards.SetPenalty"},
		{Route: "POST /_sim/members/{id}/kyc_country", Name: "Cards.SetKYCCountry"},
		{Route: "POST /_sim/members/{id}/shipping_addresses", Name: "Cards.AddShippingAddress"},
		{Name: "Cards.Funds"},
	}, controltest.Decls(ops.Plastic, ops.SetPenalty, ops.SetKYCCountry, ops.AddShippingAddress, ops.Funds)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	x := opRun{Line: f.l, Tx: f.tx}
	yes := true
	amounts := func(out any, err error) controltest.Result {
		if b, ok := out.([2]money.Amount); ok {
			out = [2]string{b[0].String(), b[1].String()}
		}
		return controltest.Outcome(out, err)
	}
	got := []controltest.Result{
		controltest.Outcome(ops.SetPenalty.Run(x, &PenaltyIn{Member: "ext-1", Outstanding: &yes})),
		controltest.Outcome(ops.SetKYCCountry.Run(x, &KYCCountryIn{Member: "ext-1", Country: " hk "})),
		amounts(ops.Funds.Run(x, &FundsIn{Member: "ext-1", Asset: "USDT"})),
		amounts(ops.Funds.Run(x, &FundsIn{Asset: "USDT"})),
		controltest.Outcome(ops.Plastic.Run(x, &CardRef{ID: "nope"})),
	}
	want := []controltest.Result{
		{Out: map[string]any{"member": "ext-1", "outstanding": true}},
		{Out: map[string]any{"member": "ext-1", "country": "HK"}},
		{Out: [2]string{"1000.000000", "0.000000"}},
		{Out: [2]string{"50.000000", "0.000000"}},
		{Code: "not_found"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if _, args, _ := ops.SetKYCCountry.Call(&KYCCountryIn{Member: "ext-1", Country: " hk "}); !cmp.Equal(args, []any{"ext-1", "HK"}) {
		t.Errorf("recorded call %v", args)
	}
	out, err := ops.AddShippingAddress.Run(x, &ShippingIn{Member: "ext-1", Country: "gb", Default: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := out.(map[string]any); m["country"] != "GB" || m["is_default"] != true || m["id"] == "" {
		t.Errorf("address %v", m)
	}
	penalty, _ := f.l.st.penalties.Get(f.tx, "mem_1")
	if country, _ := f.l.st.kycCountry.Get(f.tx, "mem_1"); !penalty || country != "HK" {
		t.Errorf("penalty or country not set on the member looked up")
	}
	if diff := cmp.Diff([]string{"ext-1", "ext-1", "ext-1", "ext-1"}, looked); diff != "" {
		t.Errorf("lookups (-want +got):\n%s", diff)
	}
}
