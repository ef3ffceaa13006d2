package mwallet_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// observed is one Observer event, without its times.
type observed struct {
	Event     string // call, attempt, exchange
	Operation string
	Method    string
	Route     string
	Number    int // attempt number, or the call's attempts
	Status    int
	Code      mwallet.Code
	Retry     string // retry reason of an attempt; result of an exchange
	Replayed  bool
	Keyed     bool // an idempotency key was reported
	StepUp    bool // the call is a step-up resend matching an earlier challenge
	Challenge bool // the attempt carries a challenge
	Failed    bool // Err set
}

// recorder is an Observer that keeps every event, checks their nesting
// through the contexts it returns, and the whole text for secrets.
type recorder struct {
	mu         sync.Mutex
	events     []observed
	text       strings.Builder
	challenges map[string]bool
	problems   []string
}

type ctxKey struct{}

func (r *recorder) add(e observed, v ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	fmt.Fprintf(&r.text, "%+v %+v\n", e, v)
}

func (r *recorder) CallStart(ctx context.Context, c *mwallet.CallInfo) context.Context {
	if c.Start.IsZero() {
		r.problem("CallStart without Start")
	}
	return context.WithValue(ctx, ctxKey{}, "call "+c.Operation)
}

func (r *recorder) AttemptStart(ctx context.Context, c *mwallet.CallInfo, a *mwallet.AttemptInfo) context.Context {
	if ctx.Value(ctxKey{}) != "call "+c.Operation {
		r.problem("AttemptStart outside its call's context: %v", ctx.Value(ctxKey{}))
	}
	return context.WithValue(ctx, ctxKey{}, fmt.Sprintf("attempt %s %d", c.Operation, a.Number))
}

func (r *recorder) AttemptEnd(ctx context.Context, c *mwallet.CallInfo, a *mwallet.AttemptInfo) {
	if want := fmt.Sprintf("attempt %s %d", c.Operation, a.Number); ctx.Value(ctxKey{}) != want {
		r.problem("AttemptEnd in context %v, want %s", ctx.Value(ctxKey{}), want)
	}
	if a.Duration < 0 || a.Start.IsZero() || (a.StatusCode != 0 && a.RequestID == "") {
		r.problem("attempt %+v", a)
	}
	if a.ChallengeID != "" {
		r.mu.Lock()
		r.challenges[a.ChallengeID] = true
		r.mu.Unlock()
	}
	r.add(observed{Event: "attempt", Operation: c.Operation, Method: c.Method, Route: c.Route, Number: a.Number,
		Status: a.StatusCode, Code: a.Code, Retry: a.RetryReason, Replayed: a.Replayed, Keyed: c.IdempotencyKey != "",
		Challenge: a.ChallengeID != "", Failed: a.Err != nil}, *a)
}

func (r *recorder) CallEnd(ctx context.Context, c *mwallet.CallInfo) {
	if ctx.Value(ctxKey{}) != "call "+c.Operation {
		r.problem("CallEnd in context %v", ctx.Value(ctxKey{}))
	}
	r.mu.Lock()
	stepUp := c.StepUpChallengeID != "" && r.challenges[c.StepUpChallengeID]
	r.mu.Unlock()
	r.add(observed{Event: "call", Operation: c.Operation, Method: c.Method, Route: c.Route, Number: c.Attempts,
		Status: c.StatusCode, Code: c.Code, Replayed: c.Replayed, Keyed: c.IdempotencyKey != "", StepUp: stepUp,
		Failed: c.Err != nil}, *c)
}

func (r *recorder) TokenExchange(_ context.Context, x *mwallet.TokenExchangeInfo) {
	r.add(observed{Event: "exchange", Retry: x.Result, Failed: x.Err != nil}, *x)
}

func (r *recorder) ClockSkew(_ context.Context, d time.Duration) {
	r.add(observed{Event: "skew", Retry: d.String()})
}

func (r *recorder) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

func newRecorder() *recorder { return &recorder{challenges: map[string]bool{}} }

// check fails the test on a nesting problem or a secret in any event.
func (r *recorder) check(t *testing.T, sim *simulator.Simulator) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.problems {
		t.Error(p)
	}
	creds := sim.Credentials()
	for name, secret := range map[string]string{"api key": creds.APIKey, "signing key": creds.SigningKey, "token": "tok_"} {
		if strings.Contains(r.text.String(), secret) {
			t.Errorf("the observed events carry the %s", name)
		}
	}
}

// TestObserverSeesCallsAttemptsAndExchanges runs calls against the
// simulator with an Observer and compares every event it received: the
// token exchange nested in the first call, a write retried after a
// dropped answer (same key, the replay flagged), and a step-up QR payment
// whose resend matches its challenge.
func TestObserverSeesCallsAttemptsAndExchanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(t *testing.T, sim *simulator.Simulator, c *mwallet.Client, obs mwallet.Observer)
		want []observed
	}{
		{
			name: "retried write",
			run: func(t *testing.T, sim *simulator.Simulator, c *mwallet.Client, obs mwallet.Observer) {
				if err := sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: "/v1/deposits", Kind: simulator.FaultDropAfter}); err != nil {
					t.Fatal(err)
				}
				_, err := deposits.New(c).Create(context.Background(), simulator.DefaultMemberExternalID,
					deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2", 6), Reference: "obs-1"})
				if err != nil {
					t.Fatal(err)
				}
			},
			want: []observed{
				{Event: "attempt", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 200, Keyed: false},
				{Event: "call", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 200},
				{Event: "exchange", Retry: "ok"},
				{Event: "attempt", Operation: "deposits.Create", Method: "POST", Route: "/v1/deposits", Number: 1, Retry: "network error", Keyed: true, Failed: true},
				{Event: "attempt", Operation: "deposits.Create", Method: "POST", Route: "/v1/deposits", Number: 2, Status: 201, Replayed: true, Keyed: true},
				{Event: "call", Operation: "deposits.Create", Method: "POST", Route: "/v1/deposits", Number: 2, Status: 201, Replayed: true, Keyed: true},
			},
		},
		{
			name: "step-up QR payment",
			run: func(t *testing.T, sim *simulator.Simulator, c *mwallet.Client, obs mwallet.Observer) {
				ctx := context.Background()
				p := qrpay.PayParams{CodeValue: sampleqr.PromptPay, PreferredAsset: "USDT"}
				_, err := qrpay.New(c).Pay(ctx, simulator.DefaultMemberExternalID, p)
				su, ok := mwallet.AsStepUp(err)
				if !ok {
					t.Fatalf("Pay: %v, want step_up_required", err)
				}
				if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
					t.Fatal(err)
				}
				if _, err := qrpay.New(c).Pay(ctx, simulator.DefaultMemberExternalID, p, su.Options()...); err != nil {
					t.Fatal(err)
				}
			},
			want: []observed{
				{Event: "attempt", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 200},
				{Event: "call", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 200},
				{Event: "exchange", Retry: "ok"},
				{Event: "attempt", Operation: "qrpay.Pay", Method: "POST", Route: "/v1/qrpay/payments", Number: 1, Status: 400, Code: mwallet.CodeStepUpRequired, Keyed: true, Challenge: true, Failed: true},
				{Event: "call", Operation: "qrpay.Pay", Method: "POST", Route: "/v1/qrpay/payments", Number: 1, Status: 400, Code: mwallet.CodeStepUpRequired, Keyed: true, Failed: true},
				{Event: "attempt", Operation: "qrpay.Pay", Method: "POST", Route: "/v1/qrpay/payments", Number: 1, Status: 201, Keyed: true},
				// The order's amounts are read against the asset catalogue,
				// inside the payment's call (mwallet.AnswerReader).
				{Event: "attempt", Operation: "mwallet.Assets", Method: "GET", Route: "/v1/assets", Number: 1, Status: 200},
				{Event: "call", Operation: "mwallet.Assets", Method: "GET", Route: "/v1/assets", Number: 1, Status: 200},
				{Event: "call", Operation: "qrpay.Pay", Method: "POST", Route: "/v1/qrpay/payments", Number: 1, Status: 201, Keyed: true, StepUp: true},
			},
		},
		{
			name: "refused token exchange",
			run: func(t *testing.T, sim *simulator.Simulator, c *mwallet.Client, obs mwallet.Observer) {
				creds := sim.Credentials()
				bad, err := mwallet.New(sim.URL(), mwallet.Credentials{ClientID: creds.ClientID, APIKey: "wrong-key", SigningKey: mwallet.Secret(creds.SigningKey)},
					mwallet.WithObserver(obs), mwallet.WithClock(sim.Clock.Now))
				if err != nil {
					t.Fatal(err)
				}
				_, err = bad.Assets(context.Background())
				simtest.WantCode(t, err, mwallet.CodeInvalidCredentials)
			},
			want: []observed{
				{Event: "attempt", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 401, Code: mwallet.CodeInvalidCredentials, Failed: true},
				{Event: "call", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 401, Code: mwallet.CodeInvalidCredentials, Failed: true},
				{Event: "exchange", Retry: "invalid_credentials", Failed: true},
				{Event: "call", Operation: "mwallet.Assets", Method: "GET", Route: "/v1/assets", Number: 0, Status: 401, Code: mwallet.CodeInvalidCredentials, Failed: true},
			},
		},
		{
			name: "read of an order by id: the route keeps no id",
			run: func(t *testing.T, sim *simulator.Simulator, c *mwallet.Client, obs mwallet.Observer) {
				_, err := qrpay.New(c).Order(context.Background(), simulator.DefaultMemberExternalID, "qrp_0f5c2f7e-1111-4a53-9b0e-8a6c2b3d4e5f")
				simtest.WantCode(t, err, mwallet.CodeNotFound)
			},
			want: []observed{
				{Event: "attempt", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 200},
				{Event: "call", Operation: "connect.Token", Method: "POST", Route: "/v1/connect/token", Number: 1, Status: 200},
				{Event: "exchange", Retry: "ok"},
				{Event: "attempt", Operation: "qrpay.Order", Method: "GET", Route: "/v1/qrpay/orders/{id}", Number: 1, Status: 404, Code: mwallet.CodeNotFound, Failed: true},
				{Event: "call", Operation: "qrpay.Order", Method: "GET", Route: "/v1/qrpay/orders/{id}", Number: 1, Status: 404, Code: mwallet.CodeNotFound, Failed: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			rec := newRecorder()
			c := sim.Client(mwallet.WithObserver(rec), mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond)).Client
			tt.run(t, sim, c, rec)
			rec.check(t, sim)
			if diff := cmp.Diff(tt.want, rec.events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObserverRetryReasons: every reason the client retries for reaches
// the Observer on the attempt that is retried, and the next attempt
// succeeds (one fault each, on a deposit through the simulator).
func TestObserverRetryReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault  simulator.Fault
		reason string
	}{
		{simulator.Fault{Kind: simulator.FaultDropAfter}, "network error"},
		{simulator.Fault{Kind: simulator.FaultDropBefore}, "network error"},
		{simulator.Fault{Kind: simulator.FaultError, Code: string(mwallet.CodeAPIError)}, "api_error"},
		{simulator.Fault{Kind: simulator.FaultError, Code: string(mwallet.CodeUpstreamError)}, "upstream_error"},
		{simulator.Fault{Kind: simulator.FaultError, Code: string(mwallet.CodeUpstreamTimeout)}, "upstream_timeout"},
		{simulator.Fault{Kind: simulator.FaultError, Code: string(mwallet.CodeIdempotencyInProgress)}, "idempotency_in_progress"},
		{simulator.Fault{Kind: simulator.FaultError, Code: string(mwallet.CodeRateLimited)}, "rate_limited"},
		{simulator.Fault{Kind: simulator.FaultError, Code: string(mwallet.CodeInvalidToken)}, "invalid_token: new access token"},
		{simulator.Fault{Kind: simulator.FaultErrorAfter, Status: 504, Code: string(mwallet.CodeUpstreamTimeout)}, "upstream_timeout"},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault.Kind)+" "+tt.fault.Code, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			rec := newRecorder()
			c := sim.Client(mwallet.WithObserver(rec), mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond)).Client
			f := tt.fault
			f.Method, f.Path = http.MethodPost, "/v1/deposits"
			if err := sim.Faults.Inject(f); err != nil {
				t.Fatal(err)
			}
			_, err := deposits.New(c).Create(context.Background(), simulator.DefaultMemberExternalID,
				deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2", 6), Reference: "reason-1"})
			if err != nil {
				t.Fatal(err)
			}
			rec.check(t, sim)
			var got []string
			for _, e := range rec.events {
				if e.Event == "attempt" && e.Operation == "deposits.Create" {
					got = append(got, fmt.Sprintf("%d %q", e.Number, e.Retry))
				}
			}
			want := []string{fmt.Sprintf("1 %q", tt.reason), `2 ""`}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
		})
	}
}

// nilContexts is an Observer whose CallStart and AttemptStart return nil.
type nilContexts struct{ mwallet.NopObserver }

func (nilContexts) CallStart(context.Context, *mwallet.CallInfo) context.Context { return nil }

func (nilContexts) AttemptStart(context.Context, *mwallet.CallInfo, *mwallet.AttemptInfo) context.Context {
	return nil
}

// An Observer that returns nil contexts does not break calls: nil is taken
// as the context it was given.
func TestObserverNilContexts(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	c := sim.Client(mwallet.WithObserver(nilContexts{}))
	if _, err := c.Assets(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestObserverSeesClockSkew: a client whose clock is an hour behind the
// service's reports the measured offset once, from its first answer, and
// its write succeeds at the first attempt; a client in step reports none.
func TestObserverSeesClockSkew(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		offset time.Duration
		want   []string
	}{
		{-time.Hour, []string{"1h0m0s"}},
		{0, nil},
	} {
		t.Run(tt.offset.String(), func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			rec := newRecorder()
			c := sim.Client(mwallet.WithObserver(rec), mwallet.WithClockOffset(tt.offset), mwallet.WithLogger(slog.New(slog.DiscardHandler))).Client
			for i := range 2 {
				_, err := deposits.New(c).Create(context.Background(), simulator.DefaultMemberExternalID,
					deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2", 6), Reference: fmt.Sprintf("skew-%d", i)})
				if err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, e := range rec.events {
				if e.Event == "skew" {
					got = append(got, e.Retry)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ClockSkew reports (-want +got):\n%s", diff)
			}
		})
	}
}
