package gatewayhost

import (
	"testing"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/startup"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// TestExpiryWindow: every expiry window a line schedules on (tx.ExpireAt)
// is a queue of the gateway that the sweep drains into that line, since
// the rules it came with, and no other name is one.
func TestExpiryWindow(t *testing.T) {
	t.Parallel()
	var k kernel.Kernel
	ws := gateway.NewState(&k, 1, nil, gateway.StoreCaps{}, 10)
	for _, tt := range []struct {
		window string
		q      windows.ExpiryQueue
		since  int
	}{
		{stepup.ExpiryWindow, ws.ChallengeQ, 0},
		{qrpay.MemoWindow, ws.QRMemoQ, 0},
		{remittances.IdempotencyWindow, ws.RemitIdemQ, startup.SweepRules},
	} {
		q, since, ok := ExpiryWindow(ws, tt.window)
		if !ok || q != tt.q || since != tt.since {
			t.Errorf("window %q: %v, since rules %d: not its gateway queue since rules %d", tt.window, ok, since, tt.since)
		}
	}
	if _, _, ok := ExpiryWindow(ws, "cards/nothing"); ok {
		t.Error("an unknown window has a queue")
	}
}
