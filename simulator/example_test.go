package simulator_test

import (
	"context"
	"fmt"
	"log"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// Each test gets its own simulator and a client wired to it, and ends by
// checking that the books balance.
func Example() {
	sim := simulator.New() // in a test: t.Cleanup(sim.Close)
	defer sim.Close()
	client := sim.Client()

	list, err := client.Assets(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	available, locked := sim.Balance(simulator.DefaultMemberExternalID, "USDT")
	fmt.Println(len(list.Assets), "assets;", simulator.DefaultMemberExternalID, "holds", available, "USDT,", locked, "locked")
	fmt.Println("ledger:", sim.CheckLedger())
	// Output:
	// 4 assets; member-1 holds 1000.000000 USDT, 0.000000 locked
	// ledger: <nil>
}

// Upstream outcomes are driven, never waited for: here every card top-up is
// credited five minutes after it is accepted, on the simulator clock, which
// only moves when the test advances it.
func ExampleSimulator_SetOutcome() {
	sim := simulator.New()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	const member = simulator.DefaultMemberExternalID

	sim.SetOutcome(simulator.CollectionCardApplications, simulator.Immediate())
	sim.SetOutcome(simulator.CollectionCardTopups, simulator.After(5*time.Minute))

	app, err := client.Cards.Apply(ctx, member, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"})
	if err != nil {
		log.Fatal(err)
	}
	app, err = client.Cards.GetApplication(ctx, member, app.ID)
	if err != nil {
		log.Fatal(err)
	}
	top, err := client.Cards.TopUp(ctx, member, app.CardID, cards.TopUpParams{Amount: money.MustParse("20", 6)})
	if err != nil {
		log.Fatal(err)
	}
	balance := func() string {
		c, err := client.Cards.Get(ctx, member, app.CardID)
		if err != nil {
			log.Fatal(err)
		}
		return c.Balance.String()
	}
	fmt.Println("application", app.Status, "| top-up", top.Status, "| card balance", balance())
	sim.Advance(5 * time.Minute)
	fmt.Println("five minutes later: card balance", balance())
	// Output:
	// application issued | top-up processing | card balance 0.00
	// five minutes later: card balance 20.00
}

// A fault applies to the next matching requests. The client retries an
// upstream_timeout with the same idempotency key; the journal shows both
// attempts.
func ExampleSimulator_InjectFault() {
	sim := simulator.New()
	defer sim.Close()
	client := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 10*time.Millisecond))

	err := sim.InjectFault(simulator.Fault{Method: "GET", Path: "/v1/assets", Kind: simulator.FaultError, Code: "upstream_timeout"})
	if err != nil {
		log.Fatal(err)
	}
	list, err := client.Assets(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("attempts:", list.Response.Attempts)
	for _, r := range sim.Requests() {
		if r.Path == "/v1/assets" {
			fmt.Println(r.Method, r.Path, r.Status, r.Code, r.Fault)
		}
	}
	// Output:
	// attempts: 2
	// GET /v1/assets 504 upstream_timeout error
	// GET /v1/assets 200
}
