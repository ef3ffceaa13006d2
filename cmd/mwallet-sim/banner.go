package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
)

// followWallClock moves the simulator clock up to the wall clock every half
// second, running whatever falls due on the way, so that outcomes and
// webhook retries fall due while no request arrives. Each input moves the
// clock itself when it runs (simulator.WithWallClock): this does not keep
// the Date header in step under load, it only covers the idle time.
func followWallClock(ctx context.Context, sim *simulator.Simulator) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if d := now.Sub(sim.Clock.Now()); d > 0 {
				sim.Clock.Advance(d)
			}
		}
	}
}

// storeFill is how full each window store is, count and cap.
func storeFill(st simulator.Stats) string {
	return fmt.Sprintf("nonces %d/%d, idempotency keys %d/%d, step-up challenges %d/%d",
		st.Nonces, st.NoncesCap, st.IdempotencyRecords, st.IdempotencyRecordsCap, st.StepUpChallenges, st.StepUpChallengesCap)
}

// printBanner prints the base URL and the credentials. They are the
// simulator's own test values; printing them is the point.
func printBanner(w io.Writer, base string, c simulator.Credentials, clock, exposure string, st simulator.Stats) {
	fmt.Fprintf(w, "mwallet-sim listening on %s\n", base)
	fmt.Fprintf(w, "  environment     %s\n", c.Environment)
	fmt.Fprintf(w, "  model           %s\n", c.Model)
	fmt.Fprintf(w, "  merchant_id     %s\n", c.MerchantID)
	fmt.Fprintf(w, "  client_id       %s\n", c.ClientID)
	fmt.Fprintf(w, "  api_key         %s\n", c.APIKey)
	fmt.Fprintf(w, "  signing_key     %s\n", c.SigningKey)
	fmt.Fprintf(w, "  webhook_secret  %s\n", c.WebhookSecret)
	fmt.Fprintf(w, "  clock           %s\n", clock)
	fmt.Fprintf(w, "  control API     %s\n", exposure)
	fmt.Fprintf(w, "  stores          %s (GET /_sim/stats)\n", storeFill(st))
	fmt.Fprintf(w, "dashboard:   %s/_sim/ui/\n", base)
	fmt.Fprintf(w, "control API: %s/_sim/credentials, /_sim/clock, /_sim/members, /_sim/faults, /_sim/requests, ...\n", base)
	fmt.Fprintln(w, "stop with Ctrl-C (SIGINT) or SIGTERM: requests in flight finish first")
}
