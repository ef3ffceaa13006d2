package inputlog

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// fakeDriver records what a replay asks of the simulator.
type fakeDriver struct {
	did      *[]string
	inFlight []string
}

func (d fakeDriver) note(s string) { *d.did = append(*d.did, s) }
func (d fakeDriver) Serve(*replay.Hooks, *http.Request, io.ReadCloser) {
	d.note("serve")
}
func (d fakeDriver) Call(in *recfile.Input) error    { d.note("call " + in.Call); return nil }
func (d fakeDriver) FlushDue() error                 { d.note("flush due"); return nil }
func (d fakeDriver) Attempt(in *recfile.Input) error { d.note("attempt " + in.Delivery); return nil }
func (d fakeDriver) FlushAbort(ids []string) error   { d.note("abort " + ids[0]); return nil }
func (d fakeDriver) InFlight(*kernel.Tx) []string    { return d.inFlight }
func (d fakeDriver) Kick(*kernel.Tx)                 { d.note("kick") }
func (d fakeDriver) SetBase(url string)              { d.note("base " + url) }
func (d fakeDriver) Digest(_ *kernel.Tx, legacy bool) (string, error) {
	if legacy {
		return "legacy", nil
	}
	return "digest", nil
}

// TestTargetApply: each input that is no request goes where it runs; an
// unknown op and caps without values are refused.
func TestTargetApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      recfile.Input
		want    []string
		wantErr string
	}{
		{recfile.Input{Seq: 1, Op: recfile.OpCall, Call: "Cards.Ship"}, []string{"call Cards.Ship"}, ""},
		{recfile.Input{Seq: 1, Op: recfile.OpFlushDue}, []string{"flush due"}, ""},
		{recfile.Input{Seq: 1, Op: recfile.OpAttempt, Delivery: "d1"}, []string{"attempt d1"}, ""},
		{recfile.Input{Seq: 1, Op: recfile.OpFlushAbort, Deliveries: []string{"d2"}}, []string{"abort d2"}, ""},
		{recfile.Input{Seq: 1, Op: recfile.OpBase, URL: "http://x"}, []string{"base http://x"}, ""},
		{recfile.Input{Seq: 1, Op: recfile.OpAdvance, To: t0.Add(time.Hour)}, nil, ""},
		{recfile.Input{Seq: 1, Op: recfile.OpCaps}, nil, "simulator: replay: input 1: caps without their values"},
		{recfile.Input{Seq: 2, Op: "bogus"}, nil, `simulator: replay: input 2: unknown op "bogus"`},
	}
	for _, tt := range tests {
		t.Run(tt.in.Op, func(t *testing.T) {
			l, _ := newLog(t)
			var did []string
			err := l.Target(fakeDriver{did: &did}).Apply(&tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, did); diff != "" {
				t.Errorf("driven (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTargetClock: CatchUp brings the clock to an input's reading, Settle
// gives the deliveries in flight back and kicks the rest, End forgets the
// recorded address, and Reach reports the clock and the digest asked for.
func TestTargetClock(t *testing.T) {
	t.Parallel()
	l, now := newLog(t)
	var did []string
	tg := l.Target(fakeDriver{did: &did, inFlight: []string{"d1"}})
	tg.CatchUp(&recfile.Input{Op: recfile.OpCall, Clock: t0.Add(time.Minute), Rules: ControlRules})
	if !now.Equal(t0.Add(time.Minute)) || l.Rec.RunningRules() != ControlRules {
		t.Errorf("after CatchUp: clock %s rules %d, want %s and %d", now, l.Rec.RunningRules(), t0.Add(time.Minute), ControlRules)
	}
	tg.Settle()
	tg.End()
	got, at, err := tg.Reach(t0.Add(time.Hour), true, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"abort d1", "kick", "base ", "legacy", t0.Add(time.Hour).String()}, append(did, got, at.String())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
