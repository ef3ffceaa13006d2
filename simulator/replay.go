package simulator

import (
	"io"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// The replay runner is internal/replay; its Target is the simulator's
// input log (internal/inputlog's Log.Target), driving the simulator
// through replayDriver.

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

// replayDriver is the simulator as a replay drives it beyond its input
// log (inputlog.Driver; the log's Target is the replay runner's).
type replayDriver struct{ s *Simulator }

// replayTarget is s as the replay runner drives it.
func replayTarget(s *Simulator) replay.Target { return s.wiring.inputs.Target(replayDriver{s}) }

func (d replayDriver) Serve(h *replay.Hooks, req *http.Request, body io.ReadCloser) {
	inputlog.ReplayBody(req, body, h)
	d.s.ServeHTTP(h.W, req)
}

func (d replayDriver) FlushDue() error { return d.s.wiring.delivery.DueInput() }

func (d replayDriver) Attempt(in *recfile.Input) error {
	return d.s.wiring.delivery.AttemptInput(in.Delivery, in.At, in.StatusCode, in.Response, in.Error)
}

func (d replayDriver) FlushAbort(ids []string) error   { return d.s.wiring.delivery.AbortInput(ids) }
func (d replayDriver) InFlight(tx *kernel.Tx) []string { return d.s.st.webhooks.InFlight(tx) }
func (d replayDriver) Kick(tx *kernel.Tx)              { d.s.st.webhooks.Kick(tx) }
func (d replayDriver) SetBase(url string)              { d.s.wiring.replayBase = url }

func (d replayDriver) Digest(tx *kernel.Tx, legacy bool) (string, error) {
	if legacy {
		return d.s.wiring.image.legacyDigest(tx)
	}
	return d.s.wiring.image.digest(tx)
}

// Call runs a recorded Go control call through the method it names
// (replay.Call).
func (d replayDriver) Call(in *recfile.Input) error {
	// The method is found through its declaration (control_decl.go):
	// "Field.Method" for the control types, "Action" for *Simulator.
	fn, err := declaredMethod(d.s, in.Call)
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
		d.s.wiring.ctl.runDue()
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
