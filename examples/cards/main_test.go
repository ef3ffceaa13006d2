package main

import (
	"regexp"
	"testing"

	"github.com/mwallet/mwallet-go/examples/internal/extest"
)

func TestCardsWithSimulator(t *testing.T) {
	t.Parallel()
	out := extest.Run(t, run)
	extest.Contains(t, out,
		"invoice:     cpd_virtual_std issue fee 5.000000 USDT",
		"application: cap_", "submitted",
		"card:        crd_", "active, balance 0.00 USD",
		"top-up:      ctp_", "25.000000 USDT, processing",
		"credited, balance 25.00 USD",
		"transaction: refund Coffee Corner 2.50 USD",
		"transaction: auth Coffee Corner -12.50 USD",
		"ledger:      balanced")
}

// Against a real environment nothing is approved by the example: it says
// what to wait for, and a rerun with the same client key finds the same
// application instead of issuing a second card.
func TestCardsRealEnvironment(t *testing.T) {
	sim, base := extest.RealEnv(t)

	out := extest.Run(t, run, append(base, "-wait", "0s")...)
	extest.Contains(t, out, "application: cap_", "existing: false", "still submitted", "-client-key ")
	m := regexp.MustCompile(`application: (cap_\S+) .*client key (\S+),`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no application in:\n%s", out)
	}
	if err := sim.Cards.ApproveApplication(m[1]); err != nil { // the issuer
		t.Fatal(err)
	}

	out2 := extest.Run(t, run, append(base, "-wait", "0s", "-client-key", m[2])...)
	extest.Contains(t, out2, "application: "+m[1], "existing: true", "card:        crd_", "processing",
		"grows when card.topup.credited arrives")
	extest.NoSecrets(t, sim, out+out2)
	if err := sim.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
