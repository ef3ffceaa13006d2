package replay

import (
	"sync"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Scratch builds the simulators a Stepper replays into.
type Scratch[S any] interface {
	// Build builds a simulator of the recording's configuration that
	// keeps no recording in memory.
	Build() (S, error)
	// Target is s as a Runner drives it.
	Target(s S) Target
}

// Stepper is a scratch replay of a recording into a simulator of its own
// (S), kept between steps so that stepping forward runs one input;
// stepping back replays from the start (the dashboard's stepper).
type Stepper[S any] struct {
	mu   sync.Mutex
	sim  S
	live bool // sim is the scratch simulator, at input at
	p    *Runner
	at   int64
	ans  *Writer
}

// Show brings the scratch simulator to the state after the first seq
// inputs, building a new one (h.Build) when there is none or it is past
// seq, and calls view, under the stepper's lock, with it and the answer
// the last input run got (nil when it got none). A step that fails drops
// the scratch simulator.
func (st *Stepper[S]) Show(h Scratch[S], inputs []*recfile.Input, seq int64, view func(s S, ans *Writer)) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.live || seq < st.at {
		if st.p != nil {
			st.p.Abandon()
		}
		sim, err := h.Build()
		if err != nil {
			return err
		}
		st.sim, st.live, st.p, st.at = sim, true, New(h.Target(sim)), 0
		st.p.OnStep = func(_ *recfile.Input, w *Writer) { st.ans = w }
	}
	for st.at < seq {
		st.ans = nil
		if err := st.p.Step(inputs[st.at]); err != nil {
			var none S
			st.sim, st.live = none, false
			return err
		}
		st.at++
	}
	view(st.sim, st.ans)
	return nil
}

// Close lets the scratch replay's waiting requests finish and drops the
// scratch simulator.
func (st *Stepper[S]) Close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.p != nil {
		st.p.Abandon()
	}
	var none S
	st.sim, st.live, st.p = none, false, nil
}
