package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/examples/internal/extest"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

func TestQRPayWithSimulator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{nil, "completed: the acquiring merchant is paid"},
		{[]string{"-outcome", "fail"}, "failed: the full debit was returned"},
		{[]string{"-outcome", "timeout"}, "still processing after 2m0s"},
		{[]string{"-asset", "USDC"}, "USDC held"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			out := extest.Run(t, run, tt.args...)
			extest.Contains(t, out, "decode:  pay 250.00 THB to BAAN THAI KITCHEN", "step-up required", "processing", tt.want, "ledger:  balanced")
		})
	}
}

func TestQRPayRejectsBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-challenge", "c1"}, // without its idempotency key
		{"-outcome", "maybe"},
		{"-no-such-flag"},
	} {
		if err := run(context.Background(), &discard{}, args); err == nil {
			t.Errorf("run %q succeeded, want an error", args)
		}
	}
}

// Against a real environment the example stops at step-up and prints the
// resend command; once the end user completed the screen, the resend pays.
// It never touches a simulator control.
func TestQRPayRealEnvironment(t *testing.T) {
	sim, base := extest.RealEnv(t)
	code := sampleqr.PromptPay

	out := extest.Run(t, run, append(base, "-code", code)...)
	extest.Contains(t, out, "step-up required", "next:    the end user completes", "-challenge ")
	m := regexp.MustCompile(`-challenge (\S+) -idempotency-key (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no resend command in:\n%s", out)
	}

	if err := sim.StepUp.Complete(m[1]); err != nil { // the end user, not the example
		t.Fatal(err)
	}
	if err := sim.Outcomes.Set(simulator.CollectionQROrders, simulator.Immediate()); err != nil { // the upstream answers at once
		t.Fatal(err)
	}
	out2 := extest.Run(t, run, append(base, "-code", code, "-challenge", m[1], "-idempotency-key", m[2], "-wait", time.Minute.String())...)
	extest.Contains(t, out2, "pay:     order qrp_", "outcome: ", "completed")
	extest.NoSecrets(t, sim, out+out2)
	if err := sim.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
