package mwallet_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// firstEnd is how the first attempt of a keyed write ends.
type firstEnd string

const (
	// The attempt reaches the service and is answered a refusal that
	// nothing ran (429 rate_limited, Retry-After 1 s); the client resends.
	firstAnswered firstEnd = "sent, answered"
	// The attempt executes and its answer is lost (drop_after: the HTTP/2
	// stream is reset with INTERNAL_ERROR); the client resends.
	firstLost firstEnd = "sent, lost"
	// The attempt is refused unprocessed (drop_before: REFUSED_STREAM); the
	// client resends.
	firstNotSent firstEnd = "not sent"
	// No attempt leaves: the write's first token request fails.
	firstNoToken firstEnd = "not sent (first token request)"
)

// nextFailure is what fails after the first attempt. The token request is
// the renewal of a token that expired meanwhile, or, for firstNoToken, the
// write's first token request.
type nextFailure string

const (
	nextTokenRefused     nextFailure = "token request refused"      // answered invalid_credentials
	nextTokenHangs       nextFailure = "token request hangs"        // held until the call's deadline passes
	nextTokenRateLimited nextFailure = "token request rate limited" // answered rate_limited until the exchange's attempts run out
	nextKeyDisabled      nextFailure = "Key disabled"               // the resend meets invalid_token, the renewal invalid_credentials
	nextStepUp           nextFailure = "step-up required"           // the resend is answered step_up_required
	nextCtxCancelled     nextFailure = "context cancelled"          // the caller cancels before the resend
	nextRetriesExhausted nextFailure = "retries exhausted"          // every resend is refused unprocessed until the attempts run out
)

var (
	allFirsts = []firstEnd{firstAnswered, firstLost, firstNotSent, firstNoToken}
	allNexts  = []nextFailure{nextTokenRefused, nextTokenHangs, nextTokenRateLimited, nextKeyDisabled, nextStepUp, nextCtxCancelled, nextRetriesExhausted}
)

// applies reports whether the pair is a row: with no token, what fails is
// the first token request (or the context while it is pending).
func applies(f firstEnd, n nextFailure) bool {
	return f != firstNoToken || (n != nextStepUp && n != nextRetriesExhausted)
}

// classResult is what a row observes. Kind is "outcome unknown"
// (*TransportError, NotSent false), "not sent" (*TransportError, NotSent
// true) or "answered" (an *Error on top); Code and Advice are those of the
// first *Error in the chain ("-" when none); Ran is how many times the
// service executed the write before the resend; Resend is what the resend
// with the key got.
type classResult struct {
	Kind   string
	Key    bool // IdempotencyKeyOf and the top error's own field give the call's key
	Code   string
	Advice string
	Ran    int
	Resend string
}

// want is the rule, row by row: a write whose first attempt ran is
// unknown whatever failed next, and its advice is to resend with the same
// key; one that never ran is not sent (or answered, when the last thing
// was the write's own answer), with the advice of the code.
func (n nextFailure) want(f firstEnd, w writeCall) classResult {
	ran := f == firstLost
	r := classResult{Kind: "not sent", Key: true, Code: "-", Advice: "-", Resend: "executed"}
	switch n {
	case nextTokenRefused, nextKeyDisabled:
		r.Code = string(mwallet.CodeInvalidCredentials)
	case nextTokenRateLimited:
		r.Code = string(mwallet.CodeRateLimited)
	case nextStepUp:
		r.Code, r.Kind = string(mwallet.CodeStepUpRequired), "answered"
	case nextCtxCancelled:
		if f == firstAnswered {
			r.Code = string(mwallet.CodeRateLimited) // the last answer, kept with the context's error
		}
	}
	if r.Code != "-" {
		r.Advice = mwallet.Code(r.Code).Retry().String()
	}
	if ran {
		r.Kind, r.Ran = "outcome unknown", 1
		if r.Code != "-" && r.Code != string(mwallet.CodeStepUpRequired) {
			r.Advice = mwallet.RetrySameKey.String()
		}
		if !w.noRecord {
			r.Resend = "replayed"
		}
	}
	return r
}

// firstAttemptHook runs after, once the first attempt of the call with key
// has ended (answer read, retry decided), before the client resends.
type firstAttemptHook struct {
	mwallet.NopObserver
	key   string
	after func()
	once  sync.Once
}

func (h *firstAttemptHook) AttemptEnd(_ context.Context, c *mwallet.CallInfo, a *mwallet.AttemptInfo) {
	if c.IdempotencyKey == h.key && a.Number == 1 {
		h.once.Do(h.after)
	}
}

// classRow is one row's world: its simulator, its write and what it armed.
type classRow struct {
	t      *testing.T
	sim    *simulator.Simulator
	w      writeCall
	path   string
	ids    map[string]string
	key    string
	stepUp string // the completed challenge the call carries
	ctx    *mwallet.EndingCtx
	hold   chan struct{}
	held   chan string
}

func (r *classRow) inject(f simulator.Fault) {
	r.t.Helper()
	if err := r.sim.Faults.Inject(f); err != nil {
		r.t.Fatal(err)
	}
}

// expireToken moves the clock past the access token's life, so the next
// attempt renews it first.
func (r *classRow) expireToken(f firstEnd) {
	if f != firstNoToken {
		r.sim.Clock.Advance(31 * time.Minute)
	}
}

// holdToken holds every token request until the row ends, and ends the
// call's context with err once one is held.
func (r *classRow) holdToken(err error) {
	r.inject(simulator.Fault{Path: "/v1/connect/token", Kind: simulator.FaultDelay, Hold: r.hold, Held: r.held, Count: 10})
	go func() {
		if _, ok := <-r.held; ok {
			r.ctx.End(err)
		}
	}()
}

// arm makes n fail next.
func (r *classRow) arm(f firstEnd, n nextFailure) {
	const token = "/v1/connect/token"
	switch n {
	case nextTokenRefused:
		r.expireToken(f)
		r.inject(simulator.Fault{Path: token, Kind: simulator.FaultError, Code: string(mwallet.CodeInvalidCredentials), Count: 10})
	case nextTokenHangs:
		r.expireToken(f)
		r.holdToken(context.DeadlineExceeded)
	case nextTokenRateLimited:
		r.expireToken(f)
		r.inject(simulator.Fault{Path: token, Kind: simulator.FaultError, Code: string(mwallet.CodeRateLimited), Count: 10})
	case nextKeyDisabled:
		if err := r.sim.Keys.Set(r.sim.Credentials().ClientID, simulator.KeySettings{Disabled: simulator.Bool(true)}); err != nil {
			r.t.Fatal(err)
		}
	case nextStepUp:
		r.inject(simulator.Fault{Method: http.MethodPost, Path: r.path, Kind: simulator.FaultError, Code: string(mwallet.CodeStepUpRequired)})
	case nextCtxCancelled:
		if f == firstNoToken {
			r.holdToken(context.Canceled)
		} else {
			r.ctx.End(context.Canceled)
		}
	case nextRetriesExhausted:
		r.inject(simulator.Fault{Method: http.MethodPost, Path: r.path, Kind: simulator.FaultDropBefore, Count: 10})
	}
}

// executions counts the requests with the row's key that executed: a 2xx
// that is not a replay, or a fault that acts after the handler.
func (r *classRow) executions() int {
	n := 0
	for _, q := range r.sim.Requests.List() {
		if q.IdempotencyKey != r.key || q.Method != http.MethodPost || q.Path != r.path {
			continue
		}
		if (q.Status >= 200 && q.Status <= 299 && !q.Replay) || q.Fault == string(simulator.FaultDropAfter) || q.Fault == string(simulator.FaultErrorAfter) {
			n++
		}
	}
	return n
}

// challenge gets a completed step-up challenge for the row's key.
func (r *classRow) challenge(cl *mwclient.Client, opts ...mwallet.CallOption) string {
	r.t.Helper()
	err := r.w.call(context.Background(), cl, r.ids, append(opts, mwallet.WithIdempotencyKey(r.key))...)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		r.t.Fatalf("call without a completed challenge: %v, want step_up_required", err)
	}
	if err := r.sim.StepUp.Complete(su.ChallengeID); err != nil {
		r.t.Fatal(err)
	}
	return su.ChallengeID
}

// resend lifts every fault and the disabled Key, and sends the write again
// with its key from a fresh client, completing a new challenge when the
// one it carried expired meanwhile. It reports whether the answer was a
// replay.
func (r *classRow) resend() bool {
	r.t.Helper()
	if err := r.sim.Faults.Clear(); err != nil {
		r.t.Fatal(err)
	}
	if err := r.sim.Keys.Set(r.sim.Credentials().ClientID, simulator.KeySettings{Disabled: simulator.Bool(false)}); err != nil {
		r.t.Fatal(err)
	}
	cl := r.sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	var resp *mwallet.Response
	opts := []mwallet.CallOption{mwallet.WithIdempotencyKey(r.key), mwallet.WithResponse(&resp)}
	send := func(stepUp string) error {
		o := opts
		if stepUp != "" {
			o = append(o[:len(o):len(o)], mwallet.WithStepUp(stepUp))
		}
		return r.w.call(context.Background(), cl, r.ids, o...)
	}
	err := send(r.stepUp)
	if su, ok := mwallet.AsStepUp(err); ok && r.w.stepUp {
		if err := r.sim.StepUp.Complete(su.ChallengeID); err != nil {
			r.t.Fatal(err)
		}
		err = send(su.ChallengeID)
	}
	if err != nil {
		r.t.Fatalf("resend with the key: %v", err)
	}
	return resp.Replayed
}

// runClassRow runs one row: the write of op, its first attempt ending as
// f, then n failing.
func runClassRow(t *testing.T, w writeCall, f firstEnd, n nextFailure) classResult {
	sim := simtest.Start(t, simulator.WithHTTP2())
	setupClient := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	r := &classRow{t: t, sim: sim, w: w, key: mwallet.NewIdempotencyKey(), ctx: mwallet.NewEndingCtx(),
		hold: make(chan struct{}), held: make(chan string, 10)}
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(r.hold) }) })
	r.path, r.ids = w.setup(t, sim, setupClient)
	if w.stepUp {
		r.stepUp = r.challenge(setupClient)
	}

	hook := &firstAttemptHook{key: r.key, after: func() { r.arm(f, n) }}
	cl := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond), mwallet.WithObserver(hook))
	if f == firstNoToken {
		r.arm(f, n)
	} else {
		if _, err := cl.Assets(context.Background()); err != nil { // the access token, before the write
			t.Fatal(err)
		}
		kind := map[firstEnd]simulator.FaultKind{firstAnswered: simulator.FaultError, firstLost: simulator.FaultDropAfter, firstNotSent: simulator.FaultDropBefore}[f]
		fault := simulator.Fault{Method: http.MethodPost, Path: r.path, Kind: kind}
		if f == firstAnswered {
			fault.Code = string(mwallet.CodeRateLimited)
		}
		r.inject(fault)
	}
	opts := []mwallet.CallOption{mwallet.WithIdempotencyKey(r.key)}
	if r.stepUp != "" {
		opts = append(opts, mwallet.WithStepUp(r.stepUp))
	}
	err := w.call(r.ctx, cl, r.ids, opts...)
	release.Do(func() { close(r.hold) })
	if err == nil {
		t.Fatal("the call succeeded")
	}
	got := classResult{Code: "-", Advice: "-", Ran: r.executions()}
	var te *mwallet.TransportError
	var apiErr *mwallet.Error
	switch {
	case errors.As(err, &te) && te.NotSent:
		got.Kind = "not sent"
	case errors.As(err, &te):
		got.Kind = "outcome unknown"
	case errors.As(err, &apiErr):
		got.Kind = "answered"
	default:
		got.Kind = fmt.Sprintf("%T", err)
	}
	got.Key = mwallet.IdempotencyKeyOf(err) == r.key
	if te != nil {
		got.Key = got.Key && te.IdempotencyKey == r.key && te.Path == r.path
	}
	if errors.As(err, &apiErr) {
		got.Code, got.Advice = string(apiErr.Code), apiErr.Retry().String()
		got.Key = got.Key && apiErr.IdempotencyKey == r.key
	}

	// What following the error never does: a new key (or giving up) for a
	// write that ran.
	unknown := errors.Is(err, mwallet.ErrOutcomeUnknown)
	if got.Ran > 0 && (!unknown || got.Advice == mwallet.RetryNewKey.String() || got.Advice == mwallet.RetryNever.String()) {
		t.Errorf("the write ran, but the error is %v (outcome unknown %v, advice %s)", err, unknown, got.Advice)
	}
	// The later cause stays in the chain.
	switch n {
	case nextTokenHangs:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("errors.Is(err, context.DeadlineExceeded) is false: %v", err)
		}
	case nextCtxCancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("errors.Is(err, context.Canceled) is false: %v", err)
		}
	case nextRetriesExhausted:
		if te == nil || te.Attempts != 3 {
			t.Errorf("err = %v, want a *TransportError after 3 attempts", err)
		}
	}
	if su, ok := mwallet.AsStepUp(err); ok && su.IdempotencyKey != r.key {
		t.Errorf("AsStepUp(err).IdempotencyKey = %q, want %q", su.IdempotencyKey, r.key)
	}
	if te != nil && !strings.Contains(err.Error(), r.key) {
		t.Errorf("the error's text does not name the key: %v", err)
	}

	got.Resend = "executed"
	if r.resend() {
		got.Resend = "replayed"
	}
	if total := r.executions(); !w.noRecord && total != 1 {
		t.Errorf("the write executed %d times in all, want exactly once", total)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
	return got
}

// TestKeyedWriteOutcomeClass: every keyed write of the SDK's route table
// (generated from it: TestEveryWriteOfTheRouteTable), its first attempt
// answered, lost after executing, or not sent, then each thing that can
// fail next: the error says whether the outcome is unknown (exactly when
// the write ran), carries the key, keeps the later cause in its chain, and
// advises a resend with the same key whenever the write ran; the resend
// with that key replays exactly when the write ran and the service keeps
// its key; the write runs once in all, and the books balance.
func TestKeyedWriteOutcomeClass(t *testing.T) {
	t.Parallel()
	ops := keyedOps(t)
	type cell struct {
		f firstEnd
		n nextFailure
	}
	var mu sync.Mutex
	seen := map[cell]map[classResult][]string{}
	rows := 0
	t.Cleanup(func() {
		// One line per cell: the result and how many endpoints met it.
		var b strings.Builder
		fmt.Fprintf(&b, "%d rows (%d keyed writes x %d first attempts x %d next failures, less the %d that do not apply)\n",
			rows, len(ops), len(allFirsts), len(allNexts), len(ops)*len(allFirsts)*len(allNexts)-rows)
		fmt.Fprintf(&b, "| first attempt | then | error | key | code in chain | advice (Retry) | ran | resend with the key | writes |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, f := range allFirsts {
			for _, n := range allNexts {
				results := seen[cell{f, n}]
				var keys []classResult
				for res := range results {
					keys = append(keys, res)
				}
				sort.Slice(keys, func(i, j int) bool { return len(results[keys[i]]) > len(results[keys[j]]) })
				for _, res := range keys {
					who := fmt.Sprintf("all %d", len(results[res]))
					if len(results[res]) < len(ops) {
						sort.Strings(results[res])
						who = strings.Join(results[res], ", ")
					}
					fmt.Fprintf(&b, "| %s | %s | %s | %v | %s | %s | %d | %s | %s |\n", f, n, res.Kind, res.Key, res.Code, res.Advice, res.Ran, res.Resend, who)
				}
			}
		}
		t.Log("\n" + b.String())
	})
	for _, op := range ops {
		w := writes[op]
		for _, f := range allFirsts {
			for _, n := range allNexts {
				if !applies(f, n) {
					continue
				}
				rows++
				t.Run(op+"/"+string(f)+"/"+string(n), func(t *testing.T) {
					t.Parallel()
					got := runClassRow(t, w, f, n)
					mu.Lock()
					c := cell{f, n}
					if seen[c] == nil {
						seen[c] = map[classResult][]string{}
					}
					seen[c][got] = append(seen[c][got], op)
					mu.Unlock()
					if diff := cmp.Diff(n.want(f, w), got); diff != "" {
						t.Errorf("(-want +got):\n%s", diff)
					}
				})
			}
		}
	}
}
