package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"

	"fmt"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestKeyScopes: a Key's granted and approved scopes are those
// internal/gateway's rule reads (its TestScopes holds the rule itself).
func TestKeyScopes(t *testing.T) {
	t.Parallel()
	k := &apiKey{
		Scopes:   kernel.SortedSet(map[string]bool{"cards:write": true, "deposits:write": true, "cards:secure": true}),
		Approved: kernel.SortedSet(map[string]bool{"cards:secure": true}),
	}
	for scope, want := range map[string]bool{"cards:read": true, "cards:secure": true, "deposits:write": false, "members:read": false} {
		if got := k.key().Allows(scope); got != want {
			t.Errorf("allows(%q) = %v, want %v", scope, got, want)
		}
	}
}

func TestUUIDShaped(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{
		"123e4567-e89b-12d3-a456-426614174000":   true,
		"123E4567-E89B-12D3-A456-426614174000":   true,
		"123e4567e89b12d3a456426614174000":       false,
		"123e4567-e89b-12d3-a456-42661417400":    false,
		"123e4567-e89b-12d3-a456-4266141740000":  false,
		"123e4567-e89b-12d3-a456_426614174000":   false,
		"z23e4567-e89b-12d3-a456-426614174000":   false,
		"{123e4567-e89b-12d3-a456-426614174000}": false,
	} {
		if got := api.UUIDShaped(v); got != want {
			t.Errorf("api.UUIDShaped(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestWindowsStayBounded puts many window entries into the gateway state and
// checks that expired entries are deleted by the clock and that live ones
// are never deleted, however many there are: the bounds are kept by
// refusing new entries (TestFullStoresFailClosed), not by forgetting.
func TestWindowsStayBounded(t *testing.T) {
	t.Parallel()
	s := mustNewHandler()
	now := s.st.clock.Now()
	tx := s.k.BeginSetup()
	defer tx.End()
	s.st.gw.Caps.Set(tx, storeCaps{Nonces: 100, IdempotencyKeys: 100, StepUpChallenges: 100}) // the sweep ignores the caps
	for i := 0; i < 5000; i++ {
		k := fmt.Sprint(i)
		s.st.gw.Nonces.Put(tx, k, now.Add(pipeline.NonceWindow))
		s.st.gw.NonceQ.Push(tx, k, now.Add(pipeline.NonceWindow))
		s.st.gw.Idem.Records.Put(tx, k, idempotency.Record{ExpiresAt: now.Add(idempotency.Window)})
		s.st.gw.Idem.Queue.Push(tx, k, now.Add(idempotency.Window))
		s.st.gw.Sweep(tx, now, s.wiring.gw.host)
	}
	if s.st.gw.Nonces.Len(tx) != 5000 || s.st.gw.Idem.Len(tx) != 5000 {
		t.Fatalf("live entries swept: %d nonces, %d records", s.st.gw.Nonces.Len(tx), s.st.gw.Idem.Len(tx))
	}
	s.wiring.timers.Advance(tx, pipeline.NonceWindow-time.Nanosecond)
	s.st.gw.Sweep(tx, s.st.clock.Now(), s.wiring.gw.host)
	if s.st.gw.Nonces.Len(tx) != 5000 {
		t.Fatalf("a nonce was forgotten inside its window: %d left", s.st.gw.Nonces.Len(tx))
	}
	s.wiring.timers.Advance(tx, time.Nanosecond)
	s.st.gw.Sweep(tx, s.st.clock.Now(), s.wiring.gw.host)
	if s.st.gw.Nonces.Len(tx) != 0 || s.st.gw.NonceQ.Len(tx) != 0 || s.st.gw.Idem.Len(tx) != 5000 {
		t.Fatalf("after 5 minutes: %d nonces (%d queued), %d records", s.st.gw.Nonces.Len(tx), s.st.gw.NonceQ.Len(tx), s.st.gw.Idem.Len(tx))
	}
	s.wiring.timers.Advance(tx, idempotency.Window)
	s.st.gw.Sweep(tx, s.st.clock.Now(), s.wiring.gw.host)
	if s.st.gw.Idem.Len(tx) != 0 || s.st.gw.Idem.Queue.Len(tx) != 0 {
		t.Fatalf("after 24 hours: %d records (%d queued)", s.st.gw.Idem.Len(tx), s.st.gw.Idem.Queue.Len(tx))
	}
}
