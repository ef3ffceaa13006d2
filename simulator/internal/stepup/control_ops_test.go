package stepup

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// TestControlOps: the screen shows a challenge, completes it, and refuses
// an expired one as state_invalid.
func TestControlOps(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	var l Line
	l.Init(svc.Kernel(), &fakeHost{max: 10})
	ops := NewControlOps(controltest.At[Line])
	if diff := cmp.Diff([]string{"GET /_sim/step-up/{challenge_id}", "POST /_sim/step-up/{challenge_id}/complete", "StepUp.Complete"},
		[]string{ops.View.Route, ops.Complete.Route, ops.Complete.Name}); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	var ae *api.Error
	err := l.Require(&api.Request{Tx: tx, Now: svc.Clock, Member: &api.Member{ID: "mem_1"}, Header: http.Header{}}, "pay")
	if !errors.As(err, &ae) {
		t.Fatalf("Require: %v", err)
	}
	id := ae.Extra["challenge_id"].(string)
	x := opRun{Line: &l, Tx: tx}
	in := &ChallengeRef{ID: id}
	if _, args, _ := ops.Complete.Call(in); !cmp.Equal(args, []any{id}) {
		t.Errorf("recorded call args %v", args)
	}
	tests := []struct {
		name string
		run  func() (any, error)
		want any
		code string
	}{
		{"view", func() (any, error) { return ops.View.Run(x, in) }, map[string]any{
			"challenge_id": id, "completed": false, "used": false, "expires_at": svc.Clock.Add(TTL).Unix(),
			"complete": "POST /_sim/step-up/" + id + "/complete",
		}, ""},
		{"complete", func() (any, error) { return ops.Complete.Run(x, in) }, map[string]any{"challenge_id": id, "completed": true}, ""},
		{"expired", func() (any, error) { svc.Clock = svc.Clock.Add(TTL); return ops.Complete.Run(x, in) }, nil, "state_invalid"},
	}
	for _, tt := range tests {
		res := controltest.Outcome(tt.run())
		if diff := cmp.Diff(controltest.Result{Out: tt.want, Code: tt.code}, res); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
