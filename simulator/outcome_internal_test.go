package simulator

import (
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestOutcomeModes drives the one outcome mechanism every product line uses:
// the collection's mode, a per-object mode set before or while the object is
// in flight, and settled stopping a pending success. Each case records how
// many times the success path ran at each checkpoint of simulator time.
func TestOutcomeModes(t *testing.T) {
	t.Parallel()
	const coll, id = "test/objects", "obj_test"
	tests := []struct {
		name       string
		collection OutcomeMode
		before     *OutcomeMode // object mode set before it goes in flight
		during     *OutcomeMode // object mode set while in flight
		settle     bool         // settled right after going in flight
		want       []int        // runs at +0, +59s, +60s, +24h
	}{
		{"manual default never completes", Manual(), nil, nil, false, []int{0, 0, 0, 0}},
		{"immediate", Immediate(), nil, nil, false, []int{1, 1, 1, 1}},
		{"after a minute", After(time.Minute), nil, nil, false, []int{0, 0, 1, 1}},
		{"object immediate overrides manual collection", Manual(), ptrMode(Immediate()), nil, false, []int{1, 1, 1, 1}},
		{"object manual overrides immediate collection", Immediate(), ptrMode(Manual()), nil, false, []int{0, 0, 0, 0}},
		{"object after overrides manual collection", Manual(), ptrMode(After(time.Minute)), nil, false, []int{0, 0, 1, 1}},
		{"in flight switched to immediate", Manual(), nil, ptrMode(Immediate()), false, []int{1, 1, 1, 1}},
		{"in flight switched to after", Manual(), nil, ptrMode(After(time.Minute)), false, []int{0, 0, 1, 1}},
		{"settled before the timer", After(time.Minute), nil, nil, true, []int{0, 0, 0, 0}},
		{"settled, then switched", Manual(), nil, ptrMode(Immediate()), true, []int{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := MustNew()
			t.Cleanup(s.Close)
			// A collection and object of this test only: the public
			// methods refuse names the product lines do not register.
			_ = inTx(s, func(tx *kernel.Tx) error {
				s.wiring.timers.SetCollection(tx, string(coll), tt.collection.mode())
				return nil
			})
			if tt.before != nil {
				_ = inTx(s, func(tx *kernel.Tx) error { s.wiring.timers.SetObject(tx, id, tt.before.mode()); return nil })
			}
			runs := 0
			s.wiring.timers.On(string(coll), func(_ *kernel.Tx, got string) error {
				if got == id {
					runs++
				}
				return nil
			})
			tx := s.k.BeginSetup()
			s.wiring.timers.InFlight(tx, string(coll), id)
			if tt.settle {
				s.wiring.timers.Settled(tx, id)
			}
			s.wiring.timers.RunDue(tx)
			tx.End()
			if tt.during != nil {
				_ = inTx(s, func(tx *kernel.Tx) error { s.wiring.timers.SetObject(tx, id, tt.during.mode()); return nil })
				s.Clock.Advance(0)
			}
			var got []int
			for _, step := range []time.Duration{0, 59 * time.Second, time.Second, 24 * time.Hour} {
				s.Clock.Advance(step)
				got = append(got, runs)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("success runs at the checkpoints = %v, want %v", got, tt.want)
				}
			}
			if err := s.CheckLedger(); err != nil {
				t.Errorf("CheckLedger: %v", err)
			}
			if err := s.CheckInvariants(); err != nil {
				t.Errorf("CheckInvariants: %v", err)
			}
		})
	}
}

func ptrMode(m OutcomeMode) *OutcomeMode { return &m }
