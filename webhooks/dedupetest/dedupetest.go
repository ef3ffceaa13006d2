// Package dedupetest checks that a webhooks.Deduper keeps the contract the
// webhook Handler relies on: atomic claims with a lease on the caller's
// clock, release by the claim's token only, done ids answered as done, and
// lapsed claims taken over. The SDK runs it on MemoryDeduper and on the
// Redis and SQL stores; run it on your own implementation:
//
//	func TestMyDeduper(t *testing.T) {
//		dedupetest.Run(t, func(t *testing.T) webhooks.Deduper { return newMyDeduper(t) })
//	}
package dedupetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/webhooks"
)

// Run checks the Deduper contract on deduper instances made by newDeduper,
// one per subtest. Times are whole milliseconds from 2026-01-01, so a store
// that keeps milliseconds loses nothing; the lease is 5 minutes.
func Run(t *testing.T, newDeduper func(t *testing.T) webhooks.Deduper) {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const lease = 5 * time.Minute
	ctx := context.Background()

	claim := func(t *testing.T, d webhooks.Deduper, id string, now time.Time, want webhooks.ClaimState, wantUntil time.Time) webhooks.Claim {
		t.Helper()
		c, err := d.Claim(ctx, id, now, lease)
		if err != nil {
			t.Fatalf("Claim(%s, %s): %v", id, now.Format(time.RFC3339), err)
		}
		if c.State != want {
			t.Fatalf("Claim(%s, %s) = %s, want %s", id, now.Format(time.RFC3339), c.State, want)
		}
		if want != webhooks.ClaimDone && !c.Until.Equal(wantUntil) {
			t.Fatalf("Claim(%s) until %s, want %s", id, c.Until.UTC().Format(time.RFC3339Nano), wantUntil.Format(time.RFC3339Nano))
		}
		if (want == webhooks.ClaimAcquired) != (c.Token != "") {
			t.Fatalf("Claim(%s) = %s with token %q", id, c.State, c.Token)
		}
		return c
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	t.Run("claim, held, release, claim again", func(t *testing.T) {
		t.Parallel()
		d := newDeduper(t)
		c1 := claim(t, d, "evt_a", t0, webhooks.ClaimAcquired, t0.Add(lease))
		claim(t, d, "evt_a", t0.Add(time.Minute), webhooks.ClaimHeld, t0.Add(lease))
		must(t, d.Release(ctx, "evt_a", "not-the-token"))
		claim(t, d, "evt_a", t0.Add(time.Minute), webhooks.ClaimHeld, t0.Add(lease))
		must(t, d.Release(ctx, "evt_a", c1.Token))
		c2 := claim(t, d, "evt_a", t0.Add(time.Minute), webhooks.ClaimAcquired, t0.Add(time.Minute+lease))
		if c2.Token == c1.Token {
			t.Fatal("a new claim reuses the released claim's token")
		}
		claim(t, d, "evt_b", t0, webhooks.ClaimAcquired, t0.Add(lease)) // ids are independent
	})

	t.Run("a lapsed lease is taken over on the caller's clock", func(t *testing.T) {
		t.Parallel()
		d := newDeduper(t)
		old := claim(t, d, "evt_l", t0, webhooks.ClaimAcquired, t0.Add(lease))
		claim(t, d, "evt_l", t0.Add(lease-time.Millisecond), webhooks.ClaimHeld, t0.Add(lease))
		taken := claim(t, d, "evt_l", t0.Add(lease), webhooks.ClaimAcquired, t0.Add(2*lease))
		// The first holder comes back and fails: its release must not drop
		// the new holder's claim.
		must(t, d.Release(ctx, "evt_l", old.Token))
		claim(t, d, "evt_l", t0.Add(lease+time.Second), webhooks.ClaimHeld, t0.Add(2*lease))
		must(t, d.Done(ctx, "evt_l", t0.Add(lease+2*time.Second)))
		claim(t, d, "evt_l", t0.Add(3*lease), webhooks.ClaimDone, time.Time{})
		must(t, d.Release(ctx, "evt_l", taken.Token)) // after Done: changes nothing
		claim(t, d, "evt_l", t0.Add(3*lease), webhooks.ClaimDone, time.Time{})
	})

	t.Run("done ids are duplicates", func(t *testing.T) {
		t.Parallel()
		d := newDeduper(t)
		claim(t, d, "evt_d", t0, webhooks.ClaimAcquired, t0.Add(lease))
		must(t, d.Done(ctx, "evt_d", t0.Add(time.Second)))
		claim(t, d, "evt_d", t0.Add(time.Second), webhooks.ClaimDone, time.Time{})
		claim(t, d, "evt_d", t0.Add(8*time.Hour+40*time.Minute), webhooks.ClaimDone, time.Time{}) // the whole retry schedule
		must(t, d.Done(ctx, "evt_u", t0))                                                         // done without a claim
		claim(t, d, "evt_u", t0, webhooks.ClaimDone, time.Time{})
		must(t, d.Release(ctx, "evt_never", "token")) // unknown id
		claim(t, d, "evt_never", t0, webhooks.ClaimAcquired, t0.Add(lease))
	})

	t.Run("concurrent claims: exactly one acquires", func(t *testing.T) {
		t.Parallel()
		d := newDeduper(t)
		const n = 16
		var wg sync.WaitGroup
		states := make([]webhooks.ClaimState, n)
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := d.Claim(ctx, "evt_c", t0, lease)
				states[i], errs[i] = c.State, err
			}()
		}
		wg.Wait()
		count := map[webhooks.ClaimState]int{}
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("claim %d: %v", i, errs[i])
			}
			count[states[i]]++
		}
		if count[webhooks.ClaimAcquired] != 1 || count[webhooks.ClaimHeld] != n-1 {
			t.Fatalf("claims: %v, want 1 acquired and %d held", fmt.Sprint(count), n-1)
		}
	})
}
