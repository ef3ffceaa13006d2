package remittance_test

import (
	"context"
	"fmt"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
)

// A remittance of 100.00 GBP with 2% price protection: the member's USDT is
// held with the slippage margin, and the margin comes back at settlement.
func ExampleClient_Create() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	member := "member-1"

	var payee remittance.Payee
	for p, err := range client.Remittances.Payees(ctx, member, mwallet.ListParams{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if p.Currency == "GBP" {
			payee = p
		}
	}
	res, err := client.Remittances.Create(ctx, member, remittance.CreateParams{
		PayeeID:        payee.ID,
		PayoutAmount:   "100.00",
		PayoutCurrency: payee.Currency, // checks the precision locally; not sent
		SlippageBps:    200,
		PurposeCode:    remittance.PurposeFamilySupport,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", res.Status)
	fmt.Println("customer_total:", res.Quote.CustomerTotal, res.Quote.SourceAsset)
	fmt.Println("locked_amount:", res.Quote.LockedAmount, res.Quote.SourceAsset)

	// The upstream pays out (driven here by the simulator).
	_ = sim.Remittances.Dispatch(res.ID)
	_ = sim.Remittances.Complete(res.ID, "")

	order, err := client.Remittances.Get(ctx, member, res.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("completed:", order.IsCompleted(), "version:", order.StatusVersion)
	fmt.Println("settled_amount:", order.SettledAmount, order.SourceAsset)
	fmt.Println("books balance:", sim.CheckLedger() == nil && sim.CheckInvariants() == nil)
	// Output:
	// status: dispatching
	// customer_total: 129.388536 USDT
	// locked_amount: 131.976307 USDT
	// completed: true version: 3
	// settled_amount: 129.388536 USDT
	// books balance: true
}
