// Command remittance sends money to one of the member's saved payees and
// follows the order to its outcome.
//
// The amount is what the payee receives, in the payee's currency at exactly
// that currency's precision; the member's asset is held with a slippage
// margin (locked_amount) and the excess comes back at settlement.
//
// Against the embedded simulator (the default) the upstream dispatches and
// pays the order:
//
//	go run ./examples/remittance
//	go run ./examples/remittance -currency JPY -amount 15000
//
// Against a real environment the program only reads the order until it is
// final or -wait has passed:
//
//	export MWALLET_CLIENT_ID=... MWALLET_API_KEY=... MWALLET_SIGNING_KEY=... MWALLET_MEMBER=...
//	go run ./examples/remittance -base-url https://sandbox.example -currency GBP -amount 10
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/examples/internal/exenv"
	"github.com/mwallet/mwallet-go/remittance"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exenv.Main(func(args []string) error { return run(ctx, os.Stdout, args) })
}

func run(ctx context.Context, stdout io.Writer, args []string) error {
	var currency, amount, purpose string
	var slippage int
	var wait time.Duration
	flags, err := exenv.Parse("remittance", stdout, args, func(fs *flag.FlagSet) {
		fs.StringVar(&currency, "currency", "GBP", "payout currency: the first saved payee in it is paid")
		fs.StringVar(&amount, "amount", "100", "amount the payee receives, in the payout currency")
		fs.StringVar(&purpose, "purpose", string(remittance.PurposeFamilySupport), "purpose code")
		fs.IntVar(&slippage, "slippage-bps", 100, "price protection in basis points (50 to 1000)")
		fs.DurationVar(&wait, "wait", time.Minute, "real environment: how long to follow the order")
	})
	if err != nil {
		return err
	}
	env, err := flags.Open()
	if err != nil {
		return err
	}
	defer env.Close()
	client, member := env.Client, env.Member

	// 1. The payee decides the corridor and the payout currency.
	var payee remittance.Payee
	for p, err := range client.Remittances.Payees(ctx, member, mwallet.ListParams{}) {
		if err != nil {
			return fmt.Errorf("payees: %w", err)
		}
		if strings.EqualFold(p.Currency, currency) {
			payee = p
			break
		}
	}
	if payee.ID == "" {
		return fmt.Errorf("the member has no saved payee in %s", currency)
	}
	// "100" GBP must be sent as "100.00", "15000.00" JPY as "15000": the
	// SDK formats without rounding and refuses what would need rounding.
	payout, err := remittance.NormalizePayout(payee.Currency, amount)
	if err != nil {
		return err
	}

	// 2. Create. The idempotency key is generated once and reused on retries.
	res, err := client.Remittances.Create(ctx, member, remittance.CreateParams{
		PayeeID: payee.ID, PayoutAmount: payout, PayoutCurrency: payee.Currency,
		SlippageBps: slippage, PurposeCode: remittance.PurposeCode(purpose),
	})
	if err != nil {
		return fmt.Errorf("create: %w", err)
	}
	fmt.Fprintf(stdout, "create:   %s %s %s to %s (%s): %s\n", res.ID, payout, payee.Currency, payee.Holder, payee.Corridor, res.Status)
	fmt.Fprintf(stdout, "price:    customer_total %s %s, locked %s %s with %d bps of slippage\n",
		res.Quote.CustomerTotal, res.Quote.SourceAsset, res.Quote.LockedAmount, res.Quote.SourceAsset, slippage)

	// 3. Follow the order. Merge every snapshot by status_version, forward
	// only; decide completion by status, never by payout_date.
	current, err := client.Remittances.Get(ctx, member, res.ID)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	order := current
	if env.Simulated() {
		sim := env.Sim
		if err := sim.Remittances.Dispatch(res.ID); err != nil { // the upstream takes the order
			return err
		}
		if current, err = client.Remittances.Get(ctx, member, res.ID); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		order = remittance.Merge(order, current)
		fmt.Fprintf(stdout, "dispatch: %s, payout_date %s, rate %s dealt=%v: a value date, not completion\n",
			order.Status, order.PayoutDate, order.Rate, order.RateIsDealt)
		if err := sim.Remittances.Complete(res.ID, ""); err != nil { // the payee is paid
			return err
		}
	}
	deadline := time.Now().Add(wait)
	for {
		if current, err = client.Remittances.Get(ctx, member, res.ID); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		order = remittance.Merge(order, current)
		if order.IsFinal() || env.Simulated() || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
	switch {
	case order.IsCompleted():
		fmt.Fprintf(stdout, "outcome:  completed (version %d): %s %s settled of %s locked, the rest returned\n",
			order.StatusVersion, order.SettledAmount, order.SourceAsset, order.LockedAmount)
	case order.Status == remittance.StatusFailed:
		fmt.Fprintf(stdout, "outcome:  failed (%s): every locked unit returned\n", order.FailureCode)
	case order.Status.NeedsAction():
		fmt.Fprintln(stdout, "outcome:  needs_reconfirm: the member must confirm a new price (remittance.order.action_required)")
	case !order.Status.Known():
		fmt.Fprintf(stdout, "outcome:  unknown status %q kept as is: alert, do not guess\n", order.Status)
	default:
		fmt.Fprintf(stdout, "outcome:  still %s after %s; the remittance.order.* webhooks bring the outcome\n", order.Status, wait)
	}
	if env.Simulated() {
		if err := env.Sim.CheckLedger(); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		if err := env.Sim.CheckInvariants(); err != nil {
			return fmt.Errorf("invariants: %w", err)
		}
		fmt.Fprintln(stdout, "ledger:   balanced")
	}
	return nil
}
