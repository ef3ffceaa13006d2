package simulator

import (
	"testing"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
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
