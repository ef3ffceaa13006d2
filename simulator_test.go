package mwallet_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
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
	available, _, err := sim.Members.Balance(simulator.DefaultMemberExternalID, "USDT")
	if want := money.MustParse("1004.5", 6); err != nil || !available.Equal(want) {
		t.Errorf("balance %s (%v), want %s", available, err, want)
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
	if err := sim.Requests.Reset(); err != nil {
		t.Fatal(err)
	}
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

// simProtocols are the ways the simulator serves the SDK.
var simProtocols = []struct {
	name  string
	opts  []simulator.Option
	http2 bool
}{
	{"http1", nil, false},
	{"http1-tls", []simulator.Option{simulator.WithTLS()}, false},
	{"h2", []simulator.Option{simulator.WithHTTP2()}, true},
}

// TestSimulatorDropsOverEachProtocol: 20 concurrent deposits, two dropped
// after executing and two before, over each protocol: every deposit
// succeeds, the dropped-after ones by replay, and each is credited once.
func TestSimulatorDropsOverEachProtocol(t *testing.T) {
	t.Parallel()
	for _, p := range simProtocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t, p.opts...)
			// Five attempts: a fault takes the next matching request, so
			// one deposit's retries can meet several of the four faults.
			client := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond), mwallet.WithDefaultMaxAttempts(5))
			for _, f := range []simulator.Fault{
				{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter, Count: 2},
				{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropBefore, Count: 2},
			} {
				if err := sim.Faults.Inject(f); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			var wg sync.WaitGroup
			attempts := make([]int, 20)
			errs := make([]error, 20)
			for i := range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var resp *mwallet.Response
					_, errs[i] = client.Deposits.Create(ctx, simulator.DefaultMemberExternalID,
						deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("1", 6), Reference: "conc-" + strconv.Itoa(i)}, mwallet.WithResponse(&resp))
					if resp != nil {
						attempts[i] = resp.Attempts
					}
				}()
			}
			wg.Wait()
			retries := 0
			for i, err := range errs {
				if err != nil {
					t.Errorf("deposit %d: %v", i, err)
				}
				retries += attempts[i] - 1
			}
			// Per key, in arrival order: every attempt but the last was
			// dropped, and the last is answered as a replay exactly when
			// an earlier attempt ran (a drop after running). A retry can
			// itself take the second drop-after fault, so the number of
			// replays is not fixed; what each key saw is.
			byKey := map[string][]simulator.RequestRecord{}
			kinds := map[string]int{}
			for _, r := range sim.Requests.List() {
				if r.Path != "/v1/deposits" {
					continue // the token exchange
				}
				byKey[r.IdempotencyKey] = append(byKey[r.IdempotencyKey], r)
				kinds[r.Fault]++
			}
			if len(byKey) != 20 {
				t.Errorf("%d idempotency keys, want one per deposit (20)", len(byKey))
			}
			for key, rs := range byKey {
				ran := false
				for _, r := range rs[:len(rs)-1] {
					if !r.Dropped {
						t.Errorf("key %s: attempt %d answered %d before its last attempt", key, r.Seq, r.Status)
					}
					ran = ran || (r.Fault == string(simulator.FaultDropAfter) && !r.Replay)
				}
				last := rs[len(rs)-1]
				if last.Dropped || last.Status != http.StatusCreated || last.Replay != ran {
					t.Errorf("key %s: last attempt %+v; want 201, a replay exactly when an earlier attempt ran (%v)", key, last, ran)
				}
			}
			if retries != 4 || kinds[string(simulator.FaultDropAfter)] != 2 || kinds[string(simulator.FaultDropBefore)] != 2 {
				t.Errorf("retries %d, faults taken %v; want 4 retries, 2 drops after and 2 before", retries, kinds)
			}
			available, _, err := sim.Members.Balance(simulator.DefaultMemberExternalID, "USDT")
			if want := money.MustParse("1020", 6); err != nil || !available.Equal(want) {
				t.Errorf("balance %s (%v), want %s: each deposit once", available, err, want)
			}
		})
	}
}

// TestSimulatorRefusedWriteWithoutKey: a write that takes no idempotency
// key (QR decode) dropped before it ran is sent again only when the
// protocol says it was not processed, which HTTP/2 does with REFUSED_STREAM
// and HTTP/1.1 cannot.
func TestSimulatorRefusedWriteWithoutKey(t *testing.T) {
	t.Parallel()
	code := emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER1"},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "100.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
	for _, p := range simProtocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t, p.opts...)
			// Five attempts: a fault takes the next matching request, so
			// one deposit's retries can meet several of the four faults.
			client := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond), mwallet.WithDefaultMaxAttempts(5))
			if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/qrpay/decode", Kind: simulator.FaultDropBefore}); err != nil {
				t.Fatal(err)
			}
			var resp *mwallet.Response
			_, err := client.QRPay.Decode(context.Background(), simulator.DefaultMemberExternalID, qrpay.DecodeParams{CodeValue: code}, mwallet.WithResponse(&resp))
			if p.http2 {
				if err != nil || resp.Attempts != 2 {
					t.Fatalf("err = %v, resp = %+v; want the refused stream sent again", err, resp)
				}
				return
			}
			var te *mwallet.TransportError
			if !errors.As(err, &te) || te.Attempts != 1 || te.NotSent || te.IdempotencyKey != "" {
				t.Fatalf("err = %v; want one attempt, outcome unknown", err)
			}
			if n := countPath(sim, "/v1/qrpay/decode"); n != 1 {
				t.Errorf("sent %d times", n)
			}
		})
	}
}
