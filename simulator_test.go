package mwallet_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func newSim(t *testing.T) (*simulator.Simulator, *mwclient.Client) {
	t.Helper()
	sim := simtest.Start(t)
	return sim, sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
}

func countPath(sim *simulator.Simulator, path string) int {
	n := 0
	for _, r := range sim.Requests.List() {
		if r.Path == path {
			n++
		}
	}
	return n
}

func TestSimulatorColdClientOneExchange(t *testing.T) {
	t.Parallel()
	sim, client := newSim(t)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := client.Assets(context.Background())
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := countPath(sim, "/v1/connect/token"); n != 1 {
		t.Errorf("token exchanges = %d, want 1", n)
	}
}

func TestSimulatorTokenFollowsClock(t *testing.T) {
	t.Parallel()
	sim, client := newSim(t)
	ctx := context.Background()
	call := func() {
		t.Helper()
		if _, err := client.Assets(ctx); err != nil {
			t.Fatal(err)
		}
	}
	call()
	sim.Clock.Advance(25 * time.Minute)
	call()
	if n := countPath(sim, "/v1/connect/token"); n != 1 {
		t.Fatalf("token exchanges = %d after 25 min, want 1", n)
	}
	sim.Clock.Advance(4*time.Minute + 30*time.Second) // 30 s before expired_at
	call()
	sim.Clock.Advance(31 * time.Minute) // past the second token's expired_at
	call()
	if n := countPath(sim, "/v1/connect/token"); n != 3 {
		t.Errorf("token exchanges = %d, want 3", n)
	}
	for _, r := range sim.Requests.List() {
		if r.Code == string(mwallet.CodeInvalidToken) {
			t.Errorf("an expired token was sent: %+v", r)
		}
	}
}

func TestSimulatorSignedWritesAcrossClock(t *testing.T) {
	t.Parallel()
	sim, client := newSim(t)
	ctx := context.Background()
	for i, adv := range []time.Duration{0, 10 * time.Minute, 2 * time.Hour} {
		sim.Clock.Advance(adv)
		ref := "ref-" + string(rune('a'+i))
		dep, err := client.Deposits.Create(ctx, simulator.DefaultMemberExternalID,
			deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("1.5", 6), Reference: ref})
		if err != nil {
			t.Fatalf("deposit %s: %v", ref, err)
		}
		if dep.Response.Attempts != 1 || !mwallet.ValidIdempotencyKey(dep.Response.IdempotencyKey) || dep.Response.RequestID == "" {
			t.Errorf("response %+v", dep.Response)
		}
	}
	available, _ := sim.Balance(simulator.DefaultMemberExternalID, "USDT")
	if want := money.MustParse("1004.5", 6); !available.Equal(want) {
		t.Errorf("balance %s, want %s", available, want)
	}
}

func TestSimulatorFaultsAndRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fault    simulator.Fault
		wantCode mwallet.Code
		attempts int
	}{
		{"upstream_timeout retried", simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultError, Status: 504}, "", 2},
		{"api_error retried once", simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultError, Status: 500, Count: 5}, mwallet.CodeAPIError, 2},
		{"drop before retried", simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropBefore}, "", 2},
		{"merchant_disabled never retried", simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultError, Code: "merchant_disabled", Count: 5}, mwallet.CodeMerchantDisabled, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, client := newSim(t)
			if err := sim.Faults.Inject(tt.fault); err != nil {
				t.Fatal(err)
			}
			var resp *mwallet.Response
			_, err := client.Deposits.Create(context.Background(), simulator.DefaultMemberExternalID,
				deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2", 6), Reference: "f-1"}, mwallet.WithResponse(&resp))
			if mwallet.CodeOf(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			if resp == nil || resp.Attempts != tt.attempts {
				t.Fatalf("response %+v, want %d attempts", resp, tt.attempts)
			}
			if n := countPath(sim, "/v1/deposits"); n != tt.attempts {
				t.Errorf("the simulator saw %d requests, want %d", n, tt.attempts)
			}
			var apiErr *mwallet.Error
			if errors.As(err, &apiErr) && apiErr.IdempotencyKey != resp.IdempotencyKey {
				t.Errorf("error key %q, response key %q", apiErr.IdempotencyKey, resp.IdempotencyKey)
			}
		})
	}
}

// Client.Do and Iterate reach endpoints without a typed method: five
// deposits come back over three pages of two.
func TestSimulatorIterateUntypedList(t *testing.T) {
	t.Parallel()
	sim, client := newSim(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if _, err := client.Deposits.Create(ctx, simulator.DefaultMemberExternalID,
			deposits.CreateParams{Asset: "USDC", Amount: money.MustParse("1", 6), Reference: "it-" + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	sim.Requests.Reset()
	seen := map[string]bool{}
	for item, err := range mwallet.Iterate[map[string]any](ctx, client.Client, mwallet.Request{Method: http.MethodGet, Path: "/v1/deposits"}, mwallet.ListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		id, _ := item["id"].(string)
		seen[id] = true
	}
	if len(seen) != 5 {
		t.Errorf("items = %d, want 5: %v", len(seen), seen)
	}
	if n := countPath(sim, "/v1/deposits"); n != 3 {
		t.Errorf("pages = %d, want 3", n)
	}
}
