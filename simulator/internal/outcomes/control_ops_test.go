package outcomes

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// opRun is the test's run of one op: the timers, the transaction and
// whether it replays an input of an earlier build.
type opRun struct {
	t      *Timers
	tx     *kernel.Tx
	legacy bool
}

// publicMode is the test's public mode.
type publicMode struct{ Mode string }

// testOps declares the ops over a run of the test.
func testOps() *ControlOps[opRun] {
	return NewControlOps(func(x opRun) (*Timers, *kernel.Tx) { return x.t, x.tx }, Views[opRun]{
		Collection: func(c string) any { return "collection " + c },
		Mode:       func(m Mode) any { return publicMode{m.String()} },
		Legacy:     func(x opRun) bool { return x.legacy },
		Refused:    func(r *control.Refusal) error { return errors.New(r.Message()) },
	})
}

// TestControlOpsDeclarations: the clock's routes and Go methods and the
// outcome modes' route, with the Go method a mode input is recorded as.
func TestControlOpsDeclarations(t *testing.T) {
	t.Parallel()
	ops := testOps()
	want := []controltest.Decl{
		{Route: "GET /_sim/clock"}, {Route: "POST /_sim/clock"},
		{Name: "Clock.Advance"}, {Name: "Clock.Sleep"}, {Name: "Clock.SleepFunc"}, {Name: "Clock.Now"},
		{Route: "POST /_sim/outcomes", Name: "Outcomes.Set"},
	}
	got := controltest.Decls(append(append([]*control.Op[opRun]{ops.Clock, ops.Advance}, ops.Methods...), ops.Set)...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	for _, o := range ops.Methods {
		if !o.NoCall {
			t.Errorf("%s is recorded as a call", o.Name)
		}
	}
	type call struct {
		Name string
		Args []any
	}
	calls := []struct {
		in   ModeIn
		want call
	}{
		{ModeIn{Collection: "things", Mode: "immediate"}, call{"Outcomes.Set", []any{"collection things", publicMode{"immediate"}}}},
		{ModeIn{Set: true}, call{"Outcomes.Set", []any{"collection ", publicMode{"manual"}}}},
		{ModeIn{ObjectID: "a", Mode: "after:1m0s"}, call{"Outcomes.SetObject", []any{"a", publicMode{"after:1m0s"}}}},
	}
	for _, c := range calls {
		name, args, ok := ops.Set.Call(&c.in)
		if diff := cmp.Diff(c.want, call{name, args}); diff != "" || !ok {
			t.Errorf("call of %+v (ok %v) (-want +got):\n%s", c.in, ok, diff)
		}
	}
}

// TestControlOps: the clock's answer and advance, the rules of both
// bodies, and the modes set on a collection and on an object.
func TestControlOps(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := Clock{Now: func() time.Time { return now }, Set: func(at time.Time) {
		if at.After(now) {
			now = at
		}
	}}
	k := new(kernel.Kernel)
	tm := New(clock)
	tm.Register(k)
	var fired []string
	tm.On("things", func(_ *kernel.Tx, id string) error { fired = append(fired, id); return nil })
	tx := k.BeginSetup()
	defer tx.End()
	ops := testOps()
	x := opRun{t: tm, tx: tx}
	secs := 90.0
	tests := []struct {
		name string
		run  func() (any, error)
		want controltest.Result
	}{
		{"clock", func() (any, error) { return ops.Clock.Run(x, &control.NoInput{}) },
			controltest.Result{Out: map[string]any{"now": "2026-01-01T00:00:00Z", "unix": int64(1767225600), "pending_timers": 0}}},
		{"both advances", func() (any, error) { return nil, ops.Advance.Rules(x, &ClockIn{AdvanceSeconds: &secs, Advance: "1m"}) },
			controltest.Result{Code: "invalid_request"}},
		{"both advances of an earlier build", func() (any, error) {
			return nil, ops.Advance.Rules(opRun{t: tm, tx: tx, legacy: true}, &ClockIn{AdvanceSeconds: &secs, Advance: "1m"})
		}, controltest.Result{}},
		{"advance by seconds", func() (any, error) { return ops.Advance.Run(x, &ClockIn{AdvanceSeconds: &secs}) },
			controltest.Result{Out: map[string]any{"now": "2026-01-01T00:01:30Z", "unix": int64(1767225690), "pending_timers": 0}}},
		{"collection and object", func() (any, error) { return nil, ops.Set.Rules(x, &ModeIn{Collection: "things", ObjectID: "a"}) },
			controltest.Result{Code: "invalid_request"}},
		{"neither", func() (any, error) { return nil, ops.Set.Rules(x, &ModeIn{}) }, controltest.Result{Code: "invalid_request"}},
		{"an empty collection of Outcomes.Set", func() (any, error) { return nil, ops.Set.Rules(x, &ModeIn{Set: true}) },
			controltest.Result{Code: `collection: unknown outcome collection "": want one of things`}},
		{"a collection", func() (any, error) {
			return ops.Set.Run(x, &ModeIn{Collection: "things", Mode: "after:1m0s"})
		}, controltest.Result{Out: map[string]any{"collection": "things", "object_id": "", "mode": "after:1m0s"}}},
		{"an object", func() (any, error) {
			tm.InFlight(tx, "things", "a")
			return ops.Set.Run(x, &ModeIn{ObjectID: "a", Mode: "immediate"})
		}, controltest.Result{Out: map[string]any{"collection": "", "object_id": "a", "mode": "immediate"}}},
		{"advance", func() (any, error) { return ops.Advance.Run(x, &ClockIn{Advance: "1m"}) },
			controltest.Result{Out: map[string]any{"now": "2026-01-01T00:02:30Z", "unix": int64(1767225750), "pending_timers": 0}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, controltest.Outcome(tt.run())); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if diff := cmp.Diff([]string{"a"}, fired); diff != "" {
		t.Errorf("fired (-want +got):\n%s", diff)
	}
}
