package simulator_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// Upstream outcomes are driven, never waited for: here every card top-up is
// credited five minutes after it is accepted, on the simulator clock, which
// only moves when the test advances it.
func ExampleOutcomesControl_Set() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	const member = simulator.DefaultMemberExternalID

	if err := sim.Outcomes.Set(simulator.CollectionCardApplications, simulator.Immediate()); err != nil {
		log.Fatal(err)
	}
	if err := sim.Outcomes.Set(simulator.CollectionCardTopups, simulator.After(5*time.Minute)); err != nil {
		log.Fatal(err)
	}

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
	sim.Clock.Advance(5 * time.Minute)
	fmt.Println("five minutes later: card balance", balance())
	// Output:
	// application issued | top-up processing | card balance 0.00
	// five minutes later: card balance 20.00
}
