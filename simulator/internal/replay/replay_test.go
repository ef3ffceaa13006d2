package replay

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// TestCheckEveryOp holds the divergence check for every op it compares: the
// same input passes, one that differs in what identifies it diverges, and
// a logged input takes the recorded rules.
func TestCheckEveryOp(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	caps := func(n int) *recfile.Caps { return &recfile.Caps{Nonces: n} }
	tests := []struct {
		want, other recfile.Input
	}{
		{recfile.Input{Op: recfile.OpHTTP, Method: "GET", Target: "/v1/a"}, recfile.Input{Op: recfile.OpHTTP, Method: "GET", Target: "/v1/b"}},
		{recfile.Input{Op: recfile.OpResume, Of: 1}, recfile.Input{Op: recfile.OpResume, Of: 2}},
		{recfile.Input{Op: recfile.OpCall, Call: "Advance"}, recfile.Input{Op: recfile.OpCall, Call: "Reset"}},
		{recfile.Input{Op: recfile.OpAdvance, To: at}, recfile.Input{Op: recfile.OpAdvance, To: at.Add(time.Second)}},
		{recfile.Input{Op: recfile.OpAttempt, Delivery: "d1"}, recfile.Input{Op: recfile.OpAttempt, Delivery: "d2"}},
		{recfile.Input{Op: recfile.OpBase, URL: "http://a"}, recfile.Input{Op: recfile.OpBase, URL: "http://b"}},
		{recfile.Input{Op: recfile.OpCaps, Caps: caps(1)}, recfile.Input{Op: recfile.OpCaps, Caps: caps(2)}},
		{recfile.Input{Op: recfile.OpFlushDue}, recfile.Input{Op: recfile.OpAdvance, To: at}},
	}
	for _, tc := range tests {
		t.Run(tc.want.Op, func(t *testing.T) {
			t.Parallel()
			want := tc.want
			want.Seq, want.Rules = 7, 2
			got := tc.want
			got.Seq = 7
			c := &Check{Want: &want}
			if err := c.Check(&got); err != nil {
				t.Fatalf("the recorded input itself: %v", err)
			}
			if got.Rules != 2 || c.Want != nil {
				t.Errorf("after a match: rules %q, want still %v", got.Rules, c.Want)
			}
			if err := c.Done(&want, nil); err != nil {
				t.Errorf("Done after a match: %v", err)
			}
			other := tc.other
			other.Seq = 7
			c = &Check{Want: &want}
			err := c.Check(&other)
			if err == nil || !strings.Contains(err.Error(), "diverges at input 7") {
				t.Fatalf("a different input: %v, want a divergence", err)
			}
			if again := c.Check(&got); again != err {
				t.Errorf("after a divergence the check returns %v, want the divergence", again)
			}
			if done := c.Done(&want, errors.New("other")); done != err {
				t.Errorf("Done returns %v, want the divergence", done)
			}
		})
	}
}

// TestCheckNothingLogged: an input whose execution logged nothing diverges,
// unless it failed (its error is the answer), and an input logged between
// inputs diverges.
func TestCheckNothingLogged(t *testing.T) {
	t.Parallel()
	in := &recfile.Input{Seq: 3, Op: recfile.OpFlushDue}
	c := &Check{Want: in}
	if err := c.Done(in, nil); err == nil || !strings.Contains(err.Error(), "logged nothing") {
		t.Errorf("nothing logged: %v", err)
	}
	failed := errors.New("failed")
	c = &Check{Want: in}
	if err := c.Done(in, failed); err != failed {
		t.Errorf("a failed input: %v, want its error", err)
	}
	c = &Check{}
	if err := c.Check(&recfile.Input{Seq: 4, Op: recfile.OpFlushDue}); err == nil || !strings.Contains(err.Error(), "no input was being replayed") {
		t.Errorf("logged between inputs: %v", err)
	}
}

// fake is a Target that logs what it is asked and parks the requests to
// /delay in a delay fault.
type fake struct {
	chk Check
	log []string
}

func (f *fake) Expect(in *recfile.Input) error { f.chk.Want = in; return f.chk.Err }
func (f *fake) Logged(in *recfile.Input, err error) error {
	return f.chk.Done(in, err)
}
func (f *fake) CatchUp(*recfile.Input) {}
func (f *fake) Serve(h *Hooks, req *http.Request, body io.ReadCloser) {
	b, _ := io.ReadAll(body)
	_ = f.chk.Check(&recfile.Input{Seq: h.Want.Seq, Op: recfile.OpHTTP, Method: req.Method, Target: req.RequestURI})
	if req.URL.Path == "/delay" {
		h.Park()
		// A resumed request logs its resumption (an input of its own),
		// checked while a replay runs.
		if f.chk.Want != nil {
			_ = f.chk.Check(&recfile.Input{Seq: f.chk.Want.Seq, Op: recfile.OpResume, Of: h.Want.Seq})
		}
		f.log = append(f.log, "resumed "+req.URL.Path)
	}
	f.log = append(f.log, "served "+req.URL.Path+" "+string(b))
	h.W.WriteHeader(http.StatusCreated)
}
func (f *fake) Apply(in *recfile.Input) error {
	if in.Op == recfile.OpResume {
		return errors.New("resume applied")
	}
	f.log = append(f.log, "applied "+in.Op)
	return f.chk.Check(in)
}
func (f *fake) End()    { f.log = append(f.log, "end") }
func (f *fake) Settle() { f.log = append(f.log, "settle") }
func (f *fake) Reach(time.Time, bool, bool) (string, time.Time, error) {
	return "sha256:x", time.Time{}, nil
}

// TestRunnerParksDelayedRequests runs a request that parks in a delay, an
// input after it, and its resumption: the request finishes where the
// recording resumes it (its answer reported with the resume), and Finish
// ends the replay before settling.
func TestRunnerParksDelayedRequests(t *testing.T) {
	t.Parallel()
	f := &fake{}
	p := New(f)
	var statuses []int
	p.OnStep = func(_ *recfile.Input, w *Writer) {
		if w != nil {
			statuses = append(statuses, w.Status)
		}
	}
	inputs := []*recfile.Input{
		{Seq: 1, Op: recfile.OpHTTP, Method: "POST", Target: "/delay", Body: []byte("a")},
		{Seq: 2, Op: recfile.OpFlushDue},
		{Seq: 3, Op: recfile.OpResume, Of: 1},
		{Seq: 4, Op: recfile.OpHTTP, Method: "POST", Target: "/now", Body: []byte("b")},
	}
	if err := p.Run(inputs); err != nil {
		t.Fatal(err)
	}
	p.Finish()
	want := []string{"applied flush_due", "resumed /delay", "served /delay a", "served /now b", "end", "settle"}
	if diff := cmp.Diff(want, f.log); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, http.StatusCreated, http.StatusCreated}, statuses); diff != "" {
		t.Errorf("answers seen by OnStep (-want +got):\n%s", diff)
	}
}

// TestAbandonReleasesParkedRequests: a failed replay lets its parked
// requests finish, so no goroutine is left waiting.
func TestAbandonReleasesParkedRequests(t *testing.T) {
	t.Parallel()
	f := &fake{}
	p := New(f)
	if err := p.Step(&recfile.Input{Seq: 1, Op: recfile.OpHTTP, Method: "POST", Target: "/delay"}); err != nil {
		t.Fatal(err)
	}
	err := p.Step(&recfile.Input{Seq: 2, Op: recfile.OpResume, Of: 9})
	if err == nil || !strings.Contains(err.Error(), "not waiting in a delay") {
		t.Fatalf("resuming an input that is not parked: %v", err)
	}
	p.Abandon()
	want := []string{"end", "resumed /delay", "served /delay "}
	if diff := cmp.Diff(want, f.log); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
