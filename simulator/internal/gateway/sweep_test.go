package gateway

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// expiredLog records what a sweep tells the lines, in order.
type expiredLog []string

func (l *expiredLog) Token(_ *kernel.Tx, v string) { *l = append(*l, "token "+v) }
func (l *expiredLog) Challenge(_ *kernel.Tx, id string, _ time.Time) {
	*l = append(*l, "challenge "+id)
}
func (l *expiredLog) QRMemo(_ *kernel.Tx, k string, _ time.Time) { *l = append(*l, "memo "+k) }
func (l *expiredLog) RemittanceKey(_ *kernel.Tx, k string, _ time.Time) {
	*l = append(*l, "remit "+k)
}

func TestSweep(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		at         time.Duration
		wantTold   []string
		wantNonces []string
	}{
		{name: "nothing due", at: 0, wantNonces: []string{"n1", "n2"}},
		{name: "first window", at: time.Minute, wantTold: []string{"token t1", "challenge c1", "memo m1", "remit r1"}, wantNonces: []string{"n2"}},
		{name: "every window", at: time.Hour, wantTold: []string{"token t1", "token t2", "challenge c1", "memo m1", "remit r1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var k kernel.Kernel
			g := NewState(&k, 1, nil, StoreCaps{}, 10)
			tx := k.Begin()
			defer tx.End()
			g.Nonces.Put(tx, "n1", t0.Add(time.Minute))
			g.NonceQ.Push(tx, "n1", t0.Add(time.Minute))
			g.Nonces.Put(tx, "n2", t0.Add(5*time.Minute))
			g.NonceQ.Push(tx, "n2", t0.Add(5*time.Minute))
			g.TokenQ.Push(tx, "t1", t0.Add(time.Minute))
			g.TokenQ.Push(tx, "t2", t0.Add(30*time.Minute))
			g.ChallengeQ.Push(tx, "c1", t0.Add(time.Minute))
			g.QRMemoQ.Push(tx, "m1", t0.Add(time.Minute))
			g.RemitIdemQ.Push(tx, "r1", t0.Add(time.Minute))
			var told expiredLog
			g.Sweep(tx, t0.Add(tt.at), &told)
			if diff := cmp.Diff(tt.wantTold, []string(told)); diff != "" {
				t.Errorf("told (-want +got):\n%s", diff)
			}
			var nonces []string
			for k := range g.Nonces.All(tx) {
				nonces = append(nonces, k)
			}
			if diff := cmp.Diff(tt.wantNonces, nonces); diff != "" {
				t.Errorf("nonces left (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNextRequestID(t *testing.T) {
	t.Parallel()
	var k kernel.Kernel
	a := NewState(&k, 7, nil, StoreCaps{}, 10)
	tx := k.Begin()
	defer tx.End()
	first := a.NextRequestID(tx)
	if got := a.RequestSeq.Get(tx); got != 1 {
		t.Fatalf("request seq %d after one id, want 1", got)
	}
	if second := a.NextRequestID(tx); second == first || second[:6] != "req_2_" {
		t.Errorf("second id %q after %q", second, first)
	}
}
