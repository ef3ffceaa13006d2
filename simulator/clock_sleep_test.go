package simulator_test

import (
	"context"
	"errors"
	"testing"
	"time"

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
