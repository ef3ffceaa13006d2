package windows

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// newTestQueue is a queue on a kernel of its own, with the transaction its
// test writes in.
func newTestQueue(t *testing.T) (*kernel.Tx, ExpiryQueue) {
	t.Helper()
	k := new(kernel.Kernel)
	q := NewExpiryQueue(k, "test.expiry")
	tx := k.BeginSetup()
	t.Cleanup(tx.End)
	return tx, q
}

// TestExpiryQueueOrder: entries leave in the order they were pushed, only
// once their instant has come, and Peek shows the oldest without taking
// it.
func TestExpiryQueueOrder(t *testing.T) {
	t.Parallel()
	tx, q := newTestQueue(t)
	if _, ok := q.Peek(tx); ok {
		t.Fatal("an empty queue has an entry")
	}
	for i := range 3 {
		q.Push(tx, fmt.Sprint("k", i), t0.Add(time.Duration(i)*time.Minute))
	}
	type step struct {
		Key string
		OK  bool
		Len int
	}
	var got []step
	for _, now := range []time.Time{t0.Add(-time.Nanosecond), t0, t0.Add(90 * time.Second), t0.Add(90 * time.Second), t0.Add(time.Hour)} {
		it, ok := q.Pop(tx, now)
		got = append(got, step{it.Key, ok, q.Len(tx)})
	}
	want := []step{{"", false, 3}, {"k0", true, 2}, {"k1", true, 1}, {"", false, 1}, {"k2", true, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pops (-want +got):\n%s", diff)
	}
}

// TestExpiryQueueKept: the image of earlier builds' slice keeps the popped
// entries as zero entries before head until more than 1024 of them, and at
// least half of the slice, were popped; a queue never used has no slice.
func TestExpiryQueueKept(t *testing.T) {
	t.Parallel()
	tx, q := newTestQueue(t)
	if items, head, used := q.Kept(tx); items != nil || head != 0 || used {
		t.Fatalf("unused queue: %v %d %v", items, head, used)
	}
	for i := range 3000 {
		q.Push(tx, fmt.Sprint(i), t0.Add(time.Duration(i)*time.Second))
	}
	for _, tc := range []struct {
		pops, wantLen, wantHead int
	}{
		{2, 3000, 2},
		{1023, 3000, 1025}, // 1025 popped of 3000: kept
		{500, 1500, 25},    // 1525 popped: compacted at the 1500th pop, half the slice
	} {
		for range tc.pops {
			if _, ok := q.Pop(tx, t0.Add(time.Hour)); !ok {
				t.Fatal("nothing to pop")
			}
		}
		items, head, used := q.Kept(tx)
		if !used || len(items) != tc.wantLen || head != tc.wantHead {
			t.Fatalf("after %d more pops: %d items, head %d (used %v); want %d, %d", tc.pops, len(items), head, used, tc.wantLen, tc.wantHead)
		}
		if head > 0 && items[head-1] != (Expiring{}) {
			t.Errorf("a popped entry is kept: %+v", items[head-1])
		}
		if items[head].Key != fmt.Sprint(3000-q.Len(tx)) {
			t.Errorf("head entry %+v, want key %d", items[head], 3000-q.Len(tx))
		}
	}
}
