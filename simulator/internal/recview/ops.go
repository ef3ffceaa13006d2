package recview

import (
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Views are what the ops need of the declaring package, for the
// simulator a run X runs on.
type Views[X, C, S, St any] struct {
	// Log is the simulator's input log.
	Log func(x X) *inputlog.Log[C]
	// Read reads the log back as a recording: the inputs up to its point,
	// with the state digest then when digest is set.
	Read func(x X, digest bool) (*recfile.File[C], error)
	// Stepper is the simulator's stepper.
	Stepper func(x X) *Stepper[C, S, St]
	// Scratch builds the scratch simulators of a recording of cfg.
	Scratch func(cfg C) Scratch[S, St]
}

// ControlOps are the recording's ops declared here, all unlocked reads:
// Recording is GET /_sim/recording, Steps GET /_sim/recording/steps and
// Step GET /_sim/recording/steps/{seq}.
type ControlOps[X any] struct {
	Recording, Steps, Step *control.Op[X]
}

// NewControlOps declares the ops over v.
func NewControlOps[X, C, S, St any](v Views[X, C, S, St]) *ControlOps[X] {
	// recording returns the recording, holding at least seq inputs when
	// the simulator has logged them.
	recording := func(x X, seq int64) (*recfile.File[C], error) {
		return v.Stepper(x).Recording(seq, v.Log(x).Rec.Seq(), func() (*recfile.File[C], error) { return v.Read(x, false) })
	}
	return &ControlOps[X]{
		Recording: control.Def[X, control.NoInput]{Route: "GET /_sim/recording", Unlocked: true, Run: func(x X, _ *control.NoInput) (any, error) {
			return answer(v.Log(x), func() (*recfile.File[C], error) { return v.Read(x, true) })
		}}.Op(),
		Steps: control.Def[X, StepsIn]{Route: "GET /_sim/recording/steps", Unlocked: true, Run: func(x X, in *StepsIn) (any, error) {
			rec, err := recording(x, math.MaxInt64)
			if err != nil {
				return nil, api.NewErr("service_unavailable", err.Error())
			}
			return Page(rec.Inputs, in), nil
		}}.Op(),
		Step: control.Def[X, StepIn]{Route: "GET /_sim/recording/steps/{seq}", Unlocked: true, Run: func(x X, in *StepIn) (any, error) {
			seq, _ := strconv.ParseInt(in.Seq, 10, 64)
			rec, err := recording(x, seq)
			if err != nil {
				return nil, api.NewErr("service_unavailable", err.Error())
			}
			if seq > int64(len(rec.Inputs)) {
				return nil, api.NotFound(fmt.Sprintf("input %d (the recording has %d)", seq, len(rec.Inputs)))
			}
			d, err := v.Stepper(x).Show(v.Scratch(rec.Header.Config), rec, seq)
			if err != nil {
				return nil, api.Business500(err.Error())
			}
			return d, nil
		}}.Op(),
	}
}

// answer streams the recording of l: from the data directory's log as it
// is, or from memory (read).
func answer[C any](l *inputlog.Log[C], read func() (*recfile.File[C], error)) (any, error) {
	st := l.Rec.Store()
	if st != nil {
		p, err := l.Point(true)
		if err != nil {
			return nil, api.Business500(err.Error())
		}
		return control.Raw(func(w http.ResponseWriter, _ *http.Request) {
			headers(w)
			_ = st.WriteRecording(w, p.Written, p.Header, &recfile.Input{Seq: p.Seq, Op: recfile.OpEnd, Clock: p.End, Digest: p.Digest})
		}), nil
	}
	rec, err := read()
	if err != nil {
		return nil, api.NewErr("service_unavailable", err.Error())
	}
	return control.Raw(func(w http.ResponseWriter, _ *http.Request) {
		headers(w)
		_, _ = recfile.Write(w, rec)
	}), nil
}

// headers are the headers of the recording's download.
func headers(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="mwallet-sim-recording.jsonl"`)
}
