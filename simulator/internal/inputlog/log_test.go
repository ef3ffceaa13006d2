package inputlog

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// fakeHost is a simulator as a Log needs it: a clock the timers move, and
// fixed draws and digest.
type fakeHost struct {
	now   *time.Time
	draws []bool
}

func (h fakeHost) Now() time.Time                          { return *h.now }
func (h fakeHost) Body(r *http.Request, in *recfile.Input) { in.Body = []byte("body") }
func (h fakeHost) Draws(*kernel.Tx, *http.Request) []bool  { return h.draws }
func (h fakeHost) Digest(at func(*kernel.Tx)) (string, error) {
	at(nil)
	return "digest", nil
}
func (h fakeHost) WriteState(io.Writer, *kernel.Capture) error { return nil }

// newLog returns a Log over a fresh kernel whose timers hold one object
// in flight, due a minute after t0, and the clock they move.
func newLog(t *testing.T) (*Log[testConfig], *time.Time) {
	t.Helper()
	now := t0
	k := new(kernel.Kernel)
	tm := outcomes.New(outcomes.Clock{Now: func() time.Time { return now }, Set: func(at time.Time) {
		if at.After(now) {
			now = at
		}
	}})
	tm.Register(k)
	caps := kernel.NewCell(k, "gateway.caps", gateway.StoreCaps{Nonces: 1})
	tx := k.BeginSetup()
	tm.SetCollection(tx, "things", outcomes.Mode{Kind: outcomes.After, After: time.Minute})
	tm.InFlight(tx, "things", "a")
	tx.End()
	l := &Log[testConfig]{K: k, Rec: NewRecorder(testConfig{}, 1, 1<<20, AllOrNothingRules), Timers: tm,
		Caps: caps, Unlogged: "X-Secret", Host: fakeHost{now: &now, draws: []bool{true}}}
	return l, &now
}

// TestLogInputs holds what each way into the log logs: an advance that
// runs a timer and one that runs none, a replay's advance, a change of the
// caps and a repeat of them, a Go call, and a request.
func TestLogInputs(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest("POST", "/v1/things", nil)
	req.Header.Set("X-Secret", "s")
	req.Header.Set("X-Kept", "k")
	tests := []struct {
		name string
		run  func(l *Log[testConfig]) error
		want []*recfile.Input
		at   time.Duration // the clock after, from t0
	}{
		{"an advance that runs nothing is not logged", func(l *Log[testConfig]) error {
			l.Advance(30 * time.Second)
			return nil
		}, nil, 30 * time.Second},
		{"an advance that runs a timer is", func(l *Log[testConfig]) error {
			l.Advance(2 * time.Minute)
			return nil
		}, []*recfile.Input{{Seq: 1, Op: recfile.OpAdvance, Clock: t0, To: t0.Add(2 * time.Minute), Rules: AllOrNothingRules}}, 2 * time.Minute},
		{"a replay's advance is logged", func(l *Log[testConfig]) error {
			return l.AdvanceTo(t0.Add(time.Hour))
		}, []*recfile.Input{{Seq: 1, Op: recfile.OpAdvance, Clock: t0, To: t0.Add(time.Hour), Rules: AllOrNothingRules}}, time.Hour},
		{"caps are logged when they change", func(l *Log[testConfig]) error {
			if err := l.SetCaps(gateway.StoreCaps{Nonces: 1}); err != nil {
				return err
			}
			return l.SetCaps(gateway.StoreCaps{Nonces: 2})
		}, []*recfile.Input{{Seq: 1, Op: recfile.OpCaps, Clock: t0, Caps: &recfile.Caps{Nonces: 2}, Rules: AllOrNothingRules}}, 0},
		{"a Go call is logged with its arguments", func(l *Log[testConfig]) error {
			return l.RouteCall("Things.Make", "POST /_sim/things", []any{"a", 2}, func() error { return nil })
		}, []*recfile.Input{{Seq: 1, Op: recfile.OpCall, Clock: t0, Call: "Things.Make", Route: "POST /_sim/things",
			Args: []json.RawMessage{[]byte(`"a"`), []byte(`2`)}, Rules: AllOrNothingRules}}, 0},
		{"a request is logged without the unlogged header", func(l *Log[testConfig]) error {
			tx := l.K.BeginInput()
			defer tx.End()
			_, _, err := l.LogRequest(tx, req)
			tx.Ordered()
			return err
		}, []*recfile.Input{{Seq: 1, Op: recfile.OpHTTP, Clock: t0, Method: "POST", Target: "/v1/things", Proto: "HTTP/1.1",
			Host: "example.com", Remote: "192.0.2.1:1234", Header: http.Header{"X-Kept": {"k"}}, Body: []byte("body"),
			Draws: []bool{true}, Rules: AllOrNothingRules}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, now := newLog(t)
			if err := tt.run(l); err != nil {
				t.Fatal(err)
			}
			got, err := l.Rec.MemInputs()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("logged (-want +got):\n%s", diff)
			}
			if !now.Equal(t0.Add(tt.at)) {
				t.Errorf("clock at %s, want %s", now, t0.Add(tt.at))
			}
		})
	}
}

// TestLogPoint: the point carries the clock then and, when asked for, the
// digest; Recording reads the inputs up to it.
func TestLogPoint(t *testing.T) {
	t.Parallel()
	l, _ := newLog(t)
	l.Advance(2 * time.Minute)
	p, inputs, err := l.Recording(true, errors.New("full"))
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		Seq    int64
		End    time.Time
		Digest string
		Inputs int
	}{p.Seq, p.End, p.Digest, len(inputs)}
	want := got
	want.Seq, want.End, want.Digest, want.Inputs = 1, t0.Add(2*time.Minute), "digest", 1
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("point (-want +got):\n%s", diff)
	}
	if p, _ := l.Point(false); p.Digest != "" {
		t.Errorf("digest %q without asking for it", p.Digest)
	}
	l.CloseStore() // no store: nothing to close
}
