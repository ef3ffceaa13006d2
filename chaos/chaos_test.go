// Package chaos_test runs the SDK against the simulator through a TCP chaos
// proxy, Toxiproxy (github.com/Shopify/toxiproxy/v2, run in process), for
// the transport faults the simulator cannot stage itself: connections reset
// in either direction, stalls that only the attempt timeout ends, answers
// and requests cut after some bytes, answers and requests sliced into small
// packets, latency, a narrow link and a slow close. It lives in a module of
// its own so that Toxiproxy's dependencies stay out of the SDK's.
//
// Several goroutines share one client. Each logical write (a deposit, a QR
// payment through step-up, a card top-up) keeps one idempotency key from its
// first call to its last; after an error it is resent with that key as long
// as errors.Is(err, mwallet.ErrOutcomeUnknown) or nothing ran (NotSent), and
// given up on a definite failure. Once the toxics are gone every write still
// open is settled the same way. The audit then holds every write against
// the simulator's request journal and books: none executed twice, none
// answered as a success without running, none reported as a definite
// failure after running, none left open, every success an object the
// simulator has, every error carrying its key, and the ledger, the
// invariants and each member's balances as the answers say.
package chaos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

const asset = "USDT"

// toxic is one Toxiproxy toxic, in the JSON its API takes.
type toxic struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"` // upstream: client to service; downstream: service to client
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// phase is one setting of the proxy while the workers run. A flapping
// phase's toxics come and go every few milliseconds, and a limit_data
// toxic cuts at a new random byte each time it comes back.
type phase struct {
	name   string
	toxics []toxic
	flap   bool
	// down: the proxy stops listening (connections refused) while the
	// toxics are off, or for the whole phase when it does not flap.
	down bool
}

func tx(typ, stream string, toxicity float32, attrs map[string]any) toxic {
	return toxic{Type: typ, Stream: stream, Toxicity: toxicity, Attributes: attrs}
}

// phases are the faults, each in force for one slice of the run; the
// schedule goes through them twice, so each toxic comes and goes (flaps)
// while calls are in flight.
var phases = []phase{
	{name: "clean"},
	{name: "latency both ways", toxics: []toxic{
		tx("latency", "downstream", 1, map[string]any{"latency": 30, "jitter": 20}),
		tx("latency", "upstream", 1, map[string]any{"latency": 10, "jitter": 10})}},
	{name: "reset answers (RST)", toxics: []toxic{tx("reset_peer", "downstream", 0.35, map[string]any{"timeout": 0})}},
	{name: "reset requests (RST)", toxics: []toxic{tx("reset_peer", "upstream", 0.35, map[string]any{"timeout": 0})}},
	{name: "stall answers", toxics: []toxic{tx("timeout", "downstream", 0.3, map[string]any{"timeout": 0})}},
	{name: "stall requests", toxics: []toxic{tx("timeout", "upstream", 0.3, map[string]any{"timeout": 0})}},
	{name: "cut answers at 150 B", toxics: []toxic{tx("limit_data", "downstream", 0.5, map[string]any{"bytes": 150})}},
	{name: "cut answers at 400 B", toxics: []toxic{tx("limit_data", "downstream", 0.5, map[string]any{"bytes": 400})}},
	{name: "cut requests at 400 B", toxics: []toxic{tx("limit_data", "upstream", 0.5, map[string]any{"bytes": 400})}},
	{name: "sliced answers", toxics: []toxic{tx("slicer", "downstream", 1, map[string]any{"average_size": 12, "size_variation": 8, "delay": 50})}},
	{name: "sliced requests", toxics: []toxic{tx("slicer", "upstream", 1, map[string]any{"average_size": 12, "size_variation": 8, "delay": 50})}},
	{name: "narrow link (16 KB/s)", toxics: []toxic{tx("bandwidth", "downstream", 1, map[string]any{"rate": 16})}},
	{name: "slow close, reset after 40 ms", toxics: []toxic{
		tx("slow_close", "downstream", 1, map[string]any{"delay": 100}),
		tx("reset_peer", "downstream", 0.3, map[string]any{"timeout": 40})}},
	{name: "flapping: answers cut at random bytes", flap: true, toxics: []toxic{
		tx("limit_data", "downstream", 0.6, map[string]any{"bytes": 0})}},
	{name: "flapping: requests cut at random bytes, answers reset", flap: true, toxics: []toxic{
		tx("limit_data", "upstream", 0.5, map[string]any{"bytes": 0}),
		tx("reset_peer", "downstream", 0.2, map[string]any{"timeout": 0})}},
	{name: "proxy down (connection refused)", down: true},
	{name: "flapping: answers reset, then proxy down", flap: true, down: true, toxics: []toxic{
		tx("reset_peer", "downstream", 0.5, map[string]any{"timeout": 0})}},
}

// opKind is a kind of logical write.
type opKind string

const (
	opDeposit opKind = "deposit"
	opQR      opKind = "QR payment"
	opTopUp   opKind = "card top-up"
)

// op is one logical write and what the SDK said about it.
type op struct {
	kind   opKind
	member string
	key    string
	ref    string // deposit reference
	path   string // its endpoint, for the journal
	amount money.Amount

	mu        sync.Mutex
	stepUp    string // the completed challenge, once there is one
	calls     int
	unknown   int    // calls that ended ErrOutcomeUnknown
	notSent   int    // calls that ended with NotSent
	keyless   int    // errors without the op's key
	done      bool   // settled: succeeded or failed for good
	succeeded bool   // a 2xx
	replayed  bool   // the 2xx was a replay
	failed    string // the code of a definite failure
	id        string // the object the success named
	total     money.Amount
	lastErr   error
	windows   []callWindow
}

// callWindow is one call of an op: the simulator's request counter (the
// journal's sequence) when it began and ended, and how it ended.
type callWindow struct {
	from, to int64
	ended    string // "ok", "unknown", "not sent", "step-up", "definite", "other"
}

// world is the simulator, the proxy in front of it and the client that
// goes through the proxy.
type world struct {
	sim      *simulator.Simulator
	proxy    *toxiproxy.Proxy
	client   *mwclient.Client // through the proxy
	direct   *mwclient.Client // to the simulator itself, for setup
	members  []string
	cards    map[string]string       // member -> card id
	holdOf   map[string]money.Amount // member -> what one top-up holds
	baseline map[string][2]money.Amount
	attempts atomic.Int64
}

// attemptCounter counts the HTTP attempts of the client.
type attemptCounter struct {
	mwallet.NopObserver
	n *atomic.Int64
}

func (a attemptCounter) AttemptEnd(context.Context, *mwallet.CallInfo, *mwallet.AttemptInfo) {
	a.n.Add(1)
}

func newWorld(t *testing.T, nMembers int) *world {
	t.Helper()
	opts := []simulator.Option{simulator.WithSeed(38), simulator.WithoutFixtureMember()}
	w := &world{cards: map[string]string{}, holdOf: map[string]money.Amount{}, baseline: map[string][2]money.Amount{}}
	for i := 1; i <= nMembers; i++ {
		m := "chaos-" + strconv.Itoa(i)
		w.members = append(w.members, m)
		opts = append(opts, simulator.WithMember(simulator.MemberSeed{ExternalID: m, KYCLevel: 2, Balances: map[string]string{asset: "1000000"}}))
	}
	w.sim = simulator.MustNew(opts...)
	t.Cleanup(w.sim.Close)

	zerolog.SetGlobalLevel(zerolog.Disabled) // the toxics log at trace level
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	u, err := url.Parse(w.sim.URL())
	if err != nil {
		t.Fatal(err)
	}
	w.proxy = toxiproxy.NewProxy(server, "simulator", "127.0.0.1:0", u.Host)
	if err := w.proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.proxy.Stop)

	creds := mwallet.Credentials{ClientID: w.sim.Credentials().ClientID,
		APIKey: mwallet.Secret(w.sim.Credentials().APIKey), SigningKey: mwallet.Secret(w.sim.Credentials().SigningKey)}
	w.client, err = mwclient.New("http://"+w.proxy.Listen, creds,
		mwallet.WithClockSource(w.sim.Clock),
		// A connection per attempt, so each toxic's toxicity is drawn for
		// each attempt.
		mwallet.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}),
		mwallet.WithDefaultAttemptTimeout(400*time.Millisecond),
		mwallet.WithRetryBackoff(5*time.Millisecond, 40*time.Millisecond),
		mwallet.WithDefaultMaxAttempts(4),
		mwallet.WithRetryBudget(0, 1),
		mwallet.WithObserver(attemptCounter{n: &w.attempts}))
	if err != nil {
		t.Fatal(err)
	}
	w.direct = w.sim.Client()

	// Each member gets an active virtual card; the balances after that are
	// the baseline the books are held against.
	ctx := context.Background()
	for _, m := range w.members {
		app, err := w.direct.Cards.Apply(ctx, m, cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: asset, ClientKey: cards.NewClientKey()})
		if err != nil {
			t.Fatalf("apply for %s: %v", m, err)
		}
		if err := w.sim.Cards.ApproveApplication(app.ID); err != nil {
			t.Fatal(err)
		}
		got, err := w.direct.Cards.GetApplication(ctx, m, app.ID)
		if err != nil || got.CardID == "" {
			t.Fatalf("application %s: %+v %v", app.ID, got, err)
		}
		w.cards[m] = got.CardID
		est, err := w.direct.Cards.EstimateTopUp(ctx, m, got.CardID, cards.EstimateParams{Amount: money.MustParse("20", 6)})
		if err != nil {
			t.Fatal(err)
		}
		w.holdOf[m] = est.CustomerTotal
		avail, locked, err := w.sim.Members.Balance(m, asset)
		if err != nil {
			t.Fatal(err)
		}
		w.baseline[m] = [2]money.Amount{avail, locked}
	}
	return w
}

// setToxics replaces the proxy's toxics with ts.
func (w *world) setToxics(ts []toxic) error {
	w.proxy.Toxics.ResetToxics(context.Background())
	for i, x := range ts {
		x.Name = fmt.Sprintf("%s_%s_%d", x.Type, x.Stream, i)
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		if _, err := w.proxy.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
			return fmt.Errorf("toxic %s: %w", b, err)
		}
	}
	return nil
}

// flap sets ph's toxics for 15 ms and none for 10 ms (the proxy down then,
// for a phase that says so), over and over until stop is closed, each
// limit_data cutting at a new random byte (0 to 3 KB).
func (w *world) flap(ph phase, seed uint64, stop <-chan struct{}) error {
	rng := rand.New(rand.NewPCG(seed, 2))
	defer w.up()
	for {
		on := make([]toxic, len(ph.toxics))
		for i, x := range ph.toxics {
			on[i] = x
			if x.Type == "limit_data" {
				on[i].Attributes = map[string]any{"bytes": rng.IntN(3000)}
			}
		}
		for _, set := range [][]toxic{on, nil} {
			if set == nil && ph.down {
				w.proxy.Stop()
			} else if err := w.up(); err != nil {
				return err
			}
			if err := w.setToxics(set); err != nil {
				return err
			}
			d := 15 * time.Millisecond
			if set == nil {
				d = 10 * time.Millisecond
			}
			select {
			case <-stop:
				return nil
			case <-time.After(d):
			}
		}
	}
}

// up starts the proxy again (on the same address) if it is stopped.
func (w *world) up() error {
	if err := w.proxy.Start(); err != nil && !errors.Is(err, toxiproxy.ErrProxyAlreadyStarted) {
		return err
	}
	return nil
}

// call makes one call of o through the proxy, with o's key, and records
// what came back; it reports whether o is settled.
func (w *world) call(o *op) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	o.mu.Lock()
	o.calls++
	o.windows = append(o.windows, callWindow{from: w.sim.Stats().Requests})
	opts := []mwallet.CallOption{mwallet.WithIdempotencyKey(o.key)}
	if o.stepUp != "" {
		opts = append(opts, mwallet.WithStepUp(o.stepUp))
	}
	o.mu.Unlock()
	var (
		err      error
		id       string
		replayed bool
		total    money.Amount
	)
	switch o.kind {
	case opDeposit:
		var d *deposits.Deposit
		d, err = w.client.Deposits.Create(ctx, o.member, deposits.CreateParams{Asset: asset, Amount: o.amount, Reference: o.ref}, opts...)
		if err == nil {
			id, replayed, total = d.ID, d.Response.Replayed, d.Amount
		}
	case opQR:
		var p *qrpay.Order
		p, err = w.client.QRPay.Pay(ctx, o.member, qrpay.PayParams{CodeValue: sampleqr.PromptPay}, opts...)
		if err == nil {
			id, replayed, total = p.ID, p.Response.Replayed, p.CustomerTotal
		}
	case opTopUp:
		var u *cards.TopUp
		u, err = w.client.Cards.TopUp(ctx, o.member, w.cards[o.member], cards.TopUpParams{Amount: o.amount}, opts...)
		if err == nil {
			id, replayed = u.ID, u.Response.Replayed
		}
	}
	// The end user completes a step-up challenge on the hosted screen (not
	// through the proxy); the next call carries it.
	su, isStepUp := mwallet.AsStepUp(err)
	if isStepUp && w.sim.StepUp.Complete(su.ChallengeID) != nil {
		isStepUp = false
	}
	end := w.sim.Stats().Requests
	o.mu.Lock()
	defer o.mu.Unlock()
	win := &o.windows[len(o.windows)-1]
	win.to, win.ended = end, "other"
	o.lastErr = err
	if err == nil {
		win.ended = "ok"
		o.done, o.succeeded, o.replayed, o.id, o.total = true, true, replayed, id, total
		return true
	}
	if mwallet.IdempotencyKeyOf(err) != o.key {
		o.keyless++
	}
	var te *mwallet.TransportError
	var apiErr *mwallet.Error
	switch {
	case errors.Is(err, mwallet.ErrOutcomeUnknown):
		win.ended = "unknown"
		o.unknown++
	case errors.As(err, &te) && te.NotSent:
		win.ended = "not sent"
		o.notSent++
	case isStepUp:
		win.ended = "step-up"
		o.stepUp = su.ChallengeID
	case errors.As(err, &apiErr) && (apiErr.Retry() == mwallet.RetryNewKey || apiErr.Retry() == mwallet.RetryNever):
		win.ended = "definite"
		o.done, o.failed = true, string(apiErr.Code)
		return true
	}
	// Unknown, not sent, step-up, rate_limited and the like: resend with
	// the key.
	return false
}

// misreported returns the call during which the execution numbered seq in
// the journal happened, when that call said something other than success
// or unknown and no call before it said unknown (a request of an earlier
// call whose outcome was unknown may still arrive later).
func (o *op) misreported(seq int64) (callWindow, bool) {
	for _, c := range o.windows {
		if seq <= c.from {
			return c, true // between calls, with no unknown before
		}
		if seq <= c.to {
			return c, c.ended != "ok" && c.ended != "unknown"
		}
		if c.ended == "unknown" {
			return callWindow{}, false
		}
	}
	return callWindow{}, true
}

// tally is what the run counts.
type tally struct {
	ops, calls, attempts                          int
	unknown, notSent, keyless                     int
	opsUnknown, replayedAfterUnknown, ranOnResend int
	succeeded, failed, open                       int
	duplicates, lostSuccess, lostFailure          int
	lostNotSent                                   int
	booksOK                                       bool
	byKind                                        map[opKind]int
}

func TestChaosProxy(t *testing.T) {
	const (
		workers     = 4
		opsPerPhase = 24 // per phase and pass, shared by the workers
		passes      = 2
		members     = 6
	)
	w := newWorld(t, members)
	rng := rand.New(rand.NewPCG(38, 1))
	var (
		opsMu sync.Mutex
		ops   []*op
	)
	newOp := func(i int) *op {
		m := w.members[rng.IntN(len(w.members))]
		o := &op{member: m, key: mwallet.NewIdempotencyKey()}
		switch i % 3 {
		case 0:
			o.kind, o.path = opDeposit, "/v1/deposits"
			o.amount = money.MustParse(strconv.Itoa(1+rng.IntN(40)), 6)
			o.ref = "chaos-" + strconv.Itoa(i)
		case 1:
			o.kind, o.path = opQR, "/v1/qrpay/payments"
		case 2:
			o.kind, o.path = opTopUp, "/v1/cards/"+w.cards[m]+"/topups"
			o.amount = money.MustParse("20", 6)
		}
		return o
	}

	// The run: for each phase (twice over), the toxics are set and the
	// workers share that phase's writes, each write called at most six
	// times while the phase lasts.
	perPhase := map[string]*[4]int{} // phase -> calls, HTTP attempts, unknown, not sent
	n := 0
	for pass := 0; pass < passes; pass++ {
		for _, ph := range phases {
			stopFlap := make(chan struct{})
			flapDone := make(chan error, 1)
			switch {
			case ph.flap:
				seed := uint64(n)
				go func() { flapDone <- w.flap(ph, seed, stopFlap) }()
			case ph.down:
				w.proxy.Stop()
				flapDone <- nil
			default:
				flapDone <- w.setToxics(ph.toxics)
			}
			attemptsBefore := w.attempts.Load()
			// The simulator's clock moves a minute per phase: the service's
			// per-minute quotas start afresh, tokens age and get renewed.
			w.sim.Clock.Advance(time.Minute)
			work := make(chan *op)
			var wg sync.WaitGroup
			var calls, unknown, notSent atomic.Int64
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for o := range work {
						for range 6 {
							calls.Add(1)
							if w.call(o) {
								break
							}
						}
					}
				}()
			}
			batch := make([]*op, 0, opsPerPhase)
			for range opsPerPhase {
				batch = append(batch, newOp(n))
				n++
			}
			for _, o := range batch {
				work <- o
			}
			close(work)
			wg.Wait()
			close(stopFlap)
			if err := <-flapDone; err != nil {
				t.Fatal(err)
			}
			if err := w.up(); err != nil {
				t.Fatal(err)
			}
			for _, o := range batch {
				unknown.Add(int64(o.unknown))
				notSent.Add(int64(o.notSent))
			}
			c := perPhase[ph.name]
			if c == nil {
				c = &[4]int{}
				perPhase[ph.name] = c
			}
			c[0] += int(calls.Load())
			c[1] += int(w.attempts.Load() - attemptsBefore)
			c[2] += int(unknown.Load())
			c[3] += int(notSent.Load())
			opsMu.Lock()
			ops = append(ops, batch...)
			opsMu.Unlock()
		}
	}

	// Settle: without toxics, every write still open is resent with its
	// key until an answer settles it.
	if err := w.setToxics(nil); err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		for i := 0; i < 10 && !o.done; i++ {
			w.call(o)
		}
	}

	tl := w.audit(t, ops)
	var b strings.Builder
	fmt.Fprintf(&b, "\nchaos proxy run: %d phases x %d passes, %d goroutines sharing one client\n\n", len(phases), passes, workers)
	fmt.Fprintf(&b, "| phase | calls | HTTP attempts | outcome unknown | not sent |\n|---|---|---|---|---|\n")
	for _, ph := range phases {
		c := perPhase[ph.name]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", ph.name, c[0], c[1], c[2], c[3])
	}
	fmt.Fprintf(&b, "\n| audit | count |\n|---|---|\n")
	row := func(name string, v any) { fmt.Fprintf(&b, "| %s | %v |\n", name, v) }
	row(fmt.Sprintf("operations (deposits %d, QR payments through step-up %d, card top-ups %d)", tl.byKind[opDeposit], tl.byKind[opQR], tl.byKind[opTopUp]), tl.ops)
	row("SDK calls (first calls and resends with the same key)", tl.calls)
	row("HTTP attempts", tl.attempts)
	row("calls ended outcome unknown (ErrOutcomeUnknown)", tl.unknown)
	row("operations that met an unknown outcome", tl.opsUnknown)
	row("  of which had run: the resend replayed", tl.replayedAfterUnknown)
	row("  of which had not run: the resend ran it", tl.ranOnResend)
	row("calls ended not sent (NotSent)", tl.notSent)
	row("errors without the operation's key", tl.keyless)
	row("succeeded", tl.succeeded)
	row("failed for good (definite answer)", tl.failed)
	row("left open", tl.open)
	row("duplicates (executed twice)", tl.duplicates)
	row("lost: answered success, not executed", tl.lostSuccess)
	row("lost: executed, reported a definite failure", tl.lostFailure)
	row("lost: executed during a call that said not sent (or another non-success), nothing unknown before", tl.lostNotSent)
	row("books (ledger, invariants, balances)", map[bool]string{true: "balanced", false: "WRONG"}[tl.booksOK])
	t.Log(b.String())
}

// audit holds every write against the journal and the books.
func (w *world) audit(t *testing.T, ops []*op) tally {
	t.Helper()
	tl := tally{ops: len(ops), attempts: int(w.attempts.Load()), byKind: map[opKind]int{}, booksOK: true}
	// Executions per key: a 2xx that is not a replay. The proxy cuts
	// answers the simulator gave in full, so the journal sees them all.
	ran := map[string][]int64{} // key and path -> the journal's sequence of each execution
	for _, r := range w.sim.Requests.List() {
		if r.IdempotencyKey != "" && r.Method == http.MethodPost && r.Status >= 200 && r.Status <= 299 && !r.Replay {
			k := r.IdempotencyKey + " " + r.Path
			ran[k] = append(ran[k], r.Seq)
		}
	}
	if st := w.sim.Stats(); st.Requests > int64(st.JournalEntries) {
		t.Fatalf("the journal lost requests (%d served, %d kept): the audit needs them all", st.Requests, st.JournalEntries)
	}
	state := w.sim.State()
	exists := map[string]bool{}
	for _, list := range [][]simulator.ObjectSnapshot{state.Deposits, state.QROrders, state.CardTopUps} {
		for _, o := range list {
			exists[o.ID] = true
		}
	}
	total := map[string]money.Amount{}
	locked := map[string]money.Amount{}
	for _, m := range w.members {
		total[m] = add(t, w.baseline[m][0], w.baseline[m][1])
		locked[m] = w.baseline[m][1]
	}
	for _, o := range ops {
		tl.byKind[o.kind]++
		tl.calls += o.calls
		tl.unknown += o.unknown
		tl.notSent += o.notSent
		tl.keyless += o.keyless
		seqs := ran[o.key+" "+o.path]
		executed := len(seqs)
		for _, seq := range seqs {
			if c, bad := o.misreported(seq); bad {
				tl.lostNotSent++
				t.Errorf("%s %s (key %s) executed (request %d) during a call that ended %q (requests %d to %d), with no unknown outcome before",
					o.kind, o.member, o.key, seq, c.ended, c.from, c.to)
			}
		}
		if executed > 1 {
			tl.duplicates++
			t.Errorf("%s %s (key %s) executed %d times", o.kind, o.member, o.key, executed)
		}
		switch {
		case o.succeeded:
			tl.succeeded++
			if executed == 0 || !exists[o.id] {
				tl.lostSuccess++
				t.Errorf("%s %s (key %s) answered success (%s), executed %d times", o.kind, o.member, o.key, o.id, executed)
			}
		case o.failed != "":
			tl.failed++
			if executed > 0 {
				tl.lostFailure++
				t.Errorf("%s %s (key %s) reported %s, but executed", o.kind, o.member, o.key, o.failed)
			}
		default:
			tl.open++
			t.Errorf("%s %s (key %s) left open after %d calls: %v", o.kind, o.member, o.key, o.calls, o.lastErr)
		}
		if o.unknown > 0 {
			tl.opsUnknown++
			if o.succeeded && o.replayed {
				tl.replayedAfterUnknown++
			} else if o.succeeded {
				tl.ranOnResend++
			}
		}
		if !o.succeeded {
			continue
		}
		switch o.kind {
		case opDeposit:
			if !o.total.Equal(o.amount) {
				t.Errorf("deposit %s credited %s, asked %s", o.id, o.total, o.amount)
			}
			total[o.member] = add(t, total[o.member], o.amount)
		case opQR:
			locked[o.member] = add(t, locked[o.member], o.total)
		case opTopUp:
			locked[o.member] = add(t, locked[o.member], w.holdOf[o.member])
		}
	}
	if tl.keyless > 0 {
		t.Errorf("%d errors did not carry their operation's key", tl.keyless)
	}
	for _, check := range []func() error{w.sim.CheckLedger, w.sim.CheckInvariants} {
		if err := check(); err != nil {
			tl.booksOK = false
			t.Error(err)
		}
	}
	var names []string
	names = append(names, w.members...)
	sort.Strings(names)
	for _, m := range names {
		avail, lck, err := w.sim.Members.Balance(m, asset)
		if err != nil {
			t.Fatal(err)
		}
		if got := add(t, avail, lck); !got.Equal(total[m]) || !lck.Equal(locked[m]) {
			tl.booksOK = false
			t.Errorf("%s holds %s (locked %s), the answers say %s (locked %s)", m, got, lck, total[m], locked[m])
		}
	}
	return tl
}

func add(t *testing.T, a, b money.Amount) money.Amount {
	t.Helper()
	s, err := a.Add(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
