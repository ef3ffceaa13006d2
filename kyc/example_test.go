package kyc_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/mwallet/mwallet-go/simulator"
)

// A member updates their KYC profile through a hosted screen. The update
// sends the profile back to review: the level drops to 0 until the review
// approves it again, and card issuing and remittances stop meanwhile.
func Example() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()
	const member = "member-1"

	ticket, err := client.KYC.ProfileSession(ctx, member)
	if err != nil {
		log.Fatal(err)
	}
	// Give ticket.HostedURL to the member only: it is a one-time link, and
	// the ticket prints without it.
	fmt.Println("link valid for", ticket.ExpiresAt.Sub(sim.Clock.Now()))
	fmt.Println("link shown when printed:", strings.Contains(fmt.Sprint(ticket), ticket.HostedURL))

	// The member completes the screen; kyc.result.updated follows.
	if err := sim.KYC.CompleteSession(ticket.ID); err != nil {
		log.Fatal(err)
	}
	st, err := client.KYC.Get(ctx, member)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("after the update:", st.Status, "level", st.Level)

	// The review approves level 1 again; the event does not say which way a
	// review went, so re-read.
	if err := sim.KYC.Approve(member, 1); err != nil {
		log.Fatal(err)
	}
	if st, err = client.KYC.Get(ctx, member); err != nil {
		log.Fatal(err)
	}
	fmt.Println("after the review:", st.Status, "level", st.Level)
	// Output:
	// link valid for 24h0m0s
	// link shown when printed: false
	// after the update: pending_review level 0
	// after the review: approved level 1
}
