// Command qrpay pays a fiat QR code with a member's digital assets: decode,
// quote, pay through strong authentication, then wait for the upstream's
// outcome.
//
// Against the embedded simulator (the default) it builds a PromptPay code,
// completes the end user's step-up itself and lets the upstream answer 10
// seconds later on the simulator clock:
//
//	go run ./examples/qrpay
//	go run ./examples/qrpay -outcome fail      # or timeout: the order stays processing
//
// Against a real environment it never plays the end user or the upstream.
// Give the scanned text with -code; the first run stops at step-up and
// prints the hosted screen and the command that resends the same payment
// (same idempotency key, x-step-up) once the end user has completed it:
//
//	export MWALLET_CLIENT_ID=... MWALLET_API_KEY=... MWALLET_SIGNING_KEY=... MWALLET_MEMBER=...
//	go run ./examples/qrpay -base-url https://sandbox.example -code '000201...6304ABCD'
//	go run ./examples/qrpay -base-url https://sandbox.example -code '000201...6304ABCD' \
//	    -challenge <challenge_id> -idempotency-key <key>
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/examples/internal/exenv"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exenv.Main(func(args []string) error { return run(ctx, os.Stdout, args) })
}

type options struct {
	code, asset, currency, amount string
	challenge, key                string
	outcome                       string
	wait                          time.Duration
}

func run(ctx context.Context, stdout io.Writer, args []string) error {
	var o options
	flags, err := exenv.Parse("qrpay", stdout, args, func(fs *flag.FlagSet) {
		fs.StringVar(&o.code, "code", "", "the scanned QR text, unmodified (default with the simulator: a 250.00 THB PromptPay bill)")
		fs.StringVar(&o.asset, "asset", "", "preferred debit asset (default: the member's payment priority)")
		fs.StringVar(&o.currency, "currency", "", "fiat currency, for custom-amount codes only")
		fs.StringVar(&o.amount, "amount", "", "fiat amount, for custom-amount codes only")
		fs.StringVar(&o.challenge, "challenge", "", "challenge_id of a completed step-up (resend; needs -idempotency-key)")
		fs.StringVar(&o.key, "idempotency-key", "", "idempotency key of the payment being resent after step-up")
		fs.StringVar(&o.outcome, "outcome", "complete", "simulator only: the upstream's answer, complete, fail or timeout")
		fs.DurationVar(&o.wait, "wait", 2*time.Minute, "how long to wait for the outcome")
	})
	if err != nil {
		return err
	}
	env, err := flags.Open()
	if err != nil {
		return err
	}
	defer env.Close()
	if (o.challenge == "") != (o.key == "") {
		return errors.New("-challenge and -idempotency-key go together: resend the same payment with the same key")
	}
	if o.code == "" {
		if !env.Simulated() {
			return errors.New("give the scanned QR text with -code")
		}
		o.code = sampleqr.PromptPay
	}
	client, member := env.Client, env.Member

	// 1. Decode: who is paid, how much, and whether the payer types the amount.
	dec, err := client.QRPay.Decode(ctx, member, qrpay.DecodeParams{CodeValue: o.code})
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	fmt.Fprintf(stdout, "decode:  pay %s to %s (amount editable: %v)\n", dec.Amount, dec.Payee, dec.AmountEditable)
	if len(dec.RequiredPayerFields) > 0 {
		return fmt.Errorf("this code needs payer data %v, which this example does not collect", dec.RequiredPayerFields)
	}

	// 2. Quote: indicative, one option per asset. Parse nothing by hand: the
	// SDK parsed every amount at its item's ledger_scale.
	q, err := client.QRPay.Quote(ctx, member, qrpay.QuoteParams{
		CodeValue: o.code, Currency: o.currency, Amount: o.amount, PreferredAsset: o.asset,
	})
	if err != nil {
		return fmt.Errorf("quote: %w", err)
	}
	for _, opt := range q.Options {
		fmt.Fprintf(stdout, "quote:   %s %s (fee %s) sufficient=%v\n", opt.CustomerTotal, opt.Asset, opt.Fee, opt.Sufficient)
	}
	if q.BlockedReason != "" {
		return fmt.Errorf("quote: the payment would be refused: %s", q.BlockedReason)
	}

	// 3. Pay. Every payment needs strong authentication: the first call
	// answers step_up_required; the resend carries the same idempotency key
	// and the challenge id.
	p := qrpay.PayParams{CodeValue: o.code, Currency: o.currency, Amount: o.amount, PreferredAsset: o.asset}
	var opts []mwallet.CallOption
	if o.challenge != "" {
		opts = []mwallet.CallOption{mwallet.WithIdempotencyKey(o.key), mwallet.WithStepUp(o.challenge)}
	}
	order, err := client.QRPay.Pay(ctx, member, p, opts...)
	if su, ok := mwallet.AsStepUp(err); ok {
		fmt.Fprintf(stdout, "pay:     step-up required, challenge %s valid until %s\n", su.ChallengeID, su.ExpiresAt.Format(time.RFC3339))
		if !env.Simulated() {
			fmt.Fprintf(stdout, "next:    the end user completes %s; then resend the same payment with the same key:\n", su.HostedURL)
			fmt.Fprintf(stdout, "         go run ./examples/qrpay -base-url %s -code '%s' -challenge %s -idempotency-key %s\n",
				client.BaseURL(), o.code, su.ChallengeID, su.IdempotencyKey)
			return nil
		}
		// The simulator plays the end user finishing the hosted screen.
		if err := env.Sim.StepUp.Complete(su.ChallengeID); err != nil {
			return err
		}
		order, err = client.QRPay.Pay(ctx, member, p, su.Options()...)
	}
	if err != nil {
		return fmt.Errorf("pay: %w", err)
	}
	// 201 is not "paid": processing means the outcome is unknown.
	fmt.Fprintf(stdout, "pay:     order %s %s, %s %s held (replayed: %v)\n", order.ID, order.Status, order.CustomerTotal, order.Asset, order.Response.Replayed)

	// 4. The outcome. Production code waits for the qrpay.order.* webhook;
	// WaitForOutcome polls the order as a fallback.
	waitOpts := []qrpay.WaitOption{}
	if env.Simulated() {
		if err := driveOutcome(env.Sim, order.ID, o.outcome); err != nil {
			return err
		}
		// Polling sleeps on the simulator clock, so nothing really waits;
		// -wait is then simulated time too.
		var waited time.Duration
		waitOpts = append(waitOpts, qrpay.WithSleep(func(ctx context.Context, d time.Duration) error {
			if waited += d; waited > o.wait {
				return context.DeadlineExceeded
			}
			env.Sim.Clock.Advance(d)
			return ctx.Err()
		}))
	}
	wctx, cancel := context.WithTimeout(ctx, o.wait)
	defer cancel()
	final, err := client.QRPay.WaitForOutcome(wctx, member, order.ID, waitOpts...)
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		fmt.Fprintf(stdout, "outcome: still processing after %s: the funds stay held; do not unlock, do not declare failure, do not pay again; the qrpay.order.* webhook brings the outcome\n", o.wait)
	case err != nil:
		return fmt.Errorf("wait: %w", err)
	case final.Status == qrpay.StatusCompleted:
		fmt.Fprintf(stdout, "outcome: %s completed: the acquiring merchant is paid\n", final.ID)
	case final.Status == qrpay.StatusFailed:
		fmt.Fprintf(stdout, "outcome: %s failed: the full debit was returned to the member\n", final.ID)
	default:
		fmt.Fprintf(stdout, "outcome: %s %s\n", final.ID, final.Status)
	}
	if env.Simulated() {
		if err := env.Sim.CheckLedger(); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		if err := env.Sim.CheckInvariants(); err != nil {
			return fmt.Errorf("invariants: %w", err)
		}
		fmt.Fprintln(stdout, "ledger:  balanced")
	}
	return nil
}

// driveOutcome plays the upstream on the simulator: it answers 10 seconds
// after the payment, or never (timeout).
func driveOutcome(sim *simulator.Simulator, orderID, outcome string) error {
	switch outcome {
	case "complete":
		return sim.Outcomes.SetObject(orderID, simulator.After(10*time.Second))
	case "fail":
		return sim.QRPay.Fail(orderID)
	case "timeout":
		return sim.QRPay.Timeout(orderID)
	}
	return fmt.Errorf("-outcome must be complete, fail or timeout, not %q", outcome)
}
