package devtools

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestWindowSizes: the gateway's stores and caps, the tokens given, and
// each line's count land in their own field.
func TestWindowSizes(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	gw := gateway.NewState(k, 1, nil, gateway.StoreCaps{Nonces: 10, IdempotencyKeys: 20, StepUpChallenges: 30}, 5)
	tx := k.BeginSetup()
	defer tx.End()
	gw.Nonces.Put(tx, "n1", time.Unix(1, 0))
	gw.Nonces.Put(tx, "n2", time.Unix(2, 0))
	for _, key := range []string{"k1", "k2", "k3"} {
		gw.Idem.Start(tx, key, "POST /v1/deposits", [32]byte{}, time.Unix(3, 0))
	}
	count := func(n int) Counter { return func(*kernel.Tx) int { return n } }
	got := WindowSizes(tx, gw, 3, count(4), count(5), count(6))
	want := Windows{
		Nonces: 2, NoncesCap: 10, IdempotencyRecords: 3, IdempotencyRecordsCap: 20, StepUpChallengesCap: 30,
		Tokens: 3, Events: 4, StepUpChallenges: 5, QRQuoteMemo: 6,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("WindowSizes (-want +got):\n%s", diff)
	}
}
