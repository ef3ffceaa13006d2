package remittances

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// TestControlOpsDeclarations: each action's route, object action key and
// Go method, and the call an input is recorded as (a body the Go method
// cannot say is recorded as a call of Action instead).
func TestControlOpsDeclarations(t *testing.T) {
	t.Parallel()
	ops := NewControlOps(controltest.At[Line])
	got := controltest.Decls(ops.Dispatch, ops.Complete, ops.Fail, ops.Refund, ops.NeedsReconfirm, ops.Advance)
	want := []controltest.Decl{
		{Route: "POST /_sim/remittances/{id}/dispatch", Action: "remittances/dispatch", Name: "Remittances.Dispatch"},
		{Route: "POST /_sim/remittances/{id}/complete", Action: "remittances/complete", Name: "Remittances.Complete"},
		{Route: "POST /_sim/remittances/{id}/fail", Action: "remittances/fail", Name: "Remittances.Fail"},
		{Route: "POST /_sim/remittances/{id}/refund", Action: "remittances/refund", Name: "Remittances.Refund"},
		{Route: "POST /_sim/remittances/{id}/needs_reconfirm", Action: "remittances/needs_reconfirm", Name: "Remittances.NeedsReconfirm"},
		{Route: "POST /_sim/remittances/{id}/advance", Action: "remittances/advance", Name: "Remittances.Advance"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	type call struct {
		Args []any
		OK   bool
	}
	for _, tt := range []struct {
		name string
		op   *control.Op[opRun]
		in   ActionIn
		want call
	}{
		{"dispatch", ops.Dispatch, ActionIn{ID: "r1"}, call{[]any{"r1"}, true}},
		{"dispatch with a body", ops.Dispatch, ActionIn{ID: "r1", FailureCode: "x"}, call{[]any{"r1"}, false}},
		{"complete", ops.Complete, ActionIn{ID: "r1", SettledAmount: "1.5"}, call{[]any{"r1", "1.5"}, true}},
		{"complete with a failure code", ops.Complete, ActionIn{ID: "r1", FailureCode: "x"}, call{[]any{"r1", ""}, false}},
		{"fail", ops.Fail, ActionIn{ID: "r1", FailureCode: "x"}, call{[]any{"r1", "x"}, true}},
		{"fail with a settled amount", ops.Fail, ActionIn{ID: "r1", SettledAmount: "1"}, call{[]any{"r1", ""}, false}},
	} {
		_, args, ok := tt.op.Call(&tt.in)
		if diff := cmp.Diff(tt.want, call{args, ok}); diff != "" {
			t.Errorf("%s: call (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestControlOpsRun: the ops run the line's actions and answer the order
// as the business API shows it; an unknown order is refused.
func TestControlOpsRun(t *testing.T) {
	t.Parallel()
	h := newFakeHost()
	_, tx := begin(h)
	defer tx.End()
	m := h.member("mem_1", 1, "2000")
	l := New(h.k, h)
	ops := NewControlOps(controltest.At[Line])
	_, body, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remittances", remit(payeeGB, "100.00"), "k1")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(body["id"].(string), "rmt_")
	x := opRun{Line: l, Tx: tx}
	var got []string
	for _, in := range []struct {
		run func(x opRun, in any) (any, error)
		in  ActionIn
	}{
		{ops.Dispatch.Run, ActionIn{ID: id}},
		{ops.Complete.Run, ActionIn{ID: id}},
		{ops.Refund.Run, ActionIn{ID: id}},
		{ops.Fail.Run, ActionIn{ID: id, FailureCode: "payout_rejected"}},
		{ops.Advance.Run, ActionIn{ID: "nope"}},
	} {
		out, err := in.run(x, &in.in)
		if err != nil {
			got = append(got, "refused")
			continue
		}
		got = append(got, out.(map[string]any)["status"].(string))
	}
	if diff := cmp.Diff([]string{"processing", "completed", "refunded", "refused", "refused"}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}
