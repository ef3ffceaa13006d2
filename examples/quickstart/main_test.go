package main

import (
	"testing"

	"github.com/mwallet/mwallet-go/examples/internal/extest"
)

// The quickstart runs every step to success and narrates them in order.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	out := extest.Run(t, run)
	extest.Contains(t, out,
		" 1. token", " 2. assets", "USDT (ledger_scale 6)",
		" 3. deposit", "credited 100.000000 USDT",
		" 4. qr pay", "step-up required", "processing",
		" 5. qr outcome", "completed",
		" 6. card", "issued", "active",
		" 7. card top-up", "balance 25.00 USD",
		" 8. remittance", "completed",
		" 9. webhooks", "deposit.credited", "qrpay.order.completed", "card.topup.credited", "remittance.order.completed",
		"10. ledger", "balanced", "1 token exchange")
}
