package qrpay_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// qrOutcome is what decode, quote and payment answered for one code, each
// written as one line: "payee | amount currency | editable" for decode,
// "payee | acquirer amount currency" for quote and payment, or "error CODE".
// An empty Pay means the code was not paid.
type qrOutcome struct {
	Decode, Quote, Pay string
}

func errLine(err error) string {
	var e *mwallet.Error
	if errors.As(err, &e) {
		return "error " + string(e.Code)
	}
	return "error " + err.Error()
}

// walkCode decodes and quotes code for member1 (amount is sent for
// custom-amount codes only, as a wallet would), and pays it when pay is set,
// completing the step-up the first payment call asks for.
func walkCode(t *testing.T, sim *simulator.Simulator, c *mwclient.Client, code, amount string, pay bool) qrOutcome {
	t.Helper()
	ctx := context.Background()
	var out qrOutcome
	dec, err := c.QRPay.Decode(ctx, member1, qrpay.DecodeParams{CodeValue: code})
	if err != nil {
		out.Decode = errLine(err)
	} else {
		out.Decode = fmt.Sprintf("%s | %s %s | editable=%v", dec.Payee, dec.Amount.Amount, dec.Amount.Currency, dec.AmountEditable)
		if !dec.AmountEditable {
			amount = ""
		}
	}
	q, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code, Amount: amount})
	if err != nil {
		out.Quote = errLine(err)
	} else {
		out.Quote = fmt.Sprintf("%s | %s %s", q.Payee, q.Acquirer.Amount, q.Acquirer.Currency)
	}
	if !pay {
		return out
	}
	p := qrpay.PayParams{CodeValue: code, Amount: amount}
	o, err := c.QRPay.Pay(ctx, member1, p, mwallet.WithMaxAttempts(1))
	if su, ok := mwallet.AsStepUp(err); ok {
		if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
			t.Fatal(err)
		}
		o, err = c.QRPay.Pay(ctx, member1, p, append(su.Options(), mwallet.WithMaxAttempts(1))...)
	}
	if err != nil {
		out.Pay = errLine(err)
	} else {
		out.Pay = fmt.Sprintf("%s | %s %s", o.Payee, o.Acquirer.Amount, o.Acquirer.Currency)
	}
	return out
}

// TestQRDeviationsAnswerAlike runs the deviations real generators print
// through decode, quote and payment; each is decided once and all three
// answer alike (simulator/guide/qr-payments-and-in-flight.md, "QR payments", readings):
//   - ID 54 of zero, or empty, is an open amount: decode says editable with amount "",
//     quotes and payments need the amount like any custom-amount code;
//   - more decimals than the currency has are read exactly when they are
//     zeros ("350.000" THB is 350.00) and refused with qr_code_invalid when
//     not (350.005 THB cannot be paid without rounding);
//   - an empty optional field (5900 name, 6000 city, 5200 category, ...) is
//     absent: the payee comes from the account template;
//   - a template whose variant the scheme's layout does not define gives
//     the scheme's name, never the raw sub-object.
func TestQRDeviationsAnswerAlike(t *testing.T) {
	t.Parallel()
	mobile := tl("29", tl("00", "A000000677010111"), tl("01", "0066812345678"))
	th := func(amount string, more ...string) string {
		objs := []string{tl("00", "01"), tl("01", "12"), mobile, tl("53", "764")}
		if amount != "" {
			objs = append(objs, tl("54", amount))
		}
		return sealed(append(append(objs, tl("58", "TH")), more...)...)
	}
	vn := func(amount string) string {
		return sealed(tl("00", "01"), tl("01", "12"), tl("38", tl("00", "A000000727"), tl("01", tl("00", "970416"), tl("01", "257678859")), tl("02", "QRIBFTTA")),
			tl("53", "704"), tl("54", amount), tl("58", "VN"))
	}
	const payee = "mobile +66812345678"
	open := func(amount string) qrOutcome {
		line := payee + " | " + amount + " THB"
		return qrOutcome{payee + " |  THB | editable=true", line, line}
	}
	fixed := func(printed, paid string) qrOutcome {
		line := payee + " | " + paid + " THB"
		return qrOutcome{payee + " | " + printed + " THB | editable=false", line, line}
	}
	invalid := qrOutcome{"error qr_code_invalid", "error qr_code_invalid", "error qr_code_invalid"}
	tests := []struct {
		name   string
		code   string
		amount string // sent for custom-amount codes
		want   qrOutcome
	}{
		{"no amount", th(""), "100.00", open("100.00")},
		{"amount 0", th("0"), "100.00", open("100.00")},
		{"amount 0.00", th("0.00"), "100.00", open("100.00")},
		{"empty amount 5400", sealed(tl("00", "01"), tl("01", "11"), mobile, tl("53", "764"), tl("54", ""), tl("58", "TH")), "100.00", open("100.00")},
		{"amount 0, no amount sent", th("0"), "", qrOutcome{payee + " |  THB | editable=true", "error invalid_request", "error invalid_request"}},
		{"two decimals", th("350.00"), "", fixed("350.00", "350.00")},
		{"no decimals", th("350"), "", fixed("350", "350.00")},
		{"three decimals, zero", th("350.000"), "", fixed("350.000", "350.00")},
		{"three decimals, not zero", th("350.005"), "", invalid},
		{"VND with zero decimals", vn("250000.00"), "", qrOutcome{"account 257678859, bank 970416 | 250000.00 VND | editable=false",
			"account 257678859, bank 970416 | 250000 VND", "account 257678859, bank 970416 | 250000 VND"}},
		{"VND with a decimal", vn("250000.5"), "", invalid},
		{"empty name 5900", th("350.00", tl("59", "")), "", fixed("350.00", "350.00")},
		{"empty name, city and category", th("350.00", tl("59", ""), tl("60", ""), tl("52", "")), "", fixed("350.00", "350.00")},
		{"named code keeps its name", th("350.00", tl("59", "BAAN THAI KITCHEN")), "", qrOutcome{"BAAN THAI KITCHEN | 350.00 THB | editable=false",
			"BAAN THAI KITCHEN | 350.00 THB", "BAAN THAI KITCHEN | 350.00 THB"}},
		{"PayNow proxy type the layout does not define", sealed(tl("00", "01"), tl("01", "12"), tl("26", tl("00", "SG.PAYNOW"), tl("01", "9"), tl("02", "0000")),
			tl("53", "702"), tl("54", "13.50"), tl("58", "SG")), "", qrOutcome{"PayNow | 13.50 SGD | editable=false", "PayNow | 13.50 SGD", "PayNow | 13.50 SGD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			entries := len(sim.LedgerEntries())
			got := walkCode(t, sim, c, tt.code, tt.amount, true)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decode, quote, payment (-want +got):\n%s", diff)
			}
			if tt.want.Pay == "" || tt.want.Pay[:6] == "error " {
				if n := len(sim.LedgerEntries()); n != entries {
					t.Errorf("a refused code posted %d ledger entries", n-entries)
				}
			}
		})
	}
}
