package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/recview"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// The recording over HTTP: GET /_sim/recording (the input log, in the
// recording file format), GET /_sim/digest (the state digest) and the
// dashboard's stepper, GET /_sim/recording/steps and
// GET /_sim/recording/steps/{seq}, which replays the recording into a
// scratch simulator to show the state after each input (internal/recview,
// over stepScratch). All of them read: none changes the simulator.

// stepper is the dashboard's scratch replay of the recording and the
// recording it last read (recview.Stepper).
type stepper = recview.Stepper[recordingConfig, *Simulator, StateSnapshot]

// stepScratch builds the scratch simulators of a recording of cfg
// (recview.Scratch).
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
func (h stepScratch) State(s *Simulator) StateSnapshot  { return s.State() }
func (h stepScratch) Now(s *Simulator) time.Time        { return s.st.clock.Now() }

var recordingViews = recview.NewControlOps(recview.Views[*opRun, recordingConfig, *Simulator, StateSnapshot]{
	Log: func(x *opRun) *inputLog { return x.Sim.wiring.inputs },
	Read: func(x *opRun, digest bool) (*recfile.File[recordingConfig], error) {
		rec, err := readLog(x.Sim.wiring.inputs, digest)
		if err != nil {
			return nil, err
		}
		return &rec.f, nil
	},
	Stepper: func(x *opRun) *stepper { return x.Sim.wiring.stepper },
	Scratch: func(cfg recordingConfig) recview.Scratch[*Simulator, StateSnapshot] { return stepScratch{cfg} },
})

// recordingOps declares the recording's routes: all of them read.
var recordingOps = []*op{
	recordingViews.Recording,
	def[noInput]{Route: "GET /_sim/digest", Captured: true, Run: func(x *opRun, _ *noInput) (any, error) {
		d, err := x.Sim.wiring.image.digest(x.Tx)
		if err != nil {
			return nil, errBusiness500(err.Error())
		}
		return map[string]any{"digest": d, "inputs": x.Inputs, "now": x.Tx.Now().UTC()}, nil
	}}.Op(),
	recordingViews.Steps,
	recordingViews.Step,
}
