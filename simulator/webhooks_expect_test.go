package simulator_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestFlushExpectingFailures runs a receiver's outage through its whole
// retry schedule with FlushExpectingFailures: every failed attempt is in
// the result and none is an error, where Flush answers each with a
// *FlushError carrying the same counts; a cancelled flush is still an
// error.
func TestFlushExpectingFailures(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	down := newReceiver(t, func(int, delivery) int { return http.StatusServiceUnavailable })
	up := newReceiver(t, func(int, delivery) int { return http.StatusOK })
	downID, _, err := sim.Webhooks.AddEndpoint(down.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sim.Webhooks.AddEndpoint(up.srv.URL); err != nil {
		t.Fatal(err)
	}
	evID := mustEmit(t, sim, "qrpay.order.completed", "qrpay_order", "o1", "completed", 3)
	ctx := context.Background()
	res, err := sim.Webhooks.FlushExpectingFailures(ctx)
	if err != nil || counts(res) != [3]int{2, 1, 1} || len(res.Failures) != 1 || res.Failures[0].StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("first flush = %+v, %v; want one sent, one failed with 503, no error", res, err)
	}
	var got [][3]int
	for i, wait := range []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 120 * time.Minute, 360 * time.Minute} {
		sim.Clock.Advance(wait)
		res, err := sim.Webhooks.FlushExpectingFailures(ctx)
		if err != nil {
			t.Fatalf("retry %d: %v", i+1, err)
		}
		got = append(got, counts(res))
	}
	want := [][3]int{{1, 0, 1}, {1, 0, 1}, {1, 0, 1}, {1, 0, 1}, {1, 0, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("retry flushes (-want +got):\n%s", diff)
	}
	if row := oneRowTo(t, sim, evID, downID); row.Status != "dead" {
		t.Errorf("the refused delivery is %s after six attempts, want dead", row.Status)
	}

	// Flush reports the same kind of failure as an error.
	mustEmit(t, sim, "qrpay.order.completed", "qrpay_order", "o2", "completed", 3)
	res, err = sim.Webhooks.Flush(ctx)
	var fe *simulator.FlushError
	if !errors.As(err, &fe) || counts(fe.Result) != [3]int{2, 1, 1} || counts(res) != counts(fe.Result) {
		t.Fatalf("Flush = %+v, %v; want a *FlushError with one failed attempt", res, err)
	}

	// A cancelled flush is an error either way.
	mustEmit(t, sim, "qrpay.order.completed", "qrpay_order", "o3", "completed", 3)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := sim.Webhooks.FlushExpectingFailures(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("FlushExpectingFailures(cancelled) = %v, want context.Canceled", err)
	}
	if _, err := sim.Webhooks.FlushExpectingFailures(ctx); err != nil {
		t.Fatal(err)
	}
}

// oneRowTo returns the delivery row of event evID to endpoint.
func oneRowTo(t *testing.T, sim *simulator.Simulator, evID, endpoint string) simulator.WebhookDelivery {
	t.Helper()
	for _, d := range rowsOf(sim, evID) {
		if d.EndpointID == endpoint {
			return d
		}
	}
	t.Fatalf("no delivery of %s to %s", evID, endpoint)
	return simulator.WebhookDelivery{}
}
