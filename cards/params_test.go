package cards_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestClientSideValidation checks that bad input is refused by the SDK with a
// *mwallet.ParamError before anything is sent.
func TestClientSideValidation(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	card := "crd_00000000-0000-4000-8000-000000000000"
	good := cards.ApplyParams{ClientKey: "k1", SourceAsset: "USDT", ProductID: "cpd_virtual_std"}
	with := func(f func(p *cards.ApplyParams)) cards.ApplyParams { p := good; f(&p); return p }
	txErr := func(f cards.TransactionListParams) error {
		for _, err := range cl.Cards.Transactions(ctx, member, card, f) {
			return err
		}
		return nil
	}
	tests := []struct {
		name  string
		call  func() error
		param string
	}{
		{"apply without client key", func() error {
			_, err := cl.Cards.Apply(ctx, member, with(func(p *cards.ApplyParams) { p.ClientKey = " " }))
			return err
		}, "client_key"},
		{"apply without source asset", func() error {
			_, err := cl.Cards.Apply(ctx, member, with(func(p *cards.ApplyParams) { p.SourceAsset = "" }))
			return err
		}, "source_asset"},
		{"apply with a miscased form factor", func() error {
			_, err := cl.Cards.Apply(ctx, member, with(func(p *cards.ApplyParams) { p.FormFactor = "Physical" }))
			return err
		}, "form_factor"},
		{"apply with a negative first top-up", func() error {
			_, err := cl.Cards.Apply(ctx, member, with(func(p *cards.ApplyParams) { p.FirstTopUp = usdt("-1") }))
			return err
		}, "first_topup"},
		{"apply with an unknown funding source", func() error {
			_, err := cl.Cards.Apply(ctx, member, with(func(p *cards.ApplyParams) { p.FundingSource = "bank" }))
			return err
		}, "funding_source"},
		{"apply without member", func() error { _, err := cl.Cards.Apply(ctx, "  ", good); return err }, "member"},
		{"get without card id", func() error { _, err := cl.Cards.Get(ctx, member, ""); return err }, "card id"},
		{"card id with a slash", func() error { _, err := cl.Cards.Get(ctx, member, "crd_a/b"); return err }, "card id"},
		{"activate with month 13", func() error {
			_, err := cl.Cards.Activate(ctx, member, card, cards.ActivateParams{Expiry: "13/29", PIN: goodPIN})
			return err
		}, "expiry"},
		{"activate with a four-digit year", func() error {
			_, err := cl.Cards.Activate(ctx, member, card, cards.ActivateParams{Expiry: "01/2029", PIN: goodPIN})
			return err
		}, "expiry"},
		{"activate with a non-digit PIN", func() error {
			_, err := cl.Cards.Activate(ctx, member, card, cards.ActivateParams{Expiry: "01/29", PIN: "12a456"})
			return err
		}, "pin"},
		{"PIN with neither current PIN nor CVV", func() error {
			_, err := cl.Cards.SetPIN(ctx, member, card, cards.SetPINParams{NewPIN: "246809"})
			return err
		}, "current_pin"},
		{"PIN with both current PIN and CVV", func() error {
			_, err := cl.Cards.SetPIN(ctx, member, card, cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN, CVV: "123"})
			return err
		}, "current_pin"},
		{"PIN with a four-digit CVV", func() error {
			_, err := cl.Cards.SetPIN(ctx, member, card, cards.SetPINParams{NewPIN: "246809", CVV: "1234"})
			return err
		}, "cvv"},
		{"empty new PIN", func() error {
			_, err := cl.Cards.SetPIN(ctx, member, card, cards.SetPINParams{CVV: "123"})
			return err
		}, "new_pin"},
		{"lost with an unknown kind", func() error { _, err := cl.Cards.ReportLost(ctx, member, card, "misplaced"); return err }, "kind"},
		{"top-up of zero", func() error {
			_, err := cl.Cards.TopUp(ctx, member, card, cards.TopUpParams{Amount: money.Zero(6)})
			return err
		}, "amount"},
		{"estimate of a negative amount", func() error {
			_, err := cl.Cards.EstimateTopUp(ctx, member, card, cards.EstimateParams{Amount: usdt("-5")})
			return err
		}, "amount"},
		{"transactions with a malformed id", func() error { return txErr(cards.TransactionListParams{ID: "ctx_123"}) }, "id"},
		{"transactions with a long kind", func() error {
			return txErr(cards.TransactionListParams{Kind: cards.TransactionKind(strings.Repeat("k", 65))})
		}, "kind"},
		{"transactions with a long auth code", func() error { return txErr(cards.TransactionListParams{AuthCode: strings.Repeat("a", 65)}) }, "auth_code"},
		{"transactions with a long status", func() error {
			return txErr(cards.TransactionListParams{Status: cards.TransactionStatus(strings.Repeat("s", 65))})
		}, "status"},
		{"transactions with a bad direction", func() error { return txErr(cards.TransactionListParams{Direction: "Debit"}) }, "direction"},
	}
	before := len(sim.Requests.List())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantParam(t, tt.call(), tt.param) })
	}
	if n := len(sim.Requests.List()); n != before {
		t.Fatalf("%d requests reached the service", n-before)
	}
	checkBooks(t, sim)
}

// TestSecretsNeverPrint checks that PINs, CVVs and session tokens stay out of
// fmt, JSON, text and slog output, while the request still carries them.
func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	p := cards.SetPINParams{NewPIN: "246809", CurrentPIN: "135790", CVV: "864"}
	a := cards.ActivateParams{Expiry: "01/29", PIN: "975310"}
	tok := cards.SessionToken("sst_0123456789abcdef")
	secrets := []string{"246809", "135790", "864", "975310", "0123456789abcdef"}
	var outs []string
	for _, v := range []any{p, &p, a, p.NewPIN, p.CVV, tok} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10s"} {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, string(b))
	}
	var buf bytes.Buffer
	// No time attribute: a three-digit CVV could appear in a timestamp by
	// chance and fail the test for nothing.
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	log := slog.New(slog.NewJSONHandler(&buf, noTime))
	log.Info("pin", "params", p, "pin", p.NewPIN, "cvv", p.CVV, "token", tok)
	slog.New(slog.NewTextHandler(&buf, noTime)).Info("pin", "params", p, "pin", p.NewPIN, "token", tok)
	outs = append(outs, buf.String())
	for _, out := range outs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Fatalf("secret %q printed in %q", s, out)
			}
		}
	}
	if tok.Reveal() != "sst_0123456789abcdef" {
		t.Fatal("Reveal lost the token")
	}

	// Through a real call: the PIN works, and the simulator's request journal
	// and errors do not hold it.
	sim, cl := simtest.New(t)
	id := activePhysical(t, sim, cl)
	_, err := cl.Cards.SetPIN(ctx, member, id, cards.SetPINParams{NewPIN: "2468", CurrentPIN: goodPIN})
	apiErr := simtest.WantCode(t, err, mwallet.CodeCardPinInvalid)
	j, _ := json.Marshal(sim.Requests.List())
	for _, s := range []string{string(goodPIN), "2468"} {
		if strings.Contains(string(j), s) || strings.Contains(apiErr.Error(), s) {
			t.Fatalf("PIN %s found in the journal or the error", s)
		}
	}
	checkBooks(t, sim)
}

func TestEnumerations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		known bool
		got   bool
	}{
		{"card status active", true, cards.CardActive.Known()},
		{"card status unknown kept", false, cards.CardStatus("archived").Known()},
		{"application issued", true, cards.ApplicationIssued.Known()},
		{"application unknown", false, cards.ApplicationStatus("queued").Known()},
		{"kind auth", true, cards.TransactionKindAuth.Known()},
		{"kind refund is open", false, cards.TransactionKind("refund").Known()},
		{"status succeed", true, cards.TransactionSucceeded.Known()},
		{"direction none", true, cards.DirectionNone.Known()},
		{"direction upper case", false, cards.Direction("DEBIT").Known()},
		{"top-up completed", true, cards.TopUpCompleted.Known()},
		{"form factor physical_card", true, cards.ProductFormFactorPhysical.Known()},
		{"funding merchant", true, mwallet.FundingMerchant.Known()},
		{"lost kind stolen", true, cards.LostKindStolen.Known()},
		{"close blocker", true, cards.CloseBlockedUnsettled.Known()},
		{"close blocker top-up in flight", true, cards.CloseBlockedTopUpInFlight.Known()},
	} {
		if tc.got != tc.known {
			t.Errorf("%s: Known() = %v", tc.name, tc.got)
		}
	}
	if !cards.ProductFormFactorPhysical.Physical() || cards.FormFactorVirtual.Physical() {
		t.Error("Physical() mismatch")
	}
	if !cards.CardPending.AcceptsTopUps() || cards.CardLost.AcceptsTopUps() {
		t.Error("AcceptsTopUps() mismatch")
	}
	// An unknown value survives decoding verbatim.
	var c cards.Card
	if err := json.Unmarshal([]byte(`{"id":"crd_x","status":"archived","scale":2,"balance":"1.50"}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Status != "archived" || c.Status.Known() || c.Balance.String() != "1.50" {
		t.Fatalf("decoded %+v", c)
	}
}
