package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/startup"
	"testing"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// TestLineCollectionsAreTheOutcomeCollections: the outcome collections the
// lines put objects in flight under (tx.InFlight) are the public ones the
// outcome modes are set on, so a mode set with Outcomes.Set governs them.
func TestLineCollectionsAreTheOutcomeCollections(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		line   string
		public OutcomeCollection
	}{
		{qrpay.Collection, CollectionQROrders},
		{remittances.Collection, CollectionRemittances},
		{cardline.CollectionApplications, CollectionCardApplications},
		{cardline.CollectionClosures, CollectionCardClosures},
		{cardline.CollectionTopups, CollectionCardTopups},
	} {
		if OutcomeCollection(tt.line) != tt.public {
			t.Errorf("line collection %q, public %q", tt.line, tt.public)
		}
	}
}

// TestLineExpiryWindowsAreTheGatewayQueues: every expiry window a line
// schedules on (tx.ExpireAt) is a queue of the gateway that the sweep
// drains into that line, and no other name is one.
func TestLineExpiryWindowsAreTheGatewayQueues(t *testing.T) {
	t.Parallel()
	sim := mustNewHandler()
	defer sim.Close()
	ws := sim.st.gw
	for _, tt := range []struct {
		window string
		q      windows.ExpiryQueue
		since  int
	}{
		{stepup.ExpiryWindow, ws.ChallengeQ, 0},
		{qrpay.MemoWindow, ws.QRMemoQ, 0},
		{remittances.IdempotencyWindow, ws.RemitIdemQ, startup.SweepRules},
	} {
		q, since, ok := expiryWindow(ws, tt.window)
		if !ok || q != tt.q || since != tt.since {
			t.Errorf("window %q: %v, since rules %d: not its gateway queue since rules %d", tt.window, ok, since, tt.since)
		}
	}
	if _, _, ok := expiryWindow(ws, "cards/nothing"); ok {
		t.Error("an unknown window has a queue")
	}
}
