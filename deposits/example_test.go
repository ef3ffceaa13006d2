package deposits_test

import (
	"context"
	"fmt"

	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// Declaring an on-chain deposit. The reference is derived from the chain
// transaction, so a retry (even after the idempotency window, even with a new
// key) can never credit twice.
func ExampleClient_Create() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()

	amount, err := money.Parse("250.5", 6) // USDT ledger_scale is 6
	if err != nil {
		fmt.Println(err)
		return
	}
	p := deposits.CreateParams{
		Asset:     "USDT",
		Amount:    amount,
		Reference: "TRON:0x9f2c…e1:0",
		Network:   "TRON",
		TxID:      "0x9f2c…e1",
	}
	d, err := client.Deposits.Create(ctx, "member-1", p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.ID, d.Status, d.Amount, d.Asset, "replayed:", d.Replayed)

	again, err := client.Deposits.Create(ctx, "member-1", p) // a new idempotency key
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(again.ID, "replayed:", again.Replayed, "HTTP", again.Response.StatusCode)
	fmt.Println("books balance:", sim.CheckLedger() == nil && sim.CheckInvariants() == nil)
	// Output:
	// dep_TRON:0x9f2c…e1:0 credited 250.500000 USDT replayed: false
	// dep_TRON:0x9f2c…e1:0 replayed: true HTTP 200
	// books balance: true
}
