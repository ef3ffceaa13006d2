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

// SleepFunc advances the simulator clock instead of sleeping, ends with
// context.DeadlineExceeded past its limit without advancing further, and
// ends with the context.
func TestClockSleepFunc(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	start := sim.Clock.Now()
	sleep := sim.Clock.SleepFunc(time.Minute)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := sleep(ctx, 20*time.Second); err != nil {
			t.Fatalf("sleep %d: %v", i, err)
		}
	}
	if err := sleep(ctx, time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past the limit: %v, want context.DeadlineExceeded", err)
	}
	if got := sim.Clock.Now().Sub(start); got != time.Minute {
		t.Errorf("clock advanced %s, want 1m", got)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := sim.Clock.SleepFunc(time.Hour)(cancelled, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if err := sim.Clock.SleepFunc(0)(ctx, time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("zero limit: %v", err)
	}
}

// Clock.Sleep (the SDK client's wait, mwallet.Clock) advances the clock by
// d and nothing else; with an ended context it does not advance.
func TestClockSleep(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	start := sim.Clock.Now()
	if err := sim.Clock.Sleep(context.Background(), 90*time.Second); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sim.Clock.Sleep(cancelled, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if got := sim.Clock.Now().Sub(start); got != 90*time.Second {
		t.Errorf("clock advanced %s, want 1m30s", got)
	}
}

// TestDateHeaderOnSimulatorClock: every answer, business (token exchange,
// a read, an unknown path) and control, carries Date from the simulator's
// clock, which stands still at its start until advanced.
func TestDateHeaderOnSimulatorClock(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t, simulator.WithStart(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)))
	hc := sim.HTTPClient()
	if hc == nil {
		hc = http.DefaultClient
	}
	dates := func() []string {
		var out []string
		for _, r := range []struct{ method, path string }{
			{http.MethodPost, "/v1/connect/token"}, {http.MethodGet, "/v1/assets"}, {http.MethodGet, "/v1/nowhere"}, {http.MethodGet, "/_sim/clock"},
		} {
			req, err := http.NewRequest(r.method, sim.URL()+r.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			out = append(out, r.method+" "+r.path+": "+resp.Header.Get("Date"))
		}
		return out
	}
	want := func(d string) []string {
		return []string{"POST /v1/connect/token: " + d, "GET /v1/assets: " + d, "GET /v1/nowhere: " + d, "GET /_sim/clock: " + d}
	}
	if diff := cmp.Diff(want("Tue, 06 May 2031 07:08:09 GMT"), dates()); diff != "" {
		t.Errorf("at start (-want +got):\n%s", diff)
	}
	sim.Clock.Advance(time.Hour + 500*time.Millisecond)
	if diff := cmp.Diff(want("Tue, 06 May 2031 08:08:09 GMT"), dates()); diff != "" {
		t.Errorf("an hour later (-want +got):\n%s", diff)
	}
}
