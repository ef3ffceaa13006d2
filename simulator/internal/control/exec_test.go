package control

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// execSim is the simulator of the Runner's tests: a kernel with a counter
// cell, and the log of what the runner asked of its input log, recorder
// and timers.
type execSim struct {
	k          kernel.Kernel
	count      *kernel.Cell[int]
	calls      []string
	legacy     bool
	logErr     error
	durableErr error
}

func (s *execSim) GoCall(name string, _ []any, run func() error) error {
	s.calls = append(s.calls, "call "+name)
	return run()
}
func (s *execSim) RouteCall(name, route string, _ []any, run func() error) error {
	s.calls = append(s.calls, "route "+name+" "+route)
	return run()
}
func (s *execSim) Seq() int64        { return 42 }
func (s *execSim) LegacyRules() bool { return s.legacy }
func (s *execSim) ControlID() string { return "req_1" }
func (s *execSim) Durable(int64) error {
	s.calls = append(s.calls, "durable")
	return s.durableErr
}
func (s *execSim) RunDue(*kernel.Tx) { s.calls = append(s.calls, "due") }

// execOwn is the Own part of the tests' Runner.
type execOwn struct{}

func (execOwn) Guard(*http.Request, *Op[*Exec[*execSim]], bool) *api.Error { return nil }
func (execOwn) Refused(r *Refusal) error                                   { return errors.New("refused " + r.Field) }
func (execOwn) Replayed(*http.Request) bool                                { return false }
func (execOwn) Error(err error) *api.Error                                 { return api.InvalidRequest(err.Error()) }

// newExecRunner is a Runner over a new execSim.
func newExecRunner() (*Runner[*execSim], *execSim) {
	s := &execSim{}
	s.count = kernel.NewCell(&s.k, "count", 0)
	h := &Runner[*execSim]{
		Own: execOwn{}, Sim: s, Kernel: &s.k, Log: s, Rec: s, Timers: s,
		LogInput: func(*kernel.Tx, *http.Request) (int64, error) {
			s.calls = append(s.calls, "input")
			return 7, s.logErr
		},
		NotPersisted: func(err error) *api.Error { return api.NewErr("not_persisted", err.Error()) },
		NotDurable:   func(err error) *api.Error { return api.NewErr("not_durable", err.Error()) },
		Capture: func(at func()) *kernel.Tx {
			s.calls = append(s.calls, "capture")
			tx := s.k.Begin()
			at()
			return tx
		},
	}
	return h, s
}

// addOp adds 1 to the counter and answers the legacy flag it ran under.
func addOp(captured bool) *Op[*Exec[*execSim]] {
	return Def[*Exec[*execSim], NoInput]{Name: "Count.Add", Args: func(*NoInput) []any { return nil }, Captured: captured,
		Run: func(x *Exec[*execSim], _ *NoInput) (any, error) {
			x.Sim.count.Set(x.Tx, x.Sim.count.Get(x.Tx)+1)
			return x.Legacy, nil
		}}.Op()
}

// TestRunnerInvoke: a Go method's run is logged as its call, runs under
// the recorder's argument rules in a transaction of the kernel; a
// captured op runs on the capture, which counts the inputs logged.
func TestRunnerInvoke(t *testing.T) {
	for _, tc := range []struct {
		name      string
		captured  bool
		legacy    bool
		want      any
		wantCalls []string
		inputs    int64
	}{
		{name: "locked", want: false, wantCalls: []string{"call Count.Add"}},
		{name: "legacy rules", legacy: true, want: true, wantCalls: []string{"call Count.Add"}},
		{name: "captured", captured: true, want: false, wantCalls: []string{"call Count.Add", "capture"}, inputs: 42},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newExecRunner()
			s.legacy = tc.legacy
			x := &Exec[*execSim]{Sim: s}
			out, err := Invoke(h, x, addOp(tc.captured), &NoInput{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, s.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if x.Inputs != tc.inputs {
				t.Errorf("inputs = %d, want %d", x.Inputs, tc.inputs)
			}
		})
	}
}

// TestRunnerLogRequest: a request is logged as an input in a transaction
// the runner begins, runs there under the recorder's rules and answers
// once durable; a request the log refuses does not run.
func TestRunnerLogRequest(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name               string
		logErr, durableErr error
		wantCode           string
		wantCalls          []string
	}{
		{name: "durable", wantCalls: []string{"input", "run", "durable"}},
		{name: "not logged", logErr: boom, wantCode: "not_persisted", wantCalls: []string{"input"}},
		{name: "not durable", durableErr: boom, wantCode: "not_durable", wantCalls: []string{"input", "run", "durable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, s := newExecRunner()
			s.logErr, s.durableErr, s.legacy = tc.logErr, tc.durableErr, true
			x := h.NewRun(httptest.NewRequest(http.MethodPost, "/_sim/count", nil))
			ae := h.LogRequest(x, func() {
				if x.Tx == nil || !x.Legacy {
					t.Errorf("run without the input's transaction or rules: %+v", x)
				}
				s.calls = append(s.calls, "run")
			})
			var code string
			if ae != nil {
				code = ae.Code
			}
			if code != tc.wantCode {
				t.Errorf("answer code = %q, want %q", code, tc.wantCode)
			}
			if diff := cmp.Diff(tc.wantCalls, s.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunnerRouteAndTimers: a route entered as a call is logged with its
// route under the recorder's rules; the timers due run in the run's
// transaction or in one of their own; the request id is the recorder's.
func TestRunnerRouteAndTimers(t *testing.T) {
	h, s := newExecRunner()
	s.legacy = true
	x := h.NewRun(httptest.NewRequest(http.MethodPost, "/_sim/count", nil))
	if err := h.LogRoute(x, "Count.Add", "POST /_sim/count", nil, func() {}); err != nil {
		t.Fatal(err)
	}
	if !x.Legacy {
		t.Error("route call not under the recorder's argument rules")
	}
	h.RunDueNow()
	InTx(h, x, addOp(false), func() { h.RunDue(x) })
	want := []string{"route Count.Add POST /_sim/count", "due", "due"}
	if diff := cmp.Diff(want, s.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got := h.RequestID(); got != "req_1" {
		t.Errorf("RequestID = %q", got)
	}
}
