package qrpay_test

import (
	"context"
	"fmt"
	"log"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

// The whole flow against the embedded simulator: decode a scanned PromptPay
// code, quote it, pay it through strong authentication, and wait for the
// upstream's outcome.
func Example() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	const member = "member-1"

	// What the camera read: a dynamic PromptPay bill-payment code of 250 THB.
	code := sampleqr.PromptPay

	dec, err := client.QRPay.Decode(ctx, member, qrpay.DecodeParams{CodeValue: code})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("pay %s to %s (amount editable: %v)\n", dec.Amount, dec.Payee, dec.AmountEditable)

	q, err := client.QRPay.Quote(ctx, member, qrpay.QuoteParams{CodeValue: code})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("member pays %s %s, fee %s included\n", q.Chosen.CustomerTotal, q.Chosen.Asset, q.Chosen.Fee)

	p := qrpay.PayParams{CodeValue: code, PreferredAsset: q.Chosen.Asset}
	_, err = client.QRPay.Pay(ctx, member, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		log.Fatal(err)
	}
	fmt.Println("step-up required, valid for", su.ExpiresAt.Sub(sim.Clock.Now()))

	// The end user completes su.HostedURL; the simulator plays that part.
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		log.Fatal(err)
	}
	order, err := client.QRPay.Pay(ctx, member, p, su.Options()...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("order", order.Status, "holding", order.CustomerTotal, order.Asset)

	// The upstream answers 30 seconds later. Polling sleeps on the
	// simulator clock here; in production omit WithSleep.
	if err := sim.Outcomes.SetObject(order.ID, simulator.After(30*time.Second)); err != nil {
		log.Fatal(err)
	}
	final, err := client.QRPay.WaitForOutcome(ctx, member, order.ID,
		qrpay.WithSleep(func(ctx context.Context, d time.Duration) error {
			sim.Clock.Advance(d)
			return ctx.Err()
		}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("outcome", final.Status)
	fmt.Println("books balance:", sim.CheckLedger() == nil && sim.CheckInvariants() == nil)
	// Output:
	// pay 250.00 THB to BAAN THAI KITCHEN (amount editable: false)
	// member pays 7.308109 USDT, fee 0.036359 included
	// step-up required, valid for 5m0s
	// order processing holding 7.308109 USDT
	// outcome completed
	// books balance: true
}
