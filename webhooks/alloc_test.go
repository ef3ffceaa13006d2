package webhooks_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/webhooks"
)

// Allocation budgets of verification, pinned so that a regression fails CI
// without timing anything: verifying a valid signature allocates nothing,
// whatever the body size, through Verify and through the verifier Handler keeps.
func TestAllocationBudgets(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	clock := webhooks.WithClock(func() time.Time { return testNow })
	v := webhooks.NewTestVerifier(testSecret, clock)
	var tests []struct {
		name   string
		budget float64
		fn     func() error
	}
	for _, n := range []int{0, 1 << 10, 64 << 10} {
		body := benchBody(n)
		h := header(testSecret, testNow.Unix(), body)
		tests = append(tests, []struct {
			name   string
			budget float64
			fn     func() error
		}{
			{fmt.Sprintf("Verify %d bytes", n), 0, func() error { return webhooks.Verify(body, h, testSecret, clock) }},
			{fmt.Sprintf("Handler's verifier %d bytes", n), 0, func() error { return v.Verify(body, h) }},
		}...)
	}
	for _, tt := range tests {
		if err := tt.fn(); err != nil { // also warms the keyed HMAC pool
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := testing.AllocsPerRun(200, func() { _ = tt.fn() }); got > tt.budget {
			t.Errorf("%s: %v allocations per call, budget %v", tt.name, got, tt.budget)
		}
	}
}
