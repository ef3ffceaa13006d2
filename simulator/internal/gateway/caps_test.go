package gateway

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

func TestStoreCapsWithDefaults(t *testing.T) {
	t.Parallel()
	def := StoreCaps{10, 20, 30}
	tests := []struct{ in, want StoreCaps }{
		{StoreCaps{}, def},
		{StoreCaps{Nonces: 5, IdempotencyKeys: -1, StepUpChallenges: 7}, StoreCaps{5, 20, 7}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.in.WithDefaults(def)); diff != "" {
			t.Errorf("WithDefaults(%+v) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestStoreFull(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	q := windows.NewExpiryQueue(k, "test.expiry")
	tx := k.BeginSetup()
	defer tx.End()
	now := time.Unix(1_700_000_000, 0)
	type answer struct {
		Code, Message, RetryAfter string
		Transient                 bool
	}
	check := func(name string, which StoreCap, want answer) {
		t.Helper()
		ae := StoreFull(tx, which, 3, q, now)
		got := answer{ae.Code, ae.Message, ae.Header["Retry-After"], ae.Transient}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	check("empty queue", CapNonces, answer{"service_unavailable",
		"the simulator's nonce store is full (its cap of 3 nonces; raise it with mwallet-sim serve -max-nonces or simulator.WithMaxNonces); nothing was executed: retry after 1 seconds", "1", true})
	q.Push(tx, "a", now.Add(90*time.Second+time.Millisecond))
	check("oldest leaves in 90.001 s", CapIdempotencyKeys, answer{"service_unavailable",
		"the simulator's idempotency store is full (its cap of 3 idempotency keys; raise it with mwallet-sim serve -max-idempotency-keys or simulator.WithMaxIdempotencyKeys); nothing was executed: retry after 91 seconds", "91", true})
}

func TestChallengesRoom(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	g := NewState(k, 1, nil, StoreCaps{StepUpChallenges: 2}, 10)
	tx := k.BeginSetup()
	defer tx.End()
	now := time.Unix(1_700_000_000, 0)
	tests := []struct {
		held int
		want string // the refusal's code, empty when there is room
	}{
		{0, ""},
		{1, ""},
		{2, "service_unavailable"},
		{3, "service_unavailable"},
	}
	for _, tt := range tests {
		got := ""
		if err := (Challenges{State: g}).Room(tx, tt.held, now); err != nil {
			got = err.(*api.Error).Code
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Room with %d held (-want +got):\n%s", tt.held, diff)
		}
	}
}
