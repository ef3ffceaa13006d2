package kyc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// testOps are the ops over h's members.
func testOps(h *fakeHost) *ControlOps[opRun] {
	return NewControlOps(controltest.At[Line], func(_ opRun, id string) *api.Member { return h.members[id] })
}

// TestControlOpsDeclarations: each op's route, object action key, Go
// method and the call an input is recorded as.
func TestControlOpsDeclarations(t *testing.T) {
	t.Parallel()
	ops := testOps(newFakeHost())
	type decl struct {
		Route, Action, Name string
		Args                []any
		Recorded            bool
	}
	one, seven, yes := 1, 7, true
	var got []decl
	for _, c := range []struct {
		op *control.Op[opRun]
		in any
	}{
		{ops.Update, &MemberRef{ID: "m"}},
		{ops.Approve, &ApproveIn{ID: "m"}},
		{ops.Approve, &ApproveIn{ID: "m", Level: &one}},
		{ops.Reject, &MemberRef{ID: "m"}},
		{ops.Supplement, &MemberRef{ID: "m"}},
		{ops.CompleteSession, &SessionRef{ID: "s"}},
		{ops.CompensateQuickBinding, &CompensateIn{ID: "b", Source: "admin", ApplicationID: "a"}},
		{ops.SetQuick, &QuickIn{Pool: &seven}},
		{ops.SetQuick, &QuickIn{Enabled: &yes}},
	} {
		d := decl{Route: c.op.Route, Action: c.op.Action, Name: c.op.Name}
		if c.op.Call != nil {
			_, d.Args, d.Recorded = c.op.Call(c.in)
		}
		got = append(got, d)
	}
	want := []decl{
		{"POST /_sim/kyc/{id}/update", "kyc/update", "KYC.Update", []any{"m"}, true},
		{"POST /_sim/kyc/{id}/approve", "kyc/approve", "KYC.Approve", []any{"m", 0}, true},
		{"POST /_sim/kyc/{id}/approve", "kyc/approve", "KYC.Approve", []any{"m", 1}, true},
		{"POST /_sim/kyc/{id}/reject", "kyc/reject", "KYC.Reject", []any{"m"}, true},
		{"POST /_sim/kyc/{id}/supplement", "kyc/supplement", "", nil, false},
		{"POST /_sim/kyc/sessions/{id}/complete", "kyc/sessions/complete", "KYC.CompleteSession", []any{"s"}, true},
		{"POST /_sim/kyc/quick/{id}/compensate", "kyc/quick/compensate", "KYC.CompensateQuickBinding", []any{"b", "admin", "a"}, true},
		{"POST /_sim/kyc/quick", "", "KYC.SetQuick", []any{false, 7}, false},
		{"POST /_sim/kyc/quick", "", "KYC.SetQuick", []any{true, -1}, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
}

// TestControlOpsRun: the member actions answer the profile as GET
// /v1/kyc does, and POST /_sim/kyc/quick keeps what it leaves out.
func TestControlOpsRun(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	h := newFakeHost()
	l := New(svc.Kernel(), h)
	h.members["mem_1"] = &api.Member{ID: "mem_1", KYCLevel: 2, HasKYCProfile: true}
	ops := testOps(h)
	x := opRun{Line: l, Tx: tx}
	status := func(o *control.Op[opRun], in any) string {
		res := controltest.Outcome(o.Run(x, in))
		if res.Code != "" {
			return "refused: " + res.Code
		}
		return res.Out.(map[string]any)["status"].(string)
	}
	got := []string{
		status(ops.Update, &MemberRef{ID: "mem_1"}),
		status(ops.Supplement, &MemberRef{ID: "mem_1"}),
		status(ops.Approve, &ApproveIn{ID: "mem_1"}),
		status(ops.Reject, &MemberRef{ID: "mem_1"}),
		status(ops.CompleteSession, &SessionRef{ID: "nope"}),
	}
	want := []string{"pending_review", "supplement_required", "approved", "rejected", "refused: not_found"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	nine, no := 9, false
	for _, tt := range []struct {
		in   QuickIn
		want map[string]any
	}{
		{QuickIn{Pool: &nine}, map[string]any{"enabled": true, "pool": 9}},
		{QuickIn{Enabled: &no}, map[string]any{"enabled": false, "pool": 9}},
	} {
		out, err := ops.SetQuick.Run(x, &tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, out); diff != "" {
			t.Errorf("SetQuick (-want +got):\n%s", diff)
		}
	}
}
