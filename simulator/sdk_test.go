package simulator_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// newSDK starts a simulator and an SDK client for it with short retry waits.
func newSDK(t *testing.T, opts ...simulator.Option) (*simulator.Simulator, *mwclient.Client) {
	t.Helper()
	sim := simtest.Start(t, opts...)
	return sim, sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
}

func TestSDKEndToEnd(t *testing.T) {
	t.Parallel()
	sim, client := newSDK(t)
	ctx := context.Background()

	list, err := client.Assets(ctx)
	if err != nil {
		t.Fatalf("Assets: %v", err)
	}
	scales := map[string]int{}
	for _, a := range list.Assets {
		scales[a.Code] = a.LedgerScale
	}
	if scales["USDT"] != 6 || scales["USDC"] != 6 || scales["BTC"] != 8 || scales["ETH"] != 18 {
		t.Errorf("catalogue scales = %v", scales)
	}
	if list.Response == nil || list.Response.RequestID == "" {
		t.Errorf("no request id on the assets response")
	}

	// A signed idempotent write.
	dep, err := client.Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "sdk-1"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if dep.Response.StatusCode != http.StatusCreated || dep.Response.Replayed || dep.Replayed {
		t.Errorf("first deposit: status %d, replayed %v/%v", dep.Response.StatusCode, dep.Response.Replayed, dep.Replayed)
	}
	if got := balance(sim, member1, "USDT"); got != "1025.000000" {
		t.Errorf("balance = %s", got)
	}

	// The gateway saw a token exchange, then the calls; the write was signed
	// and carried its idempotency key.
	recs := sim.Requests.List()
	if recs[0].Path != "/v1/connect/token" || recs[len(recs)-1].IdempotencyKey != dep.Response.IdempotencyKey {
		t.Errorf("journal = %+v", recs)
	}
}

func TestSDKRetryAfterDropAfterIsReplay(t *testing.T) {
	t.Parallel()
	sim, client := newSDK(t)
	ctx := context.Background()
	if _, err := client.Assets(ctx); err != nil { // token first
		t.Fatal(err)
	}
	if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter}); err != nil {
		t.Fatal(err)
	}
	dep, err := client.Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "sdk-drop"})
	if err != nil {
		t.Fatalf("Create after a dropped answer: %v", err)
	}
	if !dep.Response.Replayed {
		t.Errorf("the retry was not answered as a replay: %+v", dep.Response)
	}
	if dep.Response.Attempts < 2 {
		t.Errorf("attempts = %d", dep.Response.Attempts)
	}
	if got := balance(sim, member1, "USDT"); got != "1005.000000" {
		t.Errorf("balance = %s, want exactly one credit", got)
	}
	var writes []simulator.RequestRecord
	for _, r := range sim.Requests.List() {
		if r.Path == "/v1/deposits" {
			writes = append(writes, r)
		}
	}
	if len(writes) < 2 || !writes[0].Dropped || !writes[len(writes)-1].Replay {
		t.Fatalf("journal = %+v", writes)
	}
	for _, w := range writes {
		if w.IdempotencyKey != dep.Response.IdempotencyKey {
			t.Errorf("attempt with key %q, want %q", w.IdempotencyKey, dep.Response.IdempotencyKey)
		}
	}
}

func TestSDKErrorsFromGateway(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(sim *simulator.Simulator) error
		code  mwallet.Code
	}{
		{"scope", func(sim *simulator.Simulator) error {
			return sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{Scopes: []string{"members:read"}})
		}, mwallet.CodeInsufficientScope},
		{"merchant frozen", func(sim *simulator.Simulator) error {
			return sim.Merchant.Set(simulator.MerchantSettings{Status: simulator.MerchantFrozen})
		}, mwallet.CodeMerchantDisabled},
		{"ip", func(sim *simulator.Simulator) error {
			return sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{IPAllowlist: []string{"10.1.2.0/24"}})
		}, mwallet.CodeIPNotAllowed},
		{"injected upstream timeout", func(sim *simulator.Simulator) error {
			return sim.Faults.Inject(simulator.Fault{Path: "/v1/assets", Count: 10, Kind: simulator.FaultError, Code: "upstream_timeout"})
		}, mwallet.CodeUpstreamTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, client := newSDK(t)
			if err := tt.setup(sim); err != nil {
				t.Fatal(err)
			}
			_, err := client.Assets(context.Background(), mwallet.WithMaxAttempts(2))
			var apiErr *mwallet.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("want *mwallet.Error, got %v", err)
			}
			if apiErr.Code != tt.code || apiErr.RequestID == "" {
				t.Errorf("code %s request id %q, want %s", apiErr.Code, apiErr.RequestID, tt.code)
			}
		})
	}
}

func TestSDKClockAdvance(t *testing.T) {
	t.Parallel()
	// Signatures follow the simulator clock and tokens are renewed when the
	// clock moves past their 30 minutes.
	sim, client := newSDK(t)
	ctx := context.Background()
	for i, ref := range []string{"clock-1", "clock-2", "clock-3"} {
		if _, err := client.Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "USDC", Amount: money.MustParse("1", 6), Reference: ref}); err != nil {
			t.Fatalf("deposit %d: %v", i, err)
		}
		sim.Clock.Advance(45 * time.Minute)
	}
	if got := balance(sim, member1, "USDC"); got != "503.000000" {
		t.Errorf("USDC = %s", got)
	}
}
