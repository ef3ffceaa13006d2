package members

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// TestControlOps: the status and funds-protection actions, by external
// id, their recorded calls and their refusals.
func TestControlOps(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	var l Line
	l.Init(svc.Kernel())
	if _, err := l.Create(tx, Seed{ExternalID: "m-1"}); err != nil {
		t.Fatal(err)
	}
	ops := NewControlOps(controltest.At[Line])
	x := opRun{Line: &l, Tx: tx}
	on := true
	tests := []struct {
		name  string
		op    *control.Op[opRun]
		in    any
		route string
		args  []any
		want  func(out any) any
		code  string
	}{
		{"suspend", ops.SetStatus, &StatusIn{ID: "m-1", Status: "suspended"}, "POST /_sim/members/{id}/status", []any{"m-1", "suspended"},
			func(out any) any { return out.(map[string]any)["status"] }, ""},
		{"unknown status", ops.SetStatus, &StatusIn{ID: "m-1", Status: "gone"}, "POST /_sim/members/{id}/status", []any{"m-1", "gone"}, nil, "invalid_request"},
		{"protect", ops.SetFundsProtection, &FlagIn{ID: "m-1", Enabled: &on}, "POST /_sim/members/{id}/funds_protection", []any{"m-1", true},
			func(out any) any { return out }, ""},
		{"unknown member", ops.SetFundsProtection, &FlagIn{ID: "m-9", Enabled: &on}, "POST /_sim/members/{id}/funds_protection", []any{"m-9", true}, nil, "not_found"},
	}
	wants := map[string]any{"suspend": "suspended", "protect": map[string]any{"member": "m-1", "funds_protection": true}}
	for _, tt := range tests {
		_, args, _ := tt.op.Call(tt.in)
		if diff := cmp.Diff([]any{tt.route, tt.args}, []any{tt.op.Route, args}); diff != "" {
			t.Errorf("%s: declaration (-want +got):\n%s", tt.name, diff)
		}
		res := controltest.Outcome(tt.op.Run(x, tt.in))
		if res.Code != tt.code {
			t.Errorf("%s: refused %q, want %q", tt.name, res.Code, tt.code)
		}
		if tt.want != nil && res.Code == "" {
			if diff := cmp.Diff(wants[tt.name], tt.want(res.Out)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, diff)
			}
		}
	}
	if m := l.ByAny(tx, "m-1"); m.Status != "suspended" || !m.FundsProtected {
		t.Errorf("member %+v", m)
	}
}
