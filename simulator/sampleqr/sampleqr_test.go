package sampleqr_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// Every scheme the simulator decodes has exactly one fixed-amount and one
// custom-amount sample, and each sample is what its Sample row says: it
// decodes (CRC, lengths), names its scheme, currency, amount and payee.
func TestEverySchemeHasBothSamples(t *testing.T) {
	t.Parallel()
	type kinds struct{ Fixed, Custom int }
	want, got := map[string]kinds{}, map[string]kinds{}
	for _, sc := range emvqr.Schemes() {
		want[sc.ID] = kinds{1, 1}
	}
	seen := map[string]string{}
	for _, s := range sampleqr.All() {
		if other, dup := seen[s.Value]; dup {
			t.Errorf("%s and %s are the same code", s.Name, other)
		}
		seen[s.Value] = s.Name
		k := got[s.Scheme]
		if s.Amount == "" {
			k.Custom++
		} else {
			k.Fixed++
		}
		got[s.Scheme] = k

		p, err := emvqr.Decode(s.Value)
		if err != nil {
			t.Errorf("%s does not decode: %v", s.Name, err)
			continue
		}
		sc, ok := p.Scheme()
		cur, _ := p.CurrencyAlpha()
		if !ok || sc.ID != s.Scheme || cur != s.Currency || sc.Currency != s.Currency || p.Amount != s.Amount ||
			p.AmountEditable() != (s.Amount == "") || p.MerchantName != s.Payee || len(p.MissingEMVCoFields()) != 0 {
			t.Errorf("%s decodes as scheme %s (%v), %s %q, payee %q, missing %v; the sample says %+v",
				s.Name, sc.ID, ok, cur, p.Amount, p.MerchantName, p.MissingEMVCoFields(), s)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("samples per scheme (-want +got):\n%s", diff)
	}
}

// Every sample goes through the SDK against the simulator: decoded as its
// row says, quoted (a custom-amount code with an amount of its currency),
// and paid through step-up; the books balance at the end (simtest).
func TestEverySampleDecodesQuotesAndPays(t *testing.T) {
	t.Parallel()
	fixed := map[string]string{} // scheme -> the fixed sample's amount, above the line minimum
	for _, s := range sampleqr.All() {
		if s.Amount != "" {
			fixed[s.Scheme] = s.Amount
		}
	}
	for _, s := range sampleqr.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			sim, client := simtest.New(t)
			ctx := context.Background()
			dec, err := client.QRPay.Decode(ctx, "member-1", qrpay.DecodeParams{CodeValue: s.Value})
			if err != nil {
				t.Fatal(err)
			}
			if dec.Payee != s.Payee || dec.Amount.Currency != s.Currency || dec.Amount.Amount != s.Amount || dec.AmountEditable != (s.Amount == "") {
				t.Errorf("decoded %+v, want %+v", dec, s)
			}
			var currency, amount string
			if dec.AmountEditable {
				currency, amount = s.Currency, fixed[s.Scheme]
			}
			q, err := client.QRPay.Quote(ctx, "member-1", qrpay.QuoteParams{CodeValue: s.Value, Currency: currency, Amount: amount, PreferredAsset: "USDT"})
			if err != nil {
				t.Fatalf("quote: %v", err)
			}
			p := qrpay.PayParams{CodeValue: s.Value, Currency: currency, Amount: amount, PreferredAsset: q.Chosen.Asset}
			_, err = client.QRPay.Pay(ctx, "member-1", p)
			su, ok := mwallet.AsStepUp(err)
			if !ok {
				t.Fatalf("pay: %v, want step_up_required", err)
			}
			if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
				t.Fatal(err)
			}
			order, err := client.QRPay.Pay(ctx, "member-1", p, su.Options()...)
			if err != nil {
				t.Fatalf("pay after step-up: %v", err)
			}
			if order.Status != qrpay.StatusProcessing || order.Asset != "USDT" || order.CustomerTotal.Sign() <= 0 {
				t.Errorf("order %s %s %s, want processing in USDT", order.Status, order.CustomerTotal, order.Asset)
			}
		})
	}
}

// TestOtherLanguagesTable: the table of docs/other-languages.md (for teams
// without Go) lists every sample with its scheme, currency, amount, payee
// and code, in the order of All, and nothing else.
func TestOtherLanguagesTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/other-languages.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []sampleqr.Sample
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 5 || !strings.HasPrefix(cells[4], "`0002") {
			continue
		}
		amount := cells[2]
		if amount == "payer enters it" {
			amount = ""
		}
		got = append(got, sampleqr.Sample{Scheme: cells[0], Currency: cells[1], Amount: amount, Payee: cells[3], Value: strings.Trim(cells[4], "`")})
	}
	want := sampleqr.All()
	for i := range want {
		want[i].Name = ""
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/other-languages.md's sample table differs from All() (-want +got):\n%s", diff)
	}
}
