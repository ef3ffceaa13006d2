package members_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mwallet/mwallet-go/members"
	"github.com/mwallet/mwallet-go/simulator"
)

// A member event carries the bare uuid as data.id; members.ID turns it into
// the REST id. External member ids identify members in x-on-behalf-of, not
// here.
func ExampleClient_Get() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()

	info, _ := sim.Members.Get("member-1")
	bare := info.ID[len("mem_"):] // as in a member.created event

	m, err := client.Members.Get(ctx, members.ID(bare))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.ExternalMemberID, m.Status, "kyc level", m.KYCLevel)

	_, err = client.Members.Get(ctx, "member-1")
	fmt.Println(err)
	// Output:
	// member-1 active kyc level 1
	// mwallet: invalid id: a member id is mem_<uuid> or the bare uuid; external_member_id is not accepted here (not_found; nothing was sent)
}
