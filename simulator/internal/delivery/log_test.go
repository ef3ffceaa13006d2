package delivery

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// fakeInputs keeps the inputs it is given, ending each at its count.
type fakeInputs struct {
	k       *kernel.Kernel
	in      []recfile.Input
	durable []int64
}

func (f *fakeInputs) Admit(_ *kernel.Tx, in *recfile.Input) (int64, error) {
	f.in = append(f.in, *in)
	return int64(len(f.in)), nil
}

func (f *fakeInputs) LockInput(in *recfile.Input) (*kernel.Tx, int64, error) {
	tx := f.k.BeginInput()
	end, err := f.Admit(tx, in)
	tx.Ordered()
	return tx, end, err
}

func (f *fakeInputs) Durable(end int64) error {
	f.durable = append(f.durable, end)
	return nil
}

// TestInputLog: each of the flush's inputs enters the input log as its
// recfile.Input, and Durable waits on the recorder.
func TestInputLog(t *testing.T) {
	t.Parallel()
	f := &fakeInputs{k: new(kernel.Kernel)}
	l := InputLog{Inputs: f, Rec: f}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tx := f.k.BeginInput()
	if _, err := l.AdmitDue(tx); err != nil {
		t.Fatal(err)
	}
	tx.Ordered()
	tx.End()
	for _, lock := range []func() (*kernel.Tx, int64, error){
		l.LockDue,
		func() (*kernel.Tx, int64, error) { return l.LockAttempt("whd_1", at, 500, "no", "500: no") },
		func() (*kernel.Tx, int64, error) { return l.LockAbort([]string{"whd_2", "whd_3"}) },
	} {
		tx, end, err := lock()
		if err != nil {
			t.Fatal(err)
		}
		tx.End()
		if err := l.Durable(end); err != nil {
			t.Fatal(err)
		}
	}
	want := []recfile.Input{
		{Op: recfile.OpFlushDue},
		{Op: recfile.OpFlushDue},
		{Op: recfile.OpAttempt, Delivery: "whd_1", At: at, StatusCode: 500, Response: "no", Error: "500: no"},
		{Op: recfile.OpFlushAbort, Deliveries: []string{"whd_2", "whd_3"}},
	}
	if diff := cmp.Diff(want, f.in); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{2, 3, 4}, f.durable); diff != "" {
		t.Errorf("durable (-want +got):\n%s", diff)
	}
}
