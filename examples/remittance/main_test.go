package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/mwallet/mwallet-go/examples/internal/extest"
)

func TestRemittanceWithSimulator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{nil, []string{"100.00 GBP", "dispatching", "payout_date 2026-01-01", "not completion", "completed (version 3)", "the rest returned"}},
		{[]string{"-currency", "JPY", "-amount", "15000.00"}, []string{"15000 JPY", "completed"}},
	}
	for _, tt := range tests {
		t.Run(tt.want[0], func(t *testing.T) {
			t.Parallel()
			out := extest.Run(t, run, tt.args...)
			extest.Contains(t, out, append(tt.want, "ledger:   balanced")...)
		})
	}
}

// An amount that would need rounding is refused before anything is sent.
func TestRemittanceRefusesRounding(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out, []string{"-amount", "10.505"}); err == nil {
		t.Fatalf("run succeeded:\n%s", out.String())
	}
}

func TestRemittanceRealEnvironment(t *testing.T) {
	sim, base := extest.RealEnv(t)
	out := extest.Run(t, run, append(base, "-wait", "0s")...)
	extest.Contains(t, out, "create:   rmt_", "dispatching", "outcome:  still dispatching", "remittance.order.* webhooks")
	extest.NoSecrets(t, sim, out)
	if err := sim.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
