package webhooks_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/webhooks"
	"github.com/mwallet/mwallet-go/webhooks/dedupetest"
)

// fakeClock is a settable clock for tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestMemoryDeduperContract(t *testing.T) {
	t.Parallel()
	dedupetest.Run(t, func(*testing.T) webhooks.Deduper { return webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{}) })
}

func TestMemoryDeduperBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{Capacity: 3, TTL: 10 * time.Hour})
	now := testNow
	steps := []struct {
		do   string // "claim", "done", "advance"
		id   string
		d    time.Duration
		want webhooks.ClaimState
	}{
		{do: "done", id: "evt_a"},
		{do: "claim", id: "evt_a", want: webhooks.ClaimDone},
		{do: "done", id: "evt_b"},
		{do: "done", id: "evt_c"},
		{do: "done", id: "evt_d"},                                // capacity 3: evicts evt_a
		{do: "claim", id: "evt_a", want: webhooks.ClaimAcquired}, // evicts evt_b
		{do: "claim", id: "evt_c", want: webhooks.ClaimDone},
		{do: "advance", d: 9 * time.Hour},
		{do: "claim", id: "evt_c", want: webhooks.ClaimDone}, // the whole retry schedule (8.6 h) is covered
		{do: "advance", d: time.Hour},
		{do: "claim", id: "evt_c", want: webhooks.ClaimAcquired}, // expired after the TTL
	}
	for i, st := range steps {
		switch st.do {
		case "claim":
			c, err := d.Claim(ctx, st.id, now, time.Minute)
			if err != nil || c.State != st.want {
				t.Fatalf("step %d: Claim(%s) = %s, %v; want %s", i, st.id, c.State, err, st.want)
			}
		case "done":
			if err := d.Done(ctx, st.id, now); err != nil {
				t.Fatal(err)
			}
		case "advance":
			now = now.Add(st.d)
		}
		if n := d.Len(); n > 3 {
			t.Fatalf("step %d: Len() = %d, above the capacity 3", i, n)
		}
	}
}

func TestMemoryDeduperDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{})
	for i := 0; i < webhooks.DefaultDedupeCapacity+10; i++ {
		if err := d.Done(ctx, fmt.Sprintf("evt_%d", i), testNow); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.Len(); got != webhooks.DefaultDedupeCapacity {
		t.Errorf("Len() = %d, want %d", got, webhooks.DefaultDedupeCapacity)
	}
	// The next call after the TTL drops every expired id.
	if _, err := d.Claim(ctx, "evt_new", testNow.Add(webhooks.DefaultDedupeTTL), time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := d.Len(); got != 1 {
		t.Errorf("Len() after the TTL = %d, want 1", got)
	}
}
