package mwallet_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// A deposit executes but its answer is lost and the process stops waiting.
// The pending store still holds the request; Resume resends it with the
// same idempotency key and body, and the service replays the first result
// instead of crediting twice. With a store shared between processes
// (package redisstore) the same works after a crash, from another instance.
func ExampleClient_Resume() {
	sim := simulator.MustNew()
	defer sim.Close()
	store := mwallet.NewMemoryPendingStore()
	client := sim.Client(mwallet.WithPendingStore(store))
	ctx := context.Background()

	// The connection drops after the deposit was posted.
	if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter}); err != nil {
		log.Fatal(err)
	}
	amount, _ := money.Parse("25", 6)
	_, err := client.Deposits.Create(ctx, simulator.DefaultMemberExternalID,
		deposits.CreateParams{Asset: "USDC", Amount: amount, Reference: "order-1001"}, mwallet.WithMaxAttempts(1))
	var te *mwallet.TransportError
	fmt.Println("outcome unknown:", errors.As(err, &te))

	// At start-up (or later), finish what is pending.
	pending, err := client.PendingRequests(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range pending {
		fmt.Println("pending:", p.Method, p.Path)
		resp, err := client.Resume(ctx, p, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("replayed:", resp.Replayed)
	}
	left, _ := client.PendingRequests(ctx)
	available, _, err := sim.Members.Balance(simulator.DefaultMemberExternalID, "USDC")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pending now:", len(left), "USDC available:", available)
	// Output:
	// outcome unknown: true
	// pending: POST /v1/deposits
	// replayed: true
	// pending now: 0 USDC available: 525.000000
}

// Clients that share a token store share one access token: the first
// exchanges, the others read it. In a fleet the store is shared between
// processes (package redisstore); here three clients of one process share
// the in-memory store.
func ExampleWithTokenStore() {
	sim := simulator.MustNew()
	defer sim.Close()
	store := mwallet.NewMemoryTokenStore()
	ctx := context.Background()
	for range 3 {
		client := sim.Client(mwallet.WithTokenStore(store))
		if _, err := client.Assets(ctx); err != nil {
			log.Fatal(err)
		}
	}
	exchanges := 0
	for _, r := range sim.Requests.List() {
		if r.Path == "/v1/connect/token" {
			exchanges++
		}
	}
	fmt.Println("token exchanges:", exchanges)
	// Output:
	// token exchanges: 1
}
