package webhooks_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/webhooks"
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

func TestMemoryDeduper(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &fakeClock{t: testNow}
	d := webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{Capacity: 3, TTL: 10 * time.Hour, Now: clk.Now})
	steps := []struct {
		do   string // "seen", "forget", "advance"
		id   string
		d    time.Duration
		want bool
	}{
		{do: "seen", id: "evt_a", want: true},
		{do: "seen", id: "evt_a", want: false},
		{do: "forget", id: "evt_a"},
		{do: "seen", id: "evt_a", want: true}, // processed again after a failure
		{do: "seen", id: "evt_b", want: true},
		{do: "seen", id: "evt_c", want: true},
		{do: "seen", id: "evt_d", want: true}, // capacity 3: evicts evt_a
		{do: "seen", id: "evt_a", want: true}, // evicts evt_b
		{do: "seen", id: "evt_c", want: false},
		{do: "advance", d: 9 * time.Hour},
		{do: "seen", id: "evt_c", want: false}, // the whole retry schedule (8.6 h) is covered
		{do: "advance", d: time.Hour},
		{do: "seen", id: "evt_c", want: true}, // expired after the TTL
		{do: "forget", id: "never-seen"},
	}
	for i, st := range steps {
		switch st.do {
		case "seen":
			got, err := d.FirstSeen(ctx, st.id)
			if err != nil || got != st.want {
				t.Fatalf("step %d: FirstSeen(%s) = %v, %v; want %v", i, st.id, got, err, st.want)
			}
		case "forget":
			if err := d.Forget(ctx, st.id); err != nil {
				t.Fatalf("step %d: Forget: %v", i, err)
			}
		case "advance":
			clk.Advance(st.d)
		}
	}
	if n := d.Len(); n > 3 {
		t.Errorf("Len() = %d, above the capacity 3", n)
	}
}

func TestMemoryDeduperDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &fakeClock{t: testNow}
	d := webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{Now: clk.Now})
	for i := 0; i < webhooks.DefaultDedupeCapacity+10; i++ {
		if _, err := d.FirstSeen(ctx, fmt.Sprintf("evt_%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.Len(); got != webhooks.DefaultDedupeCapacity {
		t.Errorf("Len() = %d, want %d", got, webhooks.DefaultDedupeCapacity)
	}
	clk.Advance(webhooks.DefaultDedupeTTL)
	if got := d.Len(); got != 0 {
		t.Errorf("Len() after the TTL = %d, want 0", got)
	}
}

func TestMemoryDeduperConcurrent(t *testing.T) {
	t.Parallel()
	d := webhooks.NewMemoryDeduper(webhooks.MemoryDeduperConfig{})
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := d.FirstSeen(context.Background(), "evt_same")
			if err != nil {
				t.Error(err)
			}
			if ok {
				firsts.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := firsts.Load(); got != 1 {
		t.Errorf("%d concurrent FirstSeen calls returned true, want exactly 1", got)
	}
}
