package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/examples/internal/extest"
	"github.com/mwallet/mwallet-go/money"
)

func TestWebhookReceiverWithSimulator(t *testing.T) {
	t.Parallel()
	out := extest.Run(t, run)
	extest.Contains(t, out,
		"endpoint: whe_",
		"redeliver: whd_", "member.created (no_subscriber) queued: true",
		"event:    member.created v0 -> mem_", "(member-1) active",
		"event:    deposit.credited v0 -> no single-item endpoint",
		"event:    remittance.order.completed v3 -> rmt_", "completed",
		"remittance.order.action_required needs_reconfirm v1: older than what we have, dropped",
		"flush:    4 attempted, 4 acknowledged, 0 failed")
}

// Against a real environment the receiver listens until interrupted; the
// service (here the simulator) reaches it over HTTP, signed with the webhook
// secret taken from the environment.
func TestWebhookReceiverRealEnvironment(t *testing.T) {
	sim, base := extest.RealEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	out := extest.NewOutput()
	done := make(chan error, 1)
	go func() { done <- run(runCtx, out, append(base, "-listen", "127.0.0.1:0")) }()

	line := out.WaitFor(ctx, t, "listening on ")
	url := strings.Fields(strings.TrimPrefix(line, "listening on "))[0]
	url = strings.TrimSuffix(url, ";")
	if _, _, err := sim.Webhooks.AddEndpoint(url, "deposit.credited"); err != nil {
		t.Fatal(err)
	}
	client := sim.Client()
	if _, err := client.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "rt-1"}); err != nil {
		t.Fatal(err)
	}
	if res, err := sim.Webhooks.Flush(ctx); err != nil || res.Succeeded != 1 {
		t.Fatalf("flush: %+v %v\noutput:\n%s", res, err, out.String())
	}
	out.WaitFor(ctx, t, "event:    deposit.credited")

	stop()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	extest.Contains(t, out.String(), "stopped")
	extest.NoSecrets(t, sim, out.String())
}
