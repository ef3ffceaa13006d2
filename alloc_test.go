package mwallet

import (
	"bytes"
	"testing"
)

// Allocation budgets of the hot paths, pinned so that a regression fails CI
// without timing anything (speed itself is measured by the benchmarks).
// Signing a write allocates only the returned signature string.
func TestAllocationBudgets(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	s := newSigner(testSigningKey)
	body := bytes.Repeat([]byte("a"), 1024)
	big := bytes.Repeat([]byte("b"), 64<<10)
	tests := []struct {
		name   string
		budget float64
		fn     func()
	}{
		{"Sign 1 KiB", 1, func() {
			benchSink = s.sign("POST", "/v1/qrpay/payments", "1700000000", "3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f", body)
		}},
		{"Sign 64 KiB", 1, func() {
			benchSink = s.sign("POST", "/v1/remittances?x=1", "1700000000", "3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f", big)
		}},
		{"Sign no body", 1, func() {
			benchSink = s.sign("POST", "/v1/cards/crd_1/freeze", "1700000000", "3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f", nil)
		}},
	}
	for _, tt := range tests {
		tt.fn() // warm the buffer pool
		if got := testing.AllocsPerRun(200, tt.fn); got > tt.budget {
			t.Errorf("%s: %v allocations per call, budget %v", tt.name, got, tt.budget)
		}
	}
}
