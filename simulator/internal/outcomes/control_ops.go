package outcomes

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The control operations of the clock and the outcome modes, in the
// control engine's form (internal/control), over the declaring package's
// run of one op X: the clock as GET /_sim/clock shows it, the advance of
// POST /_sim/clock, the Clock's Go methods (an advance is an input of its
// own kind, never a call) and the modes of POST /_sim/outcomes. The Go
// methods take the declaring package's public collection and mode, which it
// gives as func values (Views).

// The inputs of the ops declared here.
type (
	// ClockIn is the body of POST /_sim/clock: advance_seconds or advance,
	// not both (neither advances nothing).
	ClockIn struct {
		AdvanceSeconds *float64 `json:"advance_seconds" dom:"seconds_advance"`
		Advance        string   `json:"advance" dom:"go_duration"`
	}
	// ModeIn is the body of POST /_sim/outcomes: collection or object_id,
	// and the mode (default manual).
	ModeIn struct {
		Collection string `json:"collection" dom:"outcome_collection"`
		ObjectID   string `json:"object_id" dom:"outcome_object"`
		Mode       string `json:"mode" dom:"outcome_mode"`
		// Set: the input of Outcomes.Set (a collection, even an empty
		// one).
		Set bool `json:"-" dom:"-"`
	}
)

// Duration is the advance asked for.
func (in *ClockIn) Duration() time.Duration {
	if in.AdvanceSeconds != nil {
		return time.Duration(*in.AdvanceSeconds * float64(time.Second))
	}
	d, _ := time.ParseDuration(in.Advance)
	return d
}

// mode is the mode asked for (manual when it is none).
func (in *ModeIn) mode() Mode {
	m, _ := ParseMode(in.Mode)
	return m
}

// Views are what the ops need of the declaring package.
type Views[X any] struct {
	// Collection is a collection as Outcomes.Set takes it (the public
	// collection name).
	Collection func(string) any
	// Mode is a mode as the Go methods take it (the public mode).
	Mode func(Mode) any
	// Legacy reports a replayed input of an earlier build.
	Legacy func(X) bool
	// Refused is the declaring package's error for an argument outside its
	// domain.
	Refused func(*control.Refusal) error
}

// ControlOps are the ops declared here: Clock is GET /_sim/clock, Advance
// POST /_sim/clock (no Go method: it is logged as the request), Methods the
// Clock's Go methods, none recorded as a call, and Set POST /_sim/outcomes,
// Outcomes.Set (a collection) and Outcomes.SetObject (an object).
type ControlOps[X any] struct {
	Clock, Advance, Set *control.Op[X]
	Methods             []*control.Op[X]
}

// NewControlOps declares the ops; at gives the timers and the transaction
// of a run.
func NewControlOps[X any](at func(X) (*Timers, *kernel.Tx), v Views[X]) *ControlOps[X] {
	clock := func(x X) (any, error) {
		t, tx := at(x)
		now := t.clock.Now()
		return map[string]any{"now": now.UTC().Format(time.RFC3339), "unix": now.Unix(), "pending_timers": t.Pending(tx)}, nil
	}
	ops := &ControlOps[X]{
		Clock: control.Def[X, control.NoInput]{Route: "GET /_sim/clock", Run: func(x X, _ *control.NoInput) (any, error) { return clock(x) }}.Op(),
		Advance: control.Def[X, ClockIn]{Route: "POST /_sim/clock",
			Rules: func(x X, in *ClockIn) error {
				if in.AdvanceSeconds != nil && in.Advance != "" && !v.Legacy(x) { // earlier builds took advance_seconds
					return api.InvalidRequest("send advance_seconds or advance, not both")
				}
				return nil
			},
			Run: func(x X, in *ClockIn) (any, error) {
				t, tx := at(x)
				t.Advance(tx, in.Duration())
				return clock(x)
			}}.Op(),
		Set: control.Def[X, ModeIn]{
			Route: "POST /_sim/outcomes", Name: "Outcomes.Set", Alias: "Outcomes.SetObject",
			Calls: func(in *ModeIn) (string, []any) {
				if in.Collection != "" || in.Set {
					return "Outcomes.Set", []any{v.Collection(in.Collection), v.Mode(in.mode())}
				}
				return "Outcomes.SetObject", []any{in.ObjectID, v.Mode(in.mode())}
			},
			Rules: func(x X, in *ModeIn) error {
				switch {
				case in.Set && in.Collection == "":
					t, _ := at(x)
					return v.Refused(&control.Refusal{Kind: "outcome collection", Field: "collection", Valid: t.Collections()})
				case in.Collection != "" && in.ObjectID != "":
					return api.InvalidRequest("send collection or object_id, not both")
				case in.Collection == "" && in.ObjectID == "":
					return api.InvalidRequest("collection or object_id is required")
				}
				return nil
			},
			Run: func(x X, in *ModeIn) (any, error) {
				t, tx := at(x)
				m := in.mode()
				if in.Collection != "" {
					t.SetCollection(tx, in.Collection, m)
				} else {
					t.SetObject(tx, in.ObjectID, m)
				}
				return map[string]any{"collection": in.Collection, "object_id": in.ObjectID, "mode": m.String()}, nil
			},
		}.Op(),
	}
	for _, name := range []string{"Clock.Advance", "Clock.Sleep", "Clock.SleepFunc", "Clock.Now"} {
		ops.Methods = append(ops.Methods, control.Def[X, control.NoInput]{Name: name, NoCall: true}.Op())
	}
	return ops
}
