// Package recview holds the control views of the simulator's recording,
// which all read and none changes the simulator: GET /_sim/recording (the
// input log in the recording file format, from the data directory's log as
// it is or from memory) and the dashboard's stepper, GET
// /_sim/recording/steps (the logged inputs, a page at a time) and GET
// /_sim/recording/steps/{seq} (one input, the answer it got when replayed
// into a scratch simulator and the state after it). The ops are declared
// here (NewControlOps), generic over the declaring package's run of one
// op, and reach the simulator through the Views it fills; the stepper
// (Stepper) keeps the recording it last read and the scratch replay
// (internal/replay's Stepper).
package recview

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// StepsIn is the query of GET /_sim/recording/steps.
type StepsIn struct {
	After *int64 `query:"after" json:"-" dom:"seq"`
	Limit *int   `query:"limit" json:"-" dom:"count"`
}

// StepIn is the input of GET /_sim/recording/steps/{seq}.
type StepIn struct {
	Seq string `path:"seq" json:"-" dom:"step"`
}

// Detail is one input with the answer it got on replay and the state
// after it (St: the state as GET /_sim/state shows it).
type Detail[St any] struct {
	Step   inputlog.Summary `json:"step"`
	Input  json.RawMessage  `json:"input,omitempty"` // none at step 0
	Answer *Answer          `json:"answer,omitempty"`
	State  St               `json:"state"`
}

// Answer is the answer a replayed request got.
type Answer struct {
	Status int             `json:"status"` // 0: no answer (dropped, or waiting in a delay)
	Body   json.RawMessage `json:"body,omitempty"`
}

// Page lists the inputs after seq in.After (default 0), at most in.Limit
// (default and at most 1000), in the control list envelope: next_cursor is
// the seq to ask after for the next page.
func Page(inputs []*recfile.Input, in *StepsIn) api.ListEnvelope {
	after := int64(0)
	if in.After != nil {
		after = *in.After
	}
	limit := 1000
	if in.Limit != nil && *in.Limit > 0 && *in.Limit < limit {
		limit = *in.Limit
	}
	env := control.List([]inputlog.Summary{})
	out, more := inputlog.Steps(inputs, after, limit)
	if more {
		next := strconv.FormatInt(out[len(out)-1].Seq, 10)
		env.NextCursor, env.HasMore = &next, true
	}
	if out != nil {
		env.Data = out
	}
	return env
}

// Scratch is what a step needs of the declaring package: the scratch
// simulators S of a recording (internal/replay's Scratch) and what a step
// shows of one.
type Scratch[S, St any] interface {
	replay.Scratch[S]
	// State is the state of s as GET /_sim/state shows it.
	State(s S) St
	// Now is the clock reading of s.
	Now(s S) time.Time
}

// Stepper is the dashboard's scratch replay of the recording
// (internal/replay's Stepper) and the recording last read: inputs never
// change once logged, so it serves every step it holds (a data
// directory's log is read again only when a later input is asked for).
// Its zero value is ready to use.
type Stepper[C, S, St any] struct {
	mu      sync.Mutex
	rec     *recfile.File[C]
	scratch replay.Stepper[S]
}

// Recording returns the recording last read when it holds at least seq
// inputs, or all logged inputs when fewer are; otherwise it reads it again
// (read) and keeps it unless the one held is longer.
func (st *Stepper[C, S, St]) Recording(seq, logged int64, read func() (*recfile.File[C], error)) (*recfile.File[C], error) {
	st.mu.Lock()
	rec := st.rec
	st.mu.Unlock()
	if rec != nil && int64(len(rec.Inputs)) >= min(seq, logged) {
		return rec, nil
	}
	rec, err := read()
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	if st.rec == nil || len(rec.Inputs) > len(st.rec.Inputs) {
		st.rec = rec
	}
	st.mu.Unlock()
	return rec, nil
}

// Show steps the scratch replay to input seq of rec (building its
// simulators with h) and shows that input, its answer and the state after
// it; step 0 is the simulator as its configuration builds it.
func (st *Stepper[C, S, St]) Show(h Scratch[S, St], rec *recfile.File[C], seq int64) (*Detail[St], error) {
	d := &Detail[St]{}
	err := st.scratch.Show(h, rec.Inputs, seq, func(sim S, ans *replay.Writer) {
		d.State = h.State(sim)
		if seq == 0 {
			d.Step = inputlog.Summary{Clock: h.Now(sim).UTC(), Op: "start", Summary: "the simulator as its configuration builds it, before the first input"}
		}
		if seq > 0 {
			in := rec.Inputs[seq-1]
			d.Step = inputlog.Summarize(in)
			d.Input = inputlog.RedactInput(in)
			if in.Op == recfile.OpHTTP || in.Op == recfile.OpResume {
				d.Answer = &Answer{}
				if ans != nil {
					d.Answer.Status = ans.Status
					if b := ans.Body.Bytes(); json.Valid(b) {
						d.Answer.Body = append(json.RawMessage(nil), inputlog.RedactJSON(b)...)
					}
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Close lets the scratch replay's waiting requests finish.
func (st *Stepper[C, S, St]) Close() { st.scratch.Close() }
