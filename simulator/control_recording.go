package simulator

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"

	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// The recording over HTTP: GET /_sim/recording (the input log, in the
// recording file format), GET /_sim/digest (the state digest) and the
// dashboard's stepper, GET /_sim/recording/steps and
// GET /_sim/recording/steps/{seq}, which replays the recording into a
// scratch simulator to show the state after each input. All of them read:
// none changes the simulator.

// recordingAnswer streams the recording: from the data directory's log as
// it is, or from memory.
func (ctl *controlAPI) recordingAnswer() (any, error) {
	s := ctl.sim
	st := s.wiring.rec.Store()
	if st != nil {
		p, err := s.wiring.inputs.Point(true)
		if err != nil {
			return nil, errBusiness500(err.Error())
		}
		return rawAnswer(func(w http.ResponseWriter, _ *http.Request) {
			recordingHeaders(w)
			_ = st.WriteRecording(w, p.Written, p.Header, &recordedInput{Seq: p.Seq, Op: recfile.OpEnd, Clock: p.End, Digest: p.Digest})
		}), nil
	}
	rec, err := s.Recording()
	if err != nil {
		return nil, newErr("service_unavailable", err.Error())
	}
	return rawAnswer(func(w http.ResponseWriter, _ *http.Request) {
		recordingHeaders(w)
		_, _ = rec.WriteTo(w)
	}), nil
}

func recordingHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="mwallet-sim-recording.jsonl"`)
}

// steps lists the inputs of the recording after seq after (default 0), at
// most limit (default and at most 1000), in the control list envelope:
// next_cursor is the seq to ask after for the next page.
func (ctl *controlAPI) steps(in *stepsQuery) (any, error) {
	after := int64(0)
	if in.After != nil {
		after = *in.After
	}
	limit := 1000
	if in.Limit != nil && *in.Limit > 0 && *in.Limit < limit {
		limit = *in.Limit
	}
	rec, err := ctl.stepRecording(math.MaxInt64)
	if err != nil {
		return nil, newErr("service_unavailable", err.Error())
	}
	env := controlList([]inputlog.Summary{})
	out, more := inputlog.Steps(rec.inputs, after, limit)
	if more {
		next := strconv.FormatInt(out[len(out)-1].Seq, 10)
		env.NextCursor, env.HasMore = &next, true
	}
	if out != nil {
		env.Data = out
	}
	return env, nil
}

// stepsQuery is the query of GET /_sim/recording/steps.
type stepsQuery struct {
	After *int64 `query:"after" json:"-" dom:"seq"`
	Limit *int   `query:"limit" json:"-" dom:"count"`
}

// stepRef is the input of GET /_sim/recording/steps/{seq}.
type stepRef struct {
	Seq string `path:"seq" json:"-" dom:"step"`
}

// stepDetail is one input with the answer it got on replay and the state
// after it.
type stepDetail struct {
	Step   inputlog.Summary `json:"step"`
	Input  json.RawMessage  `json:"input,omitempty"` // none at step 0
	Answer *stepAnswer      `json:"answer,omitempty"`
	State  StateSnapshot    `json:"state"`
}

type stepAnswer struct {
	Status int             `json:"status"` // 0: no answer (dropped, or waiting in a delay)
	Body   json.RawMessage `json:"body,omitempty"`
}

// step replays the recording up to input seq in a scratch simulator and
// shows that input, its answer and the state after it.
func (ctl *controlAPI) step(in *stepRef) (any, error) {
	seq, _ := strconv.ParseInt(in.Seq, 10, 64)
	rec, err := ctl.stepRecording(seq)
	if err != nil {
		return nil, newErr("service_unavailable", err.Error())
	}
	if seq > int64(len(rec.inputs)) {
		return nil, errNotFound(fmt.Sprintf("input %d (the recording has %d)", seq, len(rec.inputs)))
	}
	d, err := ctl.showStep(rec, seq)
	if err != nil {
		return nil, errBusiness500(err.Error())
	}
	return d, nil
}

// stepper is the dashboard's scratch replay of the recording
// (replay.Stepper), and the recording last read: inputs never change once
// logged, so it serves every step it holds (a data directory's log is read
// again only when a later input is asked for).
type stepper struct {
	mu      sync.Mutex
	rec     *Recording
	scratch replay.Stepper[*Simulator]
}

// stepScratch builds the scratch simulators of a recording of cfg.
type stepScratch struct{ cfg recordingConfig }

func (h stepScratch) Build() (*Simulator, error) {
	o := defaultOptions()
	if err := h.cfg.apply(&o); err != nil {
		return nil, err
	}
	sim, err := build(o)
	if err != nil {
		return nil, err
	}
	sim.wiring.rec.NotInMemory()
	return sim, nil
}

func (h stepScratch) Target(s *Simulator) replay.Target { return replayTarget(s) }

// recording returns the simulator's recording, holding at least seq
// inputs when the simulator has logged them.
func (ctl *controlAPI) stepRecording(seq int64) (*Recording, error) {
	s := ctl.sim
	st := s.wiring.stepper
	st.mu.Lock()
	rec := st.rec
	st.mu.Unlock()
	logged := s.wiring.rec.Seq()
	if rec != nil && int64(len(rec.inputs)) >= min(seq, logged) {
		return rec, nil
	}
	rec, err := readLog(s.wiring.inputs, false)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	if st.rec == nil || len(rec.inputs) > len(st.rec.inputs) {
		st.rec = rec
	}
	st.mu.Unlock()
	return rec, nil
}

// close lets the scratch replay's waiting requests finish.
func (st *stepper) close() { st.scratch.Close() }

// showStep steps the scratch replay to input seq of rec and shows that
// input, its answer and the state after it.
func (ctl *controlAPI) showStep(rec *Recording, seq int64) (*stepDetail, error) {
	d := &stepDetail{}
	err := ctl.sim.wiring.stepper.scratch.Show(stepScratch{rec.header.Config}, rec.inputs, seq, func(sim *Simulator, ans *replayWriter) {
		d.State = sim.State()
		if seq == 0 {
			d.Step = inputlog.Summary{Clock: sim.st.clock.Now().UTC(), Op: "start", Summary: "the simulator as its configuration builds it, before the first input"}
		}
		if seq > 0 {
			in := rec.inputs[seq-1]
			d.Step = inputlog.Summarize(in)
			d.Input = inputlog.RedactInput(in)
			if in.Op == recfile.OpHTTP || in.Op == recfile.OpResume {
				d.Answer = &stepAnswer{}
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

// recordingOps declares the recording's routes: all of them read.
var recordingOps = []*op{
	def[noInput]{Route: "GET /_sim/recording", Unlocked: true, Run: func(x *opRun, _ *noInput) (any, error) {
		return x.s.wiring.ctl.recordingAnswer()
	}}.Op(),
	def[noInput]{Route: "GET /_sim/digest", Captured: true, Run: func(x *opRun, _ *noInput) (any, error) {
		d, err := x.s.wiring.image.digest(x.tx)
		if err != nil {
			return nil, errBusiness500(err.Error())
		}
		return map[string]any{"digest": d, "inputs": x.inputs, "now": x.tx.Now().UTC()}, nil
	}}.Op(),
	def[stepsQuery]{Route: "GET /_sim/recording/steps", Unlocked: true, Run: func(x *opRun, in *stepsQuery) (any, error) {
		return x.s.wiring.ctl.steps(in)
	}}.Op(),
	def[stepRef]{Route: "GET /_sim/recording/steps/{seq}", Unlocked: true, Run: func(x *opRun, in *stepRef) (any, error) {
		return x.s.wiring.ctl.step(in)
	}}.Op(),
}
