package mwallet_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

const waitMember = simulator.DefaultMemberExternalID

// deposit is a signed, keyed write of 1 USDT.
func deposit(ctx context.Context, c *mwclient.Client, ref string) (*deposits.Deposit, error) {
	return c.Deposits.Create(ctx, waitMember, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("1", 6), Reference: ref})
}

// exchangesOf counts the token exchanges in the simulator's journal.
func exchangesOf(sim *simulator.Simulator) int { return countPath(sim, "/v1/connect/token") }

// handoffStore is a token store whose exchange lock another client holds
// until the second read: the client polls it once.
type handoffStore struct {
	*mwallet.MemoryTokenStore
	held  atomic.Bool
	loads atomic.Int32
}

func (s *handoffStore) Load(ctx context.Context, key string) (mwallet.AccessToken, bool, error) {
	if s.loads.Add(1) >= 2 {
		s.held.Store(false)
	}
	return s.MemoryTokenStore.Load(ctx, key)
}

func (s *handoffStore) Lock(ctx context.Context, key string, ttl time.Duration) (func(context.Context) error, bool, error) {
	if s.held.Load() {
		return nil, false, nil
	}
	return s.MemoryTokenStore.Lock(ctx, key, ttl)
}

// quoteUntilLimited sends 30 QR quotes for member, the most a member may
// ask for in 60 s.
func quoteUntilLimited(t *testing.T, ctx context.Context, c *mwclient.Client) {
	t.Helper()
	for i := range 30 {
		if _, err := c.QRPay.Quote(ctx, waitMember, qrpay.QuoteParams{CodeValue: sampleqr.PromptPay}); err != nil {
			t.Fatalf("quote %d: %v", i+1, err)
		}
	}
}

// TestEveryWaitFollowsTheClientClock lists every wait of the SDK. Each row
// runs against its own simulator with a client from sim.Client, whose
// clock is the simulator's: the wait must move the simulator clock (by at
// least minAdvance) and the call must then succeed, so nothing waited on
// the wall clock (the wall time of each row is logged, not asserted).
//
// Step-up has no row: the SDK makes no wait of its own there (the caller
// resends once the end user is done), and StepUp.ExpiresAt is the
// service's instant.
func TestEveryWaitFollowsTheClientClock(t *testing.T) {
	t.Parallel()
	type row struct {
		name       string
		opts       []mwallet.Option
		minAdvance time.Duration
		// run makes the call that waits; it returns what to log.
		run func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string
	}
	fault := func(t *testing.T, sim *simulator.Simulator, f simulator.Fault) {
		t.Helper()
		if err := sim.Faults.Inject(f); err != nil {
			t.Fatal(err)
		}
	}
	retried := func(kind simulator.FaultKind, status int) func(*testing.T, context.Context, *simulator.Simulator, *mwclient.Client) string {
		return func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string {
			fault(t, sim, simulator.Fault{Method: http.MethodPost, Path: "/v1/deposits", Kind: kind, Status: status, Count: 1})
			d, err := deposit(ctx, c, "r-"+string(kind)+strconv.Itoa(status))
			if err != nil {
				t.Fatal(err)
			}
			if d.Response.Attempts != 2 {
				t.Fatalf("attempts %d, want 2", d.Response.Attempts)
			}
			return "attempts 2"
		}
	}
	rows := []row{
		{name: "backoff after a dropped connection", minAdvance: mwallet.DefaultMinBackoff / 2, run: retried(simulator.FaultDropAfter, 0)},
		{name: "backoff after upstream_error", minAdvance: mwallet.DefaultMinBackoff / 2, run: retried(simulator.FaultError, http.StatusBadGateway)},
		{name: "backoff after api_error", minAdvance: mwallet.DefaultMinBackoff / 2, run: retried(simulator.FaultError, http.StatusInternalServerError)},
		{name: "idempotency_in_progress wait", minAdvance: time.Second,
			run: func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string {
				key := mwallet.NewIdempotencyKey()
				body := []byte(`{"asset":"USDT","amount":"1","reference":"r-in-progress"}`)
				if err := sim.Requests.StartInProgress(http.MethodPost, "/v1/deposits", key, body, time.Second); err != nil {
					t.Fatal(err)
				}
				resp, err := c.Do(ctx, &mwallet.Request{Method: http.MethodPost, Path: "/v1/deposits", MemberScoped: true, Member: waitMember,
					Body: json.RawMessage(body), Idempotent: true}, nil, mwallet.WithIdempotencyKey(key))
				if err != nil {
					t.Fatal(err)
				}
				if resp.Attempts != 2 || resp.Replayed {
					t.Fatalf("attempts %d replayed %v, want 2 and a first execution", resp.Attempts, resp.Replayed)
				}
				return "attempts 2"
			}},
		{name: "Retry-After of rate_limited (31st QR quote)", minAdvance: 59 * time.Second,
			run: func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string {
				quoteUntilLimited(t, ctx, c)
				q, err := c.QRPay.Quote(ctx, waitMember, qrpay.QuoteParams{CodeValue: sampleqr.PromptPay})
				if err != nil {
					t.Fatal(err)
				}
				return "attempts " + strconv.Itoa(q.Response.Attempts)
			}},
		{name: "token renewal ahead of expiry", minAdvance: 29*time.Minute + 30*time.Second,
			run: func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string {
				if _, err := deposit(ctx, c, "r-renew-1"); err != nil {
					t.Fatal(err)
				}
				// Tokens live 30 min and are renewed 60 s before expired_at.
				sim.Clock.Advance(29*time.Minute + 30*time.Second)
				if _, err := deposit(ctx, c, "r-renew-2"); err != nil {
					t.Fatal(err)
				}
				if n := exchangesOf(sim); n != 2 {
					t.Fatalf("token exchanges %d, want 2 (renewed 30 s before expiry on the simulator clock)", n)
				}
				return "exchanges 2"
			}},
		{name: "token-exchange limiter", opts: []mwallet.Option{mwallet.WithTokenExchangeLimit(2)}, minAdvance: 29 * time.Second,
			run: func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string {
				// invalid_token drops the token: the second exchange waits
				// for the limiter's turn, 30 s later (2 per minute, burst 1).
				fault(t, sim, simulator.Fault{Method: http.MethodPost, Path: "/v1/deposits", Kind: simulator.FaultError, Code: "invalid_token", Count: 1})
				if _, err := deposit(ctx, c, "r-limiter"); err != nil {
					t.Fatal(err)
				}
				if n := exchangesOf(sim); n != 2 {
					t.Fatalf("token exchanges %d, want 2", n)
				}
				return "exchanges 2"
			}},
		{name: "token store poll while another client exchanges", minAdvance: 25 * time.Millisecond,
			opts: []mwallet.Option{mwallet.WithTokenStore(func() mwallet.TokenStore {
				s := &handoffStore{MemoryTokenStore: mwallet.NewMemoryTokenStore()}
				s.held.Store(true)
				return s
			}())},
			run: func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string {
				if _, err := deposit(ctx, c, "r-poll"); err != nil {
					t.Fatal(err)
				}
				return "exchanges " + strconv.Itoa(exchangesOf(sim))
			}},
		{name: "qrpay.WaitForOutcome polling", minAdvance: 45 * time.Second,
			run: func(t *testing.T, ctx context.Context, sim *simulator.Simulator, c *mwclient.Client) string {
				p := qrpay.PayParams{CodeValue: sampleqr.PromptPay}
				_, err := c.QRPay.Pay(ctx, waitMember, p)
				su, ok := mwallet.AsStepUp(err)
				if !ok {
					t.Fatalf("Pay: %v, want step_up_required", err)
				}
				if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
					t.Fatal(err)
				}
				o, err := c.QRPay.Pay(ctx, waitMember, p, su.Options()...)
				if err != nil {
					t.Fatal(err)
				}
				if err := sim.QRPay.Timeout(o.ID); err != nil {
					t.Fatal(err)
				}
				if err := sim.Outcomes.SetObject(o.ID, simulator.After(45*time.Second)); err != nil {
					t.Fatal(err)
				}
				final, err := c.QRPay.WaitForOutcome(ctx, waitMember, o.ID) // no WithSleep
				if err != nil || final.Status != qrpay.StatusCompleted {
					t.Fatalf("WaitForOutcome: %+v, %v", final, err)
				}
				return "order " + string(final.Status)
			}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			c := sim.Client(r.opts...)
			ctx := context.Background()
			simStart, wallStart := sim.Clock.Now(), time.Now()
			what := r.run(t, ctx, sim, c)
			advanced, wall := sim.Clock.Now().Sub(simStart), time.Since(wallStart)
			t.Logf("%s: %s; simulator clock +%s, wall time %s", r.name, what, advanced, wall.Round(time.Microsecond))
			if advanced < r.minAdvance {
				t.Fatalf("the simulator clock moved %s, want at least %s: the wait did not follow the client's clock", advanced, r.minAdvance)
			}
		})
	}
	t.Logf("%d waits", len(rows))
}

// TestThirtyFirstQuoteWaitsOnSimulatorClock is the scenario of a
// rate-limited call in a simulator test: 30 QR quotes, then a 31st that is
// answered rate_limited with Retry-After: 60. The client waits the 60 s on
// the simulator clock, so the retry is served and the call returns at once.
func TestThirtyFirstQuoteWaitsOnSimulatorClock(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	quoteUntilLimited(t, ctx, c)
	simStart, wallStart := sim.Clock.Now(), time.Now()
	q, err := c.QRPay.Quote(ctx, waitMember, qrpay.QuoteParams{CodeValue: sampleqr.PromptPay})
	wall := time.Since(wallStart)
	if err != nil {
		t.Fatalf("31st quote: %v", err)
	}
	var limited []string
	for _, r := range sim.Requests.List() {
		if r.Path == "/v1/qrpay/quotes" && r.Code != "" {
			limited = append(limited, r.Code)
		}
	}
	if q.Response.Attempts != 2 || len(limited) != 1 || limited[0] != string(mwallet.CodeRateLimited) {
		t.Fatalf("attempts %d, refusals %v; want 2 attempts after one rate_limited", q.Response.Attempts, limited)
	}
	advanced := sim.Clock.Now().Sub(simStart)
	if advanced < 60*time.Second {
		t.Fatalf("simulator clock moved %s, want the 60 s of Retry-After", advanced)
	}
	t.Logf("31st quote: rate_limited then served; %d attempts; simulator clock +%s; wall time %s", q.Response.Attempts, advanced, wall.Round(time.Microsecond))
}
