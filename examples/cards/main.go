// Command cards applies for a virtual card, waits for its issuance, tops it
// up and reads its transactions.
//
// Against the embedded simulator (the default) the issuer approves the
// application, credits the top-up and records two card transactions:
//
//	go run ./examples/cards
//
// Against a real environment nothing is played: the program waits for the
// issuer (-wait) and says what to watch for. Applying costs the product's
// issue fee; use a sandbox. Keep the printed client key: rerunning with
// -client-key returns the same application instead of issuing a second card.
//
//	export MWALLET_CLIENT_ID=... MWALLET_API_KEY=... MWALLET_SIGNING_KEY=... MWALLET_MEMBER=...
//	go run ./examples/cards -base-url https://sandbox.example
//	go run ./examples/cards -base-url https://sandbox.example -client-key <key printed by the first run>
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

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/examples/internal/exenv"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exenv.Main(func(args []string) error { return run(ctx, os.Stdout, args) })
}

func run(ctx context.Context, stdout io.Writer, args []string) error {
	var product, asset, topup, clientKey string
	var wait time.Duration
	flags, err := exenv.Parse("cards", stdout, args, func(fs *flag.FlagSet) {
		fs.StringVar(&product, "product", "", "card product id (default: the first virtual product the member can apply for)")
		fs.StringVar(&asset, "asset", "USDT", "source asset paying the fees and the top-up")
		fs.StringVar(&topup, "topup", "25", "top-up amount in the source asset")
		fs.StringVar(&clientKey, "client-key", "", "client key of an earlier run's application (default: a new application)")
		fs.DurationVar(&wait, "wait", time.Minute, "real environment: how long to wait for issuance")
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

	// 1. Choose a product and read its invoice for this member.
	if product == "" {
		for p, err := range client.Cards.Products(ctx) {
			if err != nil {
				return fmt.Errorf("products: %w", err)
			}
			if p.FormFactor.Physical() {
				continue
			}
			iv, err := client.Cards.Quote(ctx, member, p.ID, cards.QuoteParams{})
			if err != nil {
				return fmt.Errorf("invoice of %s: %w", p.ID, err)
			}
			if iv.CanApply && !iv.HasMinFirstTopUp() {
				product = p.ID
				break
			}
		}
		if product == "" {
			return errors.New("no virtual card product this member can apply for without a first top-up")
		}
	}
	iv, err := client.Cards.Quote(ctx, member, product, cards.QuoteParams{})
	if err != nil {
		return fmt.Errorf("invoice: %w", err)
	}
	fmt.Fprintf(stdout, "invoice:     %s issue fee %s %s, can apply: %v\n", product, iv.IssueFee, iv.FeeAsset, iv.CanApply)
	if !iv.CanApply {
		return fmt.Errorf("the member cannot apply for %s: %s", product, iv.Reason)
	}

	// 2. Apply. The client key is the application's permanent business key:
	// store it with your order and resend it on every attempt, however late.
	if clientKey == "" {
		clientKey = cards.NewClientKey()
	}
	app, err := client.Cards.Apply(ctx, member, cards.ApplyParams{ClientKey: clientKey, SourceAsset: asset, ProductID: product})
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	fmt.Fprintf(stdout, "application: %s %s (client key %s, existing: %v)\n", app.ID, app.Status, clientKey, app.Existing)

	// 3. Issuance is asynchronous: only status issued means the card exists
	// (event card.application.approved).
	if env.Simulated() && app.Status.InProgress() {
		if err := env.Sim.Cards.ApproveApplication(app.ID); err != nil {
			return err
		}
	}
	app, err = waitIssued(ctx, client, member, app.ID, wait, env.Simulated())
	if err != nil {
		return err
	}
	if app.Status != cards.ApplicationIssued {
		fmt.Fprintf(stdout, "application: still %s after %s; watch for card.application.approved or rejected, then rerun with -client-key %s\n", app.Status, wait, clientKey)
		return nil
	}
	card, err := client.Cards.Get(ctx, member, app.CardID)
	if err != nil {
		return fmt.Errorf("card: %w", err)
	}
	fmt.Fprintf(stdout, "card:        %s %s, balance %s %s\n", card.ID, card.Status, card.Balance, card.Currency)

	// 4. Top up. 201 processing is not a credit: card.topup.credited is.
	amount, err := client.ParseAmount(ctx, asset, topup)
	if err != nil {
		return err
	}
	top, err := client.Cards.TopUp(ctx, member, card.ID, cards.TopUpParams{Amount: amount, SourceAsset: asset})
	if err != nil {
		return fmt.Errorf("top-up: %w", err)
	}
	fmt.Fprintf(stdout, "top-up:      %s %s %s, %s\n", top.ID, amount, asset, top.Status)
	if !env.Simulated() {
		fmt.Fprintln(stdout, "top-up:      the card balance grows when card.topup.credited arrives; re-read the card then")
		return listTransactions(ctx, stdout, client, member, card.ID)
	}
	if err := env.Sim.Cards.CreditTopUp(top.ID); err != nil {
		return err
	}
	if card, err = client.Cards.Get(ctx, member, card.ID); err != nil {
		return fmt.Errorf("card: %w", err)
	}
	fmt.Fprintf(stdout, "top-up:      credited, balance %s %s\n", card.Balance, card.Currency)

	// 5. The card is used (the simulator records a purchase and a refund).
	if _, err := env.Sim.Cards.AddTransaction(card.ID, simulator.CardTransaction{Kind: "auth", Status: "succeed", Direction: "debit",
		Amount: "1250", BillAmount: "1250", MerchantName: "Coffee Corner", MCC: "5814", OccurredAt: env.Sim.Clock.Now().Add(-time.Hour)}); err != nil {
		return err
	}
	if _, err := env.Sim.Cards.AddTransaction(card.ID, simulator.CardTransaction{Kind: "refund", Status: "succeed", Direction: "credit",
		Amount: "250", BillAmount: "250", MerchantName: "Coffee Corner", MCC: "5814"}); err != nil {
		return err
	}
	if err := listTransactions(ctx, stdout, client, member, card.ID); err != nil {
		return err
	}
	if err := env.Sim.CheckLedger(); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if err := env.Sim.CheckInvariants(); err != nil {
		return fmt.Errorf("invariants: %w", err)
	}
	fmt.Fprintln(stdout, "ledger:      balanced")
	return nil
}

// waitIssued reads the application until it is no longer in progress or
// wait has passed (against the simulator the issuer has already answered).
func waitIssued(ctx context.Context, client *mwclient.Client, member, id string, wait time.Duration, simulated bool) (*cards.Application, error) {
	deadline := time.Now().Add(wait)
	for {
		app, err := client.Cards.GetApplication(ctx, member, id)
		if err != nil {
			return nil, fmt.Errorf("application: %w", err)
		}
		if !app.Status.InProgress() || simulated || !time.Now().Before(deadline) {
			return app, nil
		}
		select {
		case <-ctx.Done():
			return app, nil
		case <-time.After(5 * time.Second):
		}
	}
}

// listTransactions prints the card's transactions, newest first. The amount
// is never meaningful without its direction: Signed applies it.
func listTransactions(ctx context.Context, stdout io.Writer, client *mwclient.Client, member, cardID string) error {
	for tx, err := range client.Cards.Transactions(ctx, member, cardID, cards.TransactionListParams{}) {
		if err != nil {
			return fmt.Errorf("transactions: %w", err)
		}
		signed, err := tx.Signed()
		if err != nil { // direction unknown: show it, do not guess
			fmt.Fprintf(stdout, "transaction: %s %s %s %s direction %s\n", tx.Kind, tx.MerchantName, tx.Amount, tx.Currency, tx.Direction)
			continue
		}
		fmt.Fprintf(stdout, "transaction: %s %s %s %s\n", tx.Kind, tx.MerchantName, signed, tx.Currency)
	}
	return nil
}
