package windows

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestQuota: without a quota every write passes uncounted; with n a
// minute the n+1th write inside the minute is refused, uncounted, with the
// seconds until the oldest counted write leaves; lowering the quota keeps
// the newest writes, removing it forgets them.
func TestQuota(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	q := NewQuota(k)
	tx := k.BeginSetup()
	defer tx.End()
	type take struct {
		Wait int64
		OK   bool
		Kept int
	}
	at := func(d time.Duration) take {
		wait, ok := q.Take(tx, t0.Add(d))
		return take{wait, ok, len(q.Kept(tx))}
	}
	if got := at(0); got != (take{0, true, 0}) || q.Kept(tx) != nil {
		t.Fatalf("no quota: %+v, kept %v", got, q.Kept(tx))
	}
	q.Set(tx, 2)
	got := []take{at(0), at(10 * time.Second), at(10500 * time.Millisecond), at(59 * time.Second), at(time.Minute), at(time.Minute), at(70 * time.Second)}
	want := []take{{0, true, 1}, {0, true, 2}, {50, false, 2}, {1, false, 2}, {0, true, 2}, {10, false, 2}, {0, true, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("takes (-want +got):\n%s", diff)
	}
	q.Set(tx, 1)
	if kept := q.Kept(tx); q.Limit(tx) != 1 || len(kept) != 1 || !kept[0].Equal(t0.Add(70*time.Second)) {
		t.Errorf("lowered to 1: limit %d, kept %v", q.Limit(tx), kept)
	}
	q.Set(tx, 0)
	if kept := q.Kept(tx); q.Limit(tx) != 0 || kept != nil {
		t.Errorf("removed: limit %d, kept %v", q.Limit(tx), kept)
	}
}
