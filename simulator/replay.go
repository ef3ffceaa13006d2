package simulator

import (
	"fmt"
	"io"
	"net/http"
	"reflect"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// The replay runner is internal/replay; the simulator is its Target.
type (
	replayer     = replay.Runner
	replayHooks  = replay.Hooks
	replayWriter = replay.Writer
)

// describeInput is a one-line description of an input for messages.
func describeInput(in *recordedInput) string { return replay.Describe(in) }

func newReplayer(s *Simulator) *replayer { return replay.New(&replayTarget{s}) }

// replayRecording runs a recording on s (just built from its
// configuration) and brings the clock to where the recording ended.
func replayRecording(s *Simulator, r *Recording) error {
	if err := newReplayer(s).Recording(r.inputs, r.end, r.digest, r.header.Version < 2); err != nil {
		return err
	}
	st := s.wiring.rec.Store()
	if st != nil {
		// Replayed into a data directory: one sync for all of it.
		return st.Durable(st.Written())
	}
	return nil
}

// replayTarget is the simulator as the replay runner drives it.
type replayTarget struct{ s *Simulator }

func (t *replayTarget) Expect(in *recordedInput) error { return t.s.wiring.rec.Expect(in) }

func (t *replayTarget) Logged(in *recordedInput, err error) error {
	return t.s.wiring.rec.Logged(in, err)
}

func (t *replayTarget) CatchUp(in *recordedInput) {
	s := t.s
	tx := s.k.Begin()
	s.wiring.rec.SetRunning(in)
	if now := s.st.clock.Now(); in.Clock.After(now) {
		s.wiring.timers.Advance(tx, in.Clock.Sub(now))
	}
	tx.End()
}

func (t *replayTarget) Serve(h *replayHooks, req *http.Request, body io.ReadCloser) {
	req.Body = &captureBody{src: body, replay: h}
	t.s.ServeHTTP(h.W, req)
}

func (t *replayTarget) Apply(in *recordedInput) error {
	s := t.s
	switch in.Op {
	case recfile.OpCall:
		return t.call(in)
	case recfile.OpAdvance:
		return s.wiring.inputs.advanceTo(in.To)
	case recfile.OpFlushDue:
		return s.wiring.delivery.DueInput()
	case recfile.OpAttempt:
		return s.wiring.delivery.AttemptInput(in.Delivery, in.At, in.StatusCode, in.Response, in.Error)
	case recfile.OpFlushAbort:
		return s.wiring.delivery.AbortInput(in.Deliveries)
	case recfile.OpBase:
		// The recorded simulator's address: answers built from it (links)
		// are the same in the replay.
		s.wiring.replayBase = in.URL
		tx, _, err := s.wiring.inputs.lockInput(&recordedInput{Op: recfile.OpBase, URL: in.URL})
		if err == nil {
			tx.End()
		}
		return err
	case recfile.OpCaps:
		if in.Caps == nil {
			return fmt.Errorf("simulator: replay: input %d: caps without their values", in.Seq)
		}
		return s.wiring.inputs.setCaps(storeCaps(*in.Caps))
	}
	return fmt.Errorf("simulator: replay: input %d: unknown op %q", in.Seq, in.Op)
}

func (t *replayTarget) End() {
	s := t.s
	s.wiring.rec.EndReplay()
	s.wiring.replayBase = ""
}

// Settle sends back to pending the deliveries a flush left in flight.
func (t *replayTarget) Settle() {
	s := t.s
	tx := s.k.BeginInput()
	ids := s.st.webhooks.InFlight(tx)
	tx.End()
	if len(ids) > 0 {
		_ = s.wiring.delivery.AbortInput(ids)
	}
	tx = s.k.Begin()
	s.st.webhooks.Kick(tx)
	tx.End()
}

func (t *replayTarget) Reach(end time.Time, legacy, digest bool) (string, time.Time, error) {
	s := t.s
	tx := s.k.Begin()
	defer tx.End()
	if now := s.st.clock.Now(); end.After(now) {
		s.wiring.timers.Advance(tx, end.Sub(now))
	}
	var got string
	if digest {
		var err error
		if legacy {
			got, err = s.wiring.image.legacyDigest(tx)
		} else {
			got, err = s.wiring.image.digest(tx)
		}
		if err != nil {
			return "", time.Time{}, err
		}
	}
	return got, s.st.clock.Now(), nil
}

// call runs a recorded Go control call through the method it names
// (replay.Call).
func (rt *replayTarget) call(in *recordedInput) error {
	fn, err := rt.s.wiring.ctl.controlMethod(in.Call)
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
		rt.s.wiring.ctl.runDue()
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

// controlMethod finds a Go control method by its recorded name through
// its declaration (control_decl.go): "Field.Method" for the control types,
// "Action" for *Simulator. A name no declaration gives is refused.
func (ctl *controlAPI) controlMethod(name string) (reflect.Value, error) {
	return declaredMethod(ctl.sim, name)
}
