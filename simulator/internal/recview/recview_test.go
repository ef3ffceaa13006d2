package recview

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// inputs returns n logged inputs: requests, seq 1 to n.
func inputs(n int) []*recfile.Input {
	out := make([]*recfile.Input, n)
	for i := range out {
		out[i] = &recfile.Input{Seq: int64(i + 1), Clock: t0, Op: recfile.OpHTTP, Method: "GET", Target: "/v1/assets"}
	}
	return out
}

// TestPage holds the steps' pages: after and limit, their defaults, the
// cursor of the next page and the empty page.
func TestPage(t *testing.T) {
	t.Parallel()
	i64 := func(v int64) *int64 { return &v }
	i := func(v int) *int { return &v }
	s := func(v string) *string { return &v }
	seqs := func(env api.ListEnvelope) []int64 {
		var out []int64
		for _, sum := range env.Data.([]inputlog.Summary) {
			out = append(out, sum.Seq)
		}
		return out
	}
	tests := []struct {
		name     string
		n        int
		in       StepsIn
		want     []int64
		wantNext *string
	}{
		{name: "all", n: 3, want: []int64{1, 2, 3}},
		{name: "after", n: 3, in: StepsIn{After: i64(1)}, want: []int64{2, 3}},
		{name: "limit", n: 3, in: StepsIn{Limit: i(2)}, want: []int64{1, 2}, wantNext: s("2")},
		{name: "after and limit", n: 5, in: StepsIn{After: i64(1), Limit: i(2)}, want: []int64{2, 3}, wantNext: s("3")},
		{name: "limit 0 is the default", n: 3, in: StepsIn{Limit: i(0)}, want: []int64{1, 2, 3}},
		{name: "at most 1000", n: 1001, in: StepsIn{Limit: i(5000)}, want: seqRange(1, 1000), wantNext: s("1000")},
		{name: "past the end", n: 3, in: StepsIn{After: i64(3)}},
		{name: "empty", n: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := Page(inputs(tt.n), &tt.in)
			if diff := cmp.Diff(tt.want, seqs(env)); diff != "" {
				t.Errorf("seqs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNext, env.NextCursor); diff != "" || env.HasMore != (tt.wantNext != nil) {
				t.Errorf("next cursor (-want +got):\n%s\nhas_more %v", diff, env.HasMore)
			}
		})
	}
}

func seqRange(from, to int64) []int64 {
	var out []int64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// TestStepperRecording holds the recording the stepper keeps: served again
// while it holds what is asked for (or all that is logged), read again
// otherwise, and never replaced by a shorter one.
func TestStepperRecording(t *testing.T) {
	t.Parallel()
	var st Stepper[string, *fake, string]
	var reads int
	var next int
	read := func() (*recfile.File[string], error) {
		reads++
		if next < 0 {
			return nil, errors.New("unreadable")
		}
		return &recfile.File[string]{Inputs: inputs(next)}, nil
	}
	steps := []struct {
		next        int   // inputs a read returns (-1: an error)
		seq, logged int64 // asked for, logged
		reads, len  int   // reads made so far, inputs returned
		wantErr     bool
	}{
		{next: 2, seq: 1, logged: 2, reads: 1, len: 2},
		{next: 9, seq: 2, logged: 5, reads: 1, len: 2},
		{next: 5, seq: 3, logged: 5, reads: 2, len: 5},
		{next: 9, seq: 100, logged: 5, reads: 2, len: 5},
		{next: 3, seq: 6, logged: 6, reads: 3, len: 3},
		{next: -1, seq: 7, logged: 7, reads: 4, wantErr: true},
		{next: 9, seq: 5, logged: 9, reads: 4, len: 5},
	}
	for i, s := range steps {
		next = s.next
		rec, err := st.Recording(s.seq, s.logged, read)
		got := struct{ Reads, Len int }{reads, 0}
		if rec != nil {
			got.Len = len(rec.Inputs)
		}
		if diff := cmp.Diff(struct{ Reads, Len int }{s.reads, s.len}, got); diff != "" || (err != nil) != s.wantErr {
			t.Errorf("step %d: (-want +got):\n%s\nerr %v", i, diff, err)
		}
	}
}

// fake is a scratch simulator: a request answers with its target and a
// secret, any other input is applied.
type fake struct{ applied []string }

func (f *fake) Expect(*recfile.Input) error              { return nil }
func (f *fake) Logged(_ *recfile.Input, err error) error { return err }
func (f *fake) CatchUp(*recfile.Input)                   {}
func (f *fake) Apply(in *recfile.Input) error            { f.applied = append(f.applied, in.Op); return nil }
func (f *fake) End()                                     {}
func (f *fake) Settle()                                  {}
func (f *fake) Serve(h *replay.Hooks, req *http.Request, _ io.ReadCloser) {
	h.W.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(h.W, `{"target":"`+req.URL.Path+`","api_key":"sk_live"}`)
}
func (f *fake) Reach(time.Time, bool, bool) (string, time.Time, error) {
	return "", time.Time{}, nil
}

// scratch builds fakes; a fake's state is the ops it applied.
type scratch struct{}

func (scratch) Build() (*fake, error)        { return &fake{}, nil }
func (scratch) Target(f *fake) replay.Target { return f }
func (scratch) State(f *fake) []string       { return append([]string{}, f.applied...) }
func (scratch) Now(*fake) time.Time          { return t0.In(time.FixedZone("x", 3600)) }

// TestStepperShow holds what a step shows: the start, a request with its
// answer redacted, an input that is no request (no answer), and the state
// after each.
func TestStepperShow(t *testing.T) {
	t.Parallel()
	rec := &recfile.File[string]{Inputs: []*recfile.Input{
		{Seq: 1, Clock: t0, Op: recfile.OpHTTP, Method: "GET", Target: "/v1/assets"},
		{Seq: 2, Clock: t0, Op: recfile.OpFlushDue},
	}}
	var st Stepper[string, *fake, []string]
	defer st.Close()
	tests := []struct {
		seq  int64
		want Detail[[]string]
	}{
		{seq: 0, want: Detail[[]string]{Step: inputlog.Summary{Clock: t0, Op: "start", Summary: "the simulator as its configuration builds it, before the first input"}, State: []string{}}},
		{seq: 1, want: Detail[[]string]{Step: inputlog.Summarize(rec.Inputs[0]), Input: inputlog.RedactInput(rec.Inputs[0]),
			Answer: &Answer{Status: http.StatusOK, Body: inputlog.RedactJSON([]byte(`{"target":"/v1/assets","api_key":"sk_live"}`))}, State: []string{}}},
		{seq: 2, want: Detail[[]string]{Step: inputlog.Summarize(rec.Inputs[1]), Input: inputlog.RedactInput(rec.Inputs[1]), State: []string{recfile.OpFlushDue}}},
	}
	for _, tt := range tests {
		got, err := st.Show(scratch{}, rec, tt.seq)
		if err != nil {
			t.Fatalf("step %d: %v", tt.seq, err)
		}
		if diff := cmp.Diff(&tt.want, got); diff != "" {
			t.Errorf("step %d (-want +got):\n%s", tt.seq, diff)
		}
	}
}
