package cards_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// Example applies for a virtual card, lets the issuer approve it, tops the
// card up and reads its transactions, against the embedded simulator.
func Example() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	const member = "member-1" // the merchant's external_member_id
	must := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}

	invoice, err := client.Cards.Quote(ctx, member, "cpd_virtual_std", cards.QuoteParams{})
	must(err)
	fmt.Println("issue fee:", invoice.IssueFee.Display(invoice.DisplayScale), invoice.FeeAsset, "can apply:", invoice.CanApply)

	// Generate the client key once, store it with your order, and resend the
	// same key on every attempt of this application.
	clientKey := cards.NewClientKey()
	first, err := money.Parse("50", 6)
	must(err)
	app, err := client.Cards.Apply(ctx, member, cards.ApplyParams{
		ClientKey: clientKey, SourceAsset: "USDT", ProductID: "cpd_virtual_std", FirstTopUp: first,
	})
	must(err)
	fmt.Println("application:", app.Status)

	// The issuer approves; in production card.application.approved arrives.
	must(sim.Cards.ApproveApplication(app.ID))
	app, err = client.Cards.GetApplication(ctx, member, app.ID)
	must(err)
	card, err := client.Cards.Get(ctx, member, app.CardID)
	must(err)
	fmt.Println("card:", card.Status, card.Balance, card.Currency)

	// A top-up answers processing: that is not a credit yet.
	amount, err := money.Parse("25", 6)
	must(err)
	topup, err := client.Cards.TopUp(ctx, member, card.ID, cards.TopUpParams{Amount: amount})
	must(err)
	fmt.Println("top-up:", topup.Status)
	must(sim.Cards.CreditTopUp(topup.ID)) // card.topup.credited
	card, err = client.Cards.Get(ctx, member, card.ID)
	must(err)
	fmt.Println("balance after credit:", card.Balance)

	// The card is used; read the transactions, newest first, always with
	// their direction.
	_, err = sim.Cards.AddTransaction(card.ID, simulator.CardTransaction{Kind: "auth", Status: "succeed", Direction: "debit",
		Amount: "1999", BillAmount: "1999", MerchantName: "Book shop", OccurredAt: sim.Clock.Now().Add(-time.Hour)})
	must(err)
	_, err = sim.Cards.AddTransaction(card.ID, simulator.CardTransaction{Kind: "refund", Status: "succeed", Direction: "credit",
		Amount: "500", BillAmount: "500", MerchantName: "Book shop"})
	must(err)
	for tx, err := range client.Cards.Transactions(ctx, member, card.ID, cards.TransactionListParams{}) {
		must(err)
		signed, err := tx.Signed()
		must(err)
		fmt.Println("transaction:", tx.Kind, tx.MerchantName, signed, tx.Currency)
	}
	card, err = client.Cards.Get(ctx, member, card.ID)
	must(err)
	fmt.Println("balance:", card.Balance)
	fmt.Println("books balance:", sim.CheckLedger() == nil && sim.CheckInvariants() == nil)
	// Output:
	// issue fee: 5.00 USDT can apply: true
	// application: submitted
	// card: active 50.00 USD
	// top-up: processing
	// balance after credit: 75.00
	// transaction: refund Book shop 5.00 USD
	// transaction: auth Book shop -19.99 USD
	// balance: 60.01
	// books balance: true
}
