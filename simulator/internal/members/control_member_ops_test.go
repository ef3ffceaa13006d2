package members

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// TestMemberOps: a creation takes the public seed, is refused by its
// amounts' rule, answers the created member's document; the list, Get and
// Balance answer through the views they are given; the empty id is
// refused by Unknown.
func TestMemberOps(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	var l Line
	l.Init(svc.Kernel())
	doc := func(_ opRun, m *api.Member) map[string]any { return map[string]any{"external_member_id": m.ExternalID} }
	ops := NewMemberOps(controltest.At[Line], Views[opRun]{
		Seed: func(in SeedIn) any { return "seed " + in.ExternalMemberID },
		Amounts: func(_ opRun, field string, amounts map[string]string) error {
			if amounts["USDT"] == "bad" {
				return errors.New(field + ": bad")
			}
			return nil
		},
		Document: doc,
		Info:     func(_ opRun, id string) any { return "info " + id },
		Balance:  func(_ opRun, id, asset string) [2]money.Amount { return [2]money.Amount{money.Zero(2), money.Zero(6)} },
		Unknown:  func(id string) error { return errors.New("unknown member " + id) },
	})
	if diff := cmp.Diff([]controltest.Decl{
		{Route: "POST /_sim/members", Name: "Members.Create"},
		{Route: "GET /_sim/members"},
		{Route: "GET /_sim/members/{id}", Name: "Members.Get"},
		{Name: "Members.Balance"},
	}, controltest.Decls(ops.Create, ops.List, ops.Get, ops.Balance)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	x := opRun{Line: &l, Tx: tx}
	tests := []struct {
		name string
		in   SeedIn
		rule string
	}{
		{name: "created", in: SeedIn{ExternalMemberID: "m-1"}},
		{name: "refused amount", in: SeedIn{ExternalMemberID: "m-2", Balances: map[string]string{"USDT": "bad"}}, rule: "balances: bad"},
	}
	for _, tt := range tests {
		if _, args, _ := ops.Create.Call(&tt.in); !cmp.Equal(args, []any{"seed " + tt.in.ExternalMemberID}) {
			t.Errorf("%s: recorded call %v", tt.name, args)
		}
		err := ops.Create.Rules(x, &tt.in)
		if got := controltest.Outcome(nil, err).Code; got != tt.rule {
			t.Errorf("%s: rule %q, want %q", tt.name, got, tt.rule)
		}
		if err != nil {
			continue
		}
		out, err := ops.Create.Run(x, &tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if status, body := ops.Create.Reply(x, &tt.in, out); status != http.StatusCreated || !cmp.Equal(body, map[string]any{"external_member_id": "m-1"}) {
			t.Errorf("%s: reply %d %v", tt.name, status, body)
		}
	}
	got := []controltest.Result{
		controltest.Outcome(ops.List.Run(x, &control.NoInput{})),
		controltest.Outcome(ops.Get.Run(x, &MemberRef{ID: "m-1"})),
		controltest.Outcome(ops.Balance.Run(x, &MemberAsset{ID: "m-1", Asset: "USDT"})),
		controltest.Outcome(ops.Balance.Run(x, &MemberAsset{Asset: "USDT"})),
	}
	want := []controltest.Result{
		{Out: api.ListEnvelope{Data: []map[string]any{{"external_member_id": "m-1"}}}},
		{Out: "info m-1"},
		{Out: [2]money.Amount{money.Zero(2), money.Zero(6)}},
		{Code: "unknown member "},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b money.Amount) bool { return a.String() == b.String() })); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if _, body := ops.Get.Reply(x, &MemberRef{ID: "m-1"}, nil); !cmp.Equal(body, map[string]any{"external_member_id": "m-1"}) {
		t.Errorf("Get's document %v", body)
	}
}
