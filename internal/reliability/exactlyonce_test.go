package reliability_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
)

// businessPaths are where the faults strike: every money-moving endpoint
// and the reads the flows make. The token exchange is spared, so the token
// quota is not what the test measures.
var businessPaths = []string{"/v1/deposits", "/v1/qrpay/*", "/v1/cards/*", "/v1/remittances*"}

// faultPlan arms random faults on the business paths: about 10% of writes
// are dropped after they executed, 4% answered 502 and 4% answered 504
// without executing, 2% dropped before executing, 5% delayed.
func faultPlan(sim *simulator.Simulator) error {
	for _, p := range businessPaths {
		for _, f := range []simulator.Fault{
			{Method: "POST", Path: p, Kind: simulator.FaultDropAfter, OneIn: 10},
			{Path: p, Kind: simulator.FaultError, Status: 502, OneIn: 25},
			{Path: p, Kind: simulator.FaultError, Status: 504, OneIn: 25},
			{Path: p, Kind: simulator.FaultDropBefore, OneIn: 50},
			{Path: p, Kind: simulator.FaultDelay, DelayMS: 2, OneIn: 20},
		} {
			if err := sim.Faults.Inject(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// ledger tracks one expectation per member: what the member holds in total
// (available + locked) and what is locked, computed from the outcomes the
// clients were told, independently of the simulator's books.
type expectation struct {
	total, locked money.Amount
}

func expect(w *world, outs []outcome) map[string]*expectation {
	exp := map[string]*expectation{}
	for _, m := range w.members {
		exp[m] = &expectation{total: w.seeded[m], locked: money.Zero(6)}
	}
	for _, o := range outs {
		e := exp[o.member]
		if !o.credit.IsZero() {
			e.total = mustAdd(e.total, o.credit)
		}
		if !o.charge.IsZero() {
			e.total = mustSub(e.total, o.charge)
		}
		if !o.hold.IsZero() {
			e.locked = mustAdd(e.locked, o.hold)
		}
	}
	return exp
}

func mustAdd(a, b money.Amount) money.Amount {
	v, err := a.Add(b)
	if err != nil {
		panic(err)
	}
	return v
}

func mustSub(a, b money.Amount) money.Amount {
	v, err := a.Sub(b)
	if err != nil {
		panic(err)
	}
	return v
}

// stats are the counts a run reports.
type stats struct {
	ops        map[opKind]int
	failed     map[string]int // definite business failures by code
	requests   int
	faults     map[string]int
	replays    int
	resends    int // resends by the caller after an unknown outcome
	sdkRetries int // HTTP attempts beyond the first inside the SDK, on the final calls
	stepUps    int
	timeouts   int // upstream timeouts played on accepted objects
}

func (s stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "operations:")
	total := 0
	for _, k := range allKinds {
		fmt.Fprintf(&b, " %s=%d", k, s.ops[k])
		total += s.ops[k]
	}
	fmt.Fprintf(&b, " (total %d)", total)
	if len(s.failed) > 0 {
		fmt.Fprintf(&b, "; definite failures %v", s.failed)
	}
	fmt.Fprintf(&b, "\nrequests served: %d; faults injected:", s.requests)
	var kinds []string
	for k := range s.faults {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, " %s=%d", k, s.faults[k])
	}
	fmt.Fprintf(&b, "\nidempotent replays: %d; SDK retries: %d; caller resends after unknown outcomes: %d; step-ups completed: %d; upstream timeouts played: %d",
		s.replays, s.sdkRetries, s.resends, s.stepUps, s.timeouts)
	return b.String()
}

// newClients returns n clients of w's simulator. Each exchanges its token
// once; they are reused across workloads, since the simulator's token
// quota (20 exchanges a minute) follows its clock, which stands still here.
func newClients(w *world, n int, opts ...mwallet.Option) []*mwclient.Client {
	out := make([]*mwclient.Client, n)
	for i := range out {
		out[i] = w.sim.Client(clientOpts(opts...)...)
	}
	return out
}

// workload runs ops operations of a random mix on w from the clients
// concurrently, each with its own generator seeded from seed.
func workload(t testing.TB, w *world, seed uint64, clients []*mwclient.Client, ops int) ([]outcome, stats) {
	t.Helper()
	st := stats{ops: map[opKind]int{}, failed: map[string]int{}, faults: map[string]int{}}
	var (
		mu   sync.Mutex
		outs []outcome
		errs []string
		wg   sync.WaitGroup
	)
	workers := len(clients)
	for i := 0; i < workers; i++ {
		n := ops / workers
		if i < ops%workers {
			n++
		}
		wg.Add(1)
		go func(i, n int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			r := &runner{w: w, c: clients[i]}
			ctx := context.Background()
			var mine []outcome
			var failures []string
			timeouts := 0
			for j := 0; j < n; j++ {
				member := w.members[rng.IntN(len(w.members))]
				kind := allKinds[rng.IntN(len(allKinds))]
				var o outcome
				var err error
				switch kind {
				case opDeposit:
					o, err = r.deposit(ctx, member, fmt.Sprintf("rel-%d-%d-%d", seed, i, j), usdt(strconv.Itoa(1+rng.IntN(50))))
				case opQR:
					o, err = r.qrPay(ctx, member, strconv.Itoa(50+rng.IntN(400))+".00")
					if err == nil && rng.IntN(3) == 0 {
						// The upstream notice times out: the order stays
						// processing and keeps its funds.
						err = w.sim.QRPay.Timeout(o.id)
						timeouts++
					}
				case opTopUp:
					o, err = r.topUp(ctx, member, usdt(strconv.Itoa(20+rng.IntN(180))))
					if err == nil && rng.IntN(3) == 0 {
						err = w.sim.Cards.TimeoutTopUp(o.id)
						timeouts++
					}
				case opRemit:
					o, err = r.remit(ctx, member, strconv.Itoa(10+rng.IntN(90))+".00")
				case opApply:
					o, err = r.apply(ctx, member)
				}
				if err != nil {
					failures = append(failures, fmt.Sprintf("worker %d op %d %s for %s: %v", i, j, kind, member, err))
					continue
				}
				mine = append(mine, o)
			}
			mu.Lock()
			defer mu.Unlock()
			outs = append(outs, mine...)
			errs = append(errs, failures...)
			st.resends += r.resends
			st.stepUps += r.stepUps
			st.timeouts += timeouts
		}(i, n)
	}
	wg.Wait()
	if err := w.sim.Faults.Clear(); err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Error(e)
	}
	for _, o := range outs {
		st.ops[o.kind]++
		if o.resp != nil && o.resp.Attempts > 1 {
			st.sdkRetries += o.resp.Attempts - 1
		}
	}
	for _, rec := range w.sim.Requests.List() {
		st.requests++
		switch {
		case rec.Fault == string(simulator.FaultError):
			st.faults[fmt.Sprintf("error_%d", rec.Status)]++
		case rec.Fault != "":
			st.faults[rec.Fault]++
		}
		if rec.Replay {
			st.replays++
		}
	}
	return outs, st
}

// checkExactlyOnce asserts that every accepted operation executed exactly
// once, that nothing the clients were not told about executed, that the
// balances are what the clients' outcomes imply, and that the books
// balance. outs are all the accepted operations so far; the request journal
// must hold the requests of the latest ones only (batch), whose keys must
// each have executed once. withState compares the simulator's object lists
// too (they keep the newest 500 objects of each kind).
func checkExactlyOnce(t testing.TB, w *world, outs, batch []outcome, withState bool) {
	t.Helper()
	sim := w.sim
	// 1. One object per accepted operation, no other objects.
	byKind := map[opKind]map[string]bool{}
	for _, k := range allKinds {
		byKind[k] = map[string]bool{}
	}
	for _, o := range outs {
		if byKind[o.kind][o.id] {
			t.Errorf("%s %s reported to two logical operations", o.kind, o.id)
		}
		byKind[o.kind][o.id] = true
	}
	var state simulator.StateSnapshot
	if withState {
		state = sim.State()
	}
	lists := map[opKind][]simulator.ObjectSnapshot{
		opDeposit: state.Deposits, opQR: state.QROrders, opTopUp: state.CardTopUps,
		opRemit: state.Remittances, opApply: state.CardApplications,
	}
	for kind, list := range lists {
		if !withState {
			break
		}
		seen := map[string]int{}
		for _, obj := range list {
			if w.setupIDs[obj.ID] {
				continue
			}
			seen[obj.ID]++
			if !byKind[kind][obj.ID] {
				t.Errorf("%s %s exists in the simulator but no client was told about it", kind, obj.ID)
			}
		}
		for id := range byKind[kind] {
			if seen[id] != 1 {
				t.Errorf("%s %s: %d objects, want 1", kind, id, seen[id])
			}
		}
	}
	// 2. One creating ledger entry per accepted operation.
	creating := map[string]int{}
	for _, e := range sim.LedgerEntries() {
		memo := e.Memo
		switch {
		case strings.HasPrefix(memo, "deposit mdep:"):
			ref := memo[strings.LastIndex(memo, ":")+1:]
			creating["dep_"+ref]++
		case strings.HasPrefix(memo, "qrpay hold "):
			creating[strings.TrimPrefix(memo, "qrpay hold ")]++
		case strings.HasPrefix(memo, "card top-up ") && strings.HasSuffix(memo, " hold"):
			creating[strings.TrimSuffix(strings.TrimPrefix(memo, "card top-up "), " hold")]++
		case strings.HasPrefix(memo, "remittance hold "):
			creating[strings.TrimPrefix(memo, "remittance hold ")]++
		case strings.HasPrefix(memo, "card application "):
			id, _, _ := strings.Cut(strings.TrimPrefix(memo, "card application "), ":")
			if !w.setupIDs[id] {
				creating[id]++
			}
		}
	}
	accepted := 0
	for _, o := range outs {
		id := o.id
		if o.kind == opDeposit {
			id = "dep_" + o.ref
		}
		if creating[id] != 1 {
			t.Errorf("%s %s: %d creating ledger entries, want 1", o.kind, id, creating[id])
		}
		accepted++
	}
	if len(creating) != accepted {
		t.Errorf("%d creating ledger entries for %d accepted operations", len(creating), accepted)
	}
	// 3. The gateway executed each key successfully at most once, and every
	// accepted operation's key exactly once. An error_after fault executes
	// and answers an error instead of the outcome, which the journal cannot
	// show; keys that met one are left to checks 1, 2 and 4.
	execs := map[string]int{}
	answeredOtherwise := map[string]bool{}
	for _, rec := range sim.Requests.List() {
		if rec.Fault == faultErrorAfter {
			answeredOtherwise[rec.IdempotencyKey] = true
		}
	}
	for _, rec := range sim.Requests.List() {
		if rec.IdempotencyKey == "" || rec.Replay || rec.Code != "" {
			continue
		}
		if rec.Fault == string(simulator.FaultError) || rec.Fault == string(simulator.FaultDropBefore) {
			continue
		}
		if rec.Status >= 200 && rec.Status < 300 || rec.Dropped {
			execs[rec.IdempotencyKey]++
		}
	}
	for k, n := range execs {
		if n > 1 {
			t.Errorf("idempotency key %s executed %d times", k, n)
		}
	}
	for _, o := range batch {
		if execs[o.key] != 1 && !answeredOtherwise[o.key] {
			t.Errorf("%s %s: key %s executed %d times, want 1", o.kind, o.id, o.key, execs[o.key])
		}
	}
	// 4. Balances: what the clients were told, nothing more, nothing less.
	// Every outcome is still unknown upstream, so every hold is still held.
	for m, e := range expect(w, outs) {
		avail, locked, err := sim.Members.Balance(m, asset)
		wantAvail := mustSub(e.total, e.locked)
		if err != nil || !avail.Equal(wantAvail) || !locked.Equal(e.locked) {
			t.Errorf("%s: available %s locked %s (%v), want %s and %s", m, avail, locked, err, wantAvail, e.locked)
		}
	}
	for _, o := range state.QROrders {
		if byKind[opQR][o.ID] && o.Status != "processing" {
			t.Errorf("QR order %s is %s with its outcome unknown", o.ID, o.Status)
		}
	}
	// 5. The books balance.
	if err := sim.CheckLedger(); err != nil {
		t.Errorf("CheckLedger: %v", err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Errorf("CheckInvariants: %v", err)
	}
}

// TestExactlyOnceUnderFaults runs 320 money-moving operations from 8
// concurrent clients against one simulator that drops about 10% of the
// writes after executing them, answers 502 and 504, drops before executing
// and delays. Every accepted operation must have executed exactly once.
func TestExactlyOnceUnderFaults(t *testing.T) {
	t.Parallel()
	const (
		seed    = 20260101
		members = 4
		workers = 8
		ops     = 320
	)
	w := newWorld(t, seed, members, "100000")
	if err := faultPlan(w.sim); err != nil {
		t.Fatal(err)
	}
	if err := w.sim.Requests.Reset(); err != nil {
		t.Fatal(err)
	}
	outs, st := workload(t, w, seed, newClients(w, workers), ops)
	checkExactlyOnce(t, w, outs, outs, true)
	if len(outs) != ops {
		t.Errorf("%d of %d operations accepted", len(outs), ops)
	}
	if st.faults[string(simulator.FaultDropAfter)] == 0 || st.faults["error_502"] == 0 || st.faults["error_504"] == 0 || st.replays == 0 {
		t.Errorf("the run met no faults or no replays: %v", st)
	}
	t.Logf("seed %d, %d members, %d concurrent clients\n%v", seed, members, workers, st)
}
