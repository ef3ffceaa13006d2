package members_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/members"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestGet(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "m2", KYCLevel: 2}))
	ctx := context.Background()
	bare := strings.TrimPrefix(simtest.MemberID(t, sim, "m2"), "mem_")
	want := &members.Member{ID: "mem_" + bare, ExternalMemberID: "m2", Status: members.StatusActive, KYCLevel: 2, CreatedAt: simulator.DefaultStart}
	for _, id := range []string{bare, "mem_" + bare, " mem_" + bare + " "} {
		got, err := c.Members.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%q): %v", id, err)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(members.Member{}, "Response")); diff != "" {
			t.Fatalf("Get(%q) (-want +got):\n%s", id, diff)
		}
		if got.Response == nil || got.Response.RequestID == "" {
			t.Fatal("no response metadata")
		}
	}
	if err := sim.Members.SetStatus("m2", "suspended"); err != nil {
		t.Fatal(err)
	}
	got, err := c.Members.Get(ctx, bare)
	if err != nil || got.Status != members.StatusSuspended {
		t.Fatalf("suspended member: %+v %v", got, err)
	}
	var suspended int
	for _, e := range sim.Events.List() {
		if e.Type == "member.suspended" && e.ObjectID == bare && e.Status == "suspended" && e.StatusVersion == 0 {
			suspended++
		}
	}
	if suspended != 1 {
		t.Fatalf("%d member.suspended events", suspended)
	}
	_, err = c.Members.Get(ctx, "mem_00000000-0000-4000-8000-000000000000")
	simtest.WantCode(t, err, mwallet.CodeNotFound)
	for _, id := range []string{"", "m2", "mem_m2", "someone@example.com"} {
		if _, err := c.Members.Get(ctx, id); !errors.Is(err, mwallet.ErrInvalidParam) {
			t.Fatalf("Get(%q): %v, want a ParamError", id, err)
		}
	}
	if members.ID("abc") != "mem_abc" || members.ID("mem_abc") != "mem_abc" {
		t.Fatal("ID")
	}
	if members.Status("closed").Known() {
		t.Fatal("unknown status reported known")
	}
	// Every status the service answers for a member is a known one.
	for _, st := range []members.Status{members.StatusBlocklisted, members.StatusBanned, members.StatusFrozen, members.StatusActive} {
		if err := sim.Members.SetStatus("m2", string(st)); err != nil {
			t.Fatal(err)
		}
		got, err := c.Members.Get(ctx, bare)
		if err != nil || got.Status != st || !got.Status.Known() {
			t.Fatalf("member set %s: %+v %v", st, got, err)
		}
	}
	if err := sim.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

func TestGetNeedsMembersRead(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	if err := sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{Scopes: []string{"remittances:read"}}); err != nil {
		t.Fatal(err)
	}
	_, err := sim.Client().Members.Get(context.Background(), "mem_00000000-0000-4000-8000-000000000000")
	simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
}

// TestGetForeignMember checks that a member of another merchant is not
// visible: the read answers not_found, as for an id that does not exist.
func TestGetForeignMember(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	id, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "foreign-1", KYCLevel: 1, MerchantID: "mch_someone_else"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{id, strings.TrimPrefix(id, "mem_")} {
		got, err := c.Members.Get(context.Background(), ref)
		if err == nil {
			t.Fatalf("Get(%q) = %+v, want not_found", ref, got)
		}
		simtest.WantCode(t, err, mwallet.CodeNotFound)
	}
}
