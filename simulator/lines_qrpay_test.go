package simulator

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
)

// TestQRScenariosAreTheLines: the public QRScenario constants are exactly
// the scenarios the QR line knows, so SetScenario and the control API
// accept every documented one and nothing else.
func TestQRScenariosAreTheLines(t *testing.T) {
	t.Parallel()
	public := []string{QRScenarioPayerFields, QRScenarioBlocked, QRScenarioCorridor, QRScenarioRange,
		QRScenarioUpstreamError, QRScenarioReject, QRScenarioTimeout}
	sort.Strings(public)
	if diff := cmp.Diff(public, qrpay.Scenarios()); diff != "" {
		t.Errorf("QRScenario constants vs the line's scenarios (-public +line):\n%s", diff)
	}
	if diff := cmp.Diff(public, domains["qr_scenario"].Choices(nil)); diff != "" {
		t.Errorf("the QR scenario domain (-public +got):\n%s", diff)
	}
}
