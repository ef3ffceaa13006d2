package outcomes

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestTimersFireInTimeOrder: objects put in flight under After and
// Immediate modes succeed in the order their timers fall due (ties in the
// order they were set), each once, at its own instant; a settled object
// and a Manual one never do.
func TestTimersFireInTimeOrder(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := Clock{Now: func() time.Time { return now }, Set: func(at time.Time) {
		if at.After(now) {
			now = at
		}
	}}
	k := new(kernel.Kernel)
	tm := New(clock)
	tm.Register(k)
	type ran struct {
		ID string
		At time.Time
	}
	var got []ran
	tm.On("things", func(_ *kernel.Tx, id string) error { got = append(got, ran{id, now}); return nil })
	tx := k.BeginSetup()
	defer tx.End()
	tm.SetCollection(tx, "things", Mode{Kind: After, After: time.Minute})
	tm.SetObject(tx, "fast", Mode{Kind: Immediate})
	tm.SetObject(tx, "held", Mode{Kind: Manual})
	for _, id := range []string{"a", "b", "fast", "held", "gone"} {
		tm.InFlight(tx, "things", id)
	}
	tm.Settled(tx, "gone")
	if n := tm.Pending(tx); n != 4 {
		t.Errorf("%d timers pending, want 4 (a, b, fast, gone)", n)
	}
	start := now
	tm.Advance(tx, 2*time.Minute)
	want := []ran{{"fast", start}, {"a", start.Add(time.Minute)}, {"b", start.Add(time.Minute)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("successes (-want +got):\n%s", diff)
	}
	if !tm.IsInFlight(tx, "held") || tm.IsInFlight(tx, "a") {
		t.Errorf("in flight after the advance: held %v, a %v; want true, false", tm.IsInFlight(tx, "held"), tm.IsInFlight(tx, "a"))
	}
	if tm.HasDue(tx, now.Add(24*time.Hour)) || tm.Pending(tx) != 0 {
		t.Errorf("timers left: %d", tm.Pending(tx))
	}
	if !now.Equal(start.Add(2 * time.Minute)) {
		t.Errorf("clock at %s, want %s", now, start.Add(2*time.Minute))
	}
	if diff := cmp.Diff([]string{"things"}, tm.Collections()); diff != "" {
		t.Errorf("Collections (-want +got):\n%s", diff)
	}
}
