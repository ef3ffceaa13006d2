package qrpay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

const member1 = simulator.DefaultMemberExternalID

var amountEq = cmp.Comparer(money.Amount.Equal)

// scenario adds "SIM:<name>" sub-objects to template 62.
func scenario(names ...string) []emvqr.Field {
	var out []emvqr.Field
	for i, n := range names {
		out = append(out, emvqr.Field{Tag: []string{"05", "08", "01", "03"}[i], Value: "SIM:" + n})
	}
	return out
}

// thaiMerchantCode is a dynamic PromptPay bill-payment code of amount THB.
func thaiMerchantCode(t *testing.T, amount string, scenarios ...string) string {
	t.Helper()
	s, err := emvqr.Build(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER" + strings.ReplaceAll(amount, ".", "")},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: amount, Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK", AdditionalData: scenario(scenarios...),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// thaiP2PCode is a static PromptPay code without amount (custom amount).
func thaiP2PCode(t *testing.T, scenarios ...string) string {
	t.Helper()
	s, err := emvqr.Build(emvqr.Payload{
		PointOfInitiation: "11",
		MerchantAccounts:  []emvqr.MerchantAccount{{Tag: "29", GUI: "A000000677010111", Fields: []emvqr.Field{{Tag: "01", Value: "0066801234567"}}}},
		Currency:          "764", Country: "TH", AdditionalData: scenario(scenarios...),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// khqrCode is a KHQR code of amount KHR.
func khqrCode(t *testing.T, amount string) string {
	t.Helper()
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation:    "12",
		MerchantAccounts:     []emvqr.MerchantAccount{{Tag: "29", GUI: "sokha_cafe@abaa"}},
		MerchantCategoryCode: "5999", Currency: "116", Amount: amount, Country: "KH",
		MerchantName: "Sokha Cafe", MerchantCity: "Phnom Penh",
	})
}

// payWithStepUp runs the step-up round trip and returns the order.
func payWithStepUp(t *testing.T, sim *simulator.Simulator, c *mwclient.Client, member string, p qrpay.PayParams) *qrpay.Order {
	t.Helper()
	ctx := context.Background()
	_, err := c.QRPay.Pay(ctx, member, p, mwallet.WithMaxAttempts(1))
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("first Pay: %v, want step_up_required", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	o, err := c.QRPay.Pay(ctx, member, p, append(su.Options(), mwallet.WithMaxAttempts(1))...)
	if err != nil {
		t.Fatalf("Pay after step-up: %v", err)
	}
	return o
}

// payExpectError runs the step-up round trip and returns the error of the
// authenticated call.
func payExpectError(t *testing.T, sim *simulator.Simulator, c *mwclient.Client, member string, p qrpay.PayParams) error {
	t.Helper()
	ctx := context.Background()
	_, err := c.QRPay.Pay(ctx, member, p, mwallet.WithMaxAttempts(1))
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		return err
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	o, err := c.QRPay.Pay(ctx, member, p, append(su.Options(), mwallet.WithMaxAttempts(1))...)
	if err == nil {
		t.Fatalf("Pay succeeded with order %s, want an error", o.ID)
	}
	return err
}

// books sums the ledger journal per account and asset.
func books(sim *simulator.Simulator) map[string]string {
	sums := map[string]money.Amount{}
	for _, e := range sim.LedgerEntries() {
		for _, p := range e.Postings {
			k := p.Account + " " + p.Asset
			cur, ok := sums[k]
			if !ok {
				cur = money.Zero(p.Amount.Scale())
			}
			cur, _ = cur.Add(p.Amount)
			sums[k] = cur
		}
	}
	out := map[string]string{}
	for k, v := range sums {
		if !v.IsZero() {
			out[k] = v.String()
		}
	}
	return out
}

// balance reads one account balance from the journal ("0" style strings at
// the asset scale; empty when zero).
func balance(sim *simulator.Simulator, account, asset string) string {
	return books(sim)[account+" "+asset]
}

// qrEvents returns the qrpay events: type, bare id, status, version.
func qrEvents(sim *simulator.Simulator) []simulator.Event {
	var out []simulator.Event
	for _, e := range sim.Events.List() {
		if strings.HasPrefix(e.Type, "qrpay.") {
			out = append(out, e)
		}
	}
	return out
}
