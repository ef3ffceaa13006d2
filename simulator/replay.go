package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// The replay runner is internal/replay; its Target is the simulator's
// input log (internal/inputlog's Log.Target), driving the simulator
// through replayTarget's inputlog.DriverFuncs.

// replayRecording runs a recording on s (just built from its
// configuration) and brings the clock to where the recording ended.
func replayRecording(s *Simulator, r *Recording) error {
	if err := replay.New(replayTarget(s)).Recording(r.f.Inputs, r.f.End, r.f.Digest, r.f.Header.Version < 2); err != nil {
		return err
	}
	st := s.wiring.rec.Store()
	if st != nil {
		// Replayed into a data directory: one sync for all of it.
		return st.Durable(st.Written())
	}
	return nil
}

// replayTarget is s as the replay runner drives it: its input log's
// Target, driving s beyond the log (inputlog.DriverFuncs).
func replayTarget(s *Simulator) replay.Target {
	w := &s.wiring
	return w.inputs.Target(inputlog.DriverFuncs{Handler: s, CallFunc: func(in *recfile.Input) error { return replayCall(s, in) },
		Due: w.delivery.DueInput, Abort: w.delivery.AbortInput, Flight: s.st.webhooks.InFlight, KickFunc: s.st.webhooks.Kick,
		AttemptFunc: func(in *recfile.Input) error {
			return w.delivery.AttemptInput(in.Delivery, in.At, in.StatusCode, in.Response, in.Error)
		},
		Base: &w.replayBase, DigestOf: w.image.digest, LegacyDigestOf: w.image.legacyDigest})
}

// replayCall runs a recorded Go control call on s through the method it
// names (replay.Call).
func replayCall(s *Simulator, in *recfile.Input) error {
	// The method is found through its declaration (control_decl.go):
	// "Field.Method" for the control types, "Action" for *Simulator.
	fn, err := declaredMethod(s, in.Call)
	if err != nil {
		return err
	}
	failed, err := replay.Call(fn, in, func(arg any) {
		if fx, ok := arg.(replayArg); ok && in.Route == "" {
			fx.replayArg()
		}
	})
	if err != nil {
		return err
	}
	if in.Route != "" && !failed {
		// Entered over HTTP: the timers due then ran in the same input.
		s.wiring.ctl.runDue()
	}
	return nil
}

// replayArg is an argument of a Go control call that needs more than its
// JSON to be replayed.
type replayArg interface{ replayArg() }

// replayArg gives a delay fault that was held by a channel (Hold, which a
// recording cannot keep) a closed one: in a replay the recording says when
// a delayed request resumes, and a request taking the fault after the
// replay is not held.
func (f *Fault) replayArg() {
	if f.Kind == FaultDelay && f.DelayMS == 0 && f.Hold == nil {
		c := make(chan struct{})
		close(c)
		f.Hold = c
	}
}
