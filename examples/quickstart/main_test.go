package main

import (
	"os"
	"path/filepath"
	"strings"
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

// The README shows this program's output; each of its lines, where "…"
// stands for an elided part, matches the program's line.
func TestREADMEShowsThisOutput(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(md), "```text\nmwallet quickstart:")
	if !ok {
		t.Fatal("the README shows no quickstart output")
	}
	block, _, _ = strings.Cut("mwallet quickstart:"+block, "```")
	want := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	got := strings.Split(strings.TrimSuffix(extest.Run(t, run), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("the README shows %d lines, the program prints %d", len(want), len(got))
	}
	for i, w := range want {
		rest := got[i]
		for _, frag := range strings.Split(w, "…") {
			j := strings.Index(rest, frag)
			if j < 0 || rest == got[i] && j != 0 { // the first fragment starts the line
				t.Errorf("line %d: README shows %q, the program prints %q", i+1, w, got[i])
				break
			}
			rest = rest[j+len(frag):]
		}
	}
}
