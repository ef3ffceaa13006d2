package replay

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// scratch builds fakes and counts them.
type scratch struct{ builds int }

func (s *scratch) Build() (*fake, error) { s.builds++; return &fake{}, nil }
func (s *scratch) Target(f *fake) Target { return f }

// TestStepper holds the scratch replay: stepping forward runs only the
// inputs after the last step, stepping back or after a failed step
// replays from a new simulator, and the answer shown is the last input's.
func TestStepper(t *testing.T) {
	t.Parallel()
	inputs := []*recfile.Input{
		{Seq: 1, Op: recfile.OpHTTP, Method: "POST", Target: "/now", Body: []byte("a")},
		{Seq: 2, Op: recfile.OpFlushDue},
		{Seq: 3, Op: recfile.OpResume, Of: 9},
	}
	type shown struct {
		Builds int
		Log    []string
		Status int // -1: no answer
		Err    bool
	}
	steps := []struct {
		seq  int64
		want shown
	}{
		{seq: 0, want: shown{Builds: 1, Status: -1}},
		{seq: 1, want: shown{Builds: 1, Log: []string{"served /now a"}, Status: http.StatusCreated}},
		{seq: 2, want: shown{Builds: 1, Log: []string{"served /now a", "applied flush_due"}, Status: -1}},
		{seq: 2, want: shown{Builds: 1, Log: []string{"served /now a", "applied flush_due"}, Status: -1}},
		{seq: 1, want: shown{Builds: 2, Log: []string{"served /now a"}, Status: http.StatusCreated}},
		{seq: 3, want: shown{Builds: 2, Err: true}},
		{seq: 1, want: shown{Builds: 3, Log: []string{"served /now a"}, Status: http.StatusCreated}},
	}
	h := &scratch{}
	var st Stepper[*fake]
	defer st.Close()
	for i, step := range steps {
		var got shown
		err := st.Show(h, inputs, step.seq, func(f *fake, ans *Writer) {
			got.Log, got.Status = f.log, -1
			if ans != nil {
				got.Status = ans.Status
			}
		})
		got.Err, got.Builds = err != nil, h.builds
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("step %d (to %d): (-want +got):\n%s", i, step.seq, diff)
		}
	}
}
