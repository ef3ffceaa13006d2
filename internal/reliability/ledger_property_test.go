package reliability_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
)

// object is the model of one accepted operation: its status and what it
// costs its member in each status.
type object struct {
	outcome
}

// transition is an upstream outcome the simulator can play on an object.
type transition struct {
	name string
	do   func(sim *simulator.Simulator, id string) error
	// next gives the status after the transition from status, and whether
	// the transition is allowed from it.
	next func(status string) (string, bool)
}

func from(to string, allowed ...string) func(string) (string, bool) {
	return func(st string) (string, bool) {
		for _, a := range allowed {
			if st == a {
				return to, true
			}
		}
		return st, false
	}
}

var transitions = map[opKind][]transition{
	opQR: {
		{"complete", func(sim *simulator.Simulator, id string) error { return sim.QRPay.Complete(id) }, from("completed", "processing")},
		{"fail", func(sim *simulator.Simulator, id string) error { return sim.QRPay.Fail(id) }, from("failed", "processing")},
		{"refund", func(sim *simulator.Simulator, id string) error { return sim.QRPay.Refund(id) }, from("refunded", "completed")},
		{"timeout", func(sim *simulator.Simulator, id string) error { return sim.QRPay.Timeout(id) }, from("processing", "processing")},
	},
	opTopUp: {
		{"credit", func(sim *simulator.Simulator, id string) error { return sim.Cards.CreditTopUp(id) }, from("completed", "processing")},
		{"reject", func(sim *simulator.Simulator, id string) error { return sim.Cards.RejectTopUp(id) }, from("failed", "processing")},
		{"timeout", func(sim *simulator.Simulator, id string) error { return sim.Cards.TimeoutTopUp(id) }, from("processing", "processing")},
	},
	opRemit: {
		{"dispatch", func(sim *simulator.Simulator, id string) error { return sim.Remittances.Dispatch(id) }, from("processing", "dispatching")},
		{"complete", func(s *simulator.Simulator, id string) error { return s.Remittances.Complete(id, "") }, from("completed", "processing")},
		{"fail", func(s *simulator.Simulator, id string) error { return s.Remittances.Fail(id, "") }, from("failed", "dispatching", "processing")},
		{"refund", func(sim *simulator.Simulator, id string) error { return sim.Remittances.Refund(id) }, from("refunded", "completed")},
	},
	opApply: {
		{"approve", func(sim *simulator.Simulator, id string) error { return sim.Cards.ApproveApplication(id) }, from("issued", "submitted", "pending_review")},
		{"reject", func(sim *simulator.Simulator, id string) error { return sim.Cards.RejectApplication(id) }, from("rejected", "submitted", "pending_review")},
	},
}

// cost returns what o takes from its member in its current status: gone
// (spent) and held (locked, outcome unknown).
func (o *object) cost() (gone, held money.Amount) {
	zero := money.Zero(6)
	switch o.kind {
	case opQR, opTopUp:
		switch o.status {
		case "processing":
			return zero, o.hold
		case "completed":
			return o.hold, zero
		}
	case opRemit:
		switch o.status {
		case "dispatching", "processing":
			return zero, o.hold
		case "completed":
			return o.total, zero
		}
	case opApply:
		if o.status != "rejected" {
			return o.charge, zero
		}
	}
	return zero, zero
}

// model is the test's own account of every member's money.
type model struct {
	w        *world
	credits  map[string]money.Amount
	objects  []*object
	inside   money.Amount // money inside the system (outside the world and custody contra accounts)
	accepted map[string]int
	refused  map[string]int
}

func (m *model) expected(member string) (avail, locked money.Amount) {
	total := mustAdd(m.w.seeded[member], m.credits[member])
	locked = money.Zero(6)
	for _, o := range m.objects {
		if o.member != member {
			continue
		}
		gone, held := o.cost()
		total = mustSub(mustSub(total, gone), held)
		locked = mustAdd(locked, held)
	}
	return total, locked
}

// insideMoney is the USDT inside the system: minus the balance of the world
// and merchant custody contra accounts, summed from the journal.
func insideMoney(sim *simulator.Simulator) money.Amount {
	sum := money.Zero(6)
	for _, e := range sim.LedgerEntries() {
		for _, p := range e.Postings {
			if p.Asset == asset && (p.Account == simulator.AccountWorld || p.Account == simulator.AccountMerchantCustody) {
				sum = mustSub(sum, p.Amount)
			}
		}
	}
	return sum
}

// check asserts the invariants after a step.
func (m *model) check(t *testing.T, step string) bool {
	t.Helper()
	sim := m.w.sim
	if err := sim.CheckLedger(); err != nil {
		t.Errorf("%s: CheckLedger: %v", step, err)
		return false
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Errorf("%s: CheckInvariants: %v", step, err)
		return false
	}
	ok := true
	for _, mem := range m.w.members {
		wantAvail, wantLocked := m.expected(mem)
		avail, locked, err := sim.Members.Balance(mem, asset)
		if err != nil || !avail.Equal(wantAvail) || !locked.Equal(wantLocked) {
			t.Errorf("%s: %s available %s locked %s (%v), want %s and %s", step, mem, avail, locked, err, wantAvail, wantLocked)
			ok = false
		}
		if avail.IsNegative() || locked.IsNegative() {
			t.Errorf("%s: %s has a negative balance", step, mem)
			ok = false
		}
	}
	if got := insideMoney(sim); !got.Equal(m.inside) {
		t.Errorf("%s: %s USDT inside the system, want %s: money was created or lost", step, got, m.inside)
		ok = false
	}
	return ok
}

// runSequence plays ops random steps on a fresh world.
func runSequence(t *testing.T, seed uint64, ops int) *model {
	w := newWorld(t, int64(seed), 2, "2000")
	m := &model{w: w, credits: map[string]money.Amount{}, accepted: map[string]int{}, refused: map[string]int{}}
	for _, mem := range w.members {
		m.credits[mem] = money.Zero(6)
	}
	m.inside = insideMoney(w.sim)
	if !m.check(t, "setup") {
		return m
	}
	rng := rand.New(rand.NewPCG(seed, 0x1ed6e5))
	r := &runner{w: w, c: w.sim.Client(clientOpts()...)}
	ctx := context.Background()
	var deps []outcome
	for i := 0; i < ops; i++ {
		mem := w.members[rng.IntN(len(w.members))]
		var step string
		var o outcome
		var err error
		newObject := true
		switch n := rng.IntN(12); {
		case n == 0:
			step = "deposit"
			o, err = r.deposit(ctx, mem, fmt.Sprintf("prop-%d-%d", seed, i), usdt(strconv.Itoa(1+rng.IntN(300))))
		case n == 1:
			step = "qr payment"
			o, err = r.qrPay(ctx, mem, strconv.Itoa(50+rng.IntN(3000))+".00")
		case n == 2:
			step = "card top-up"
			o, err = r.topUp(ctx, mem, usdt(strconv.Itoa(10+rng.IntN(400))))
		case n == 3:
			step = "remittance"
			o, err = r.remit(ctx, mem, strconv.Itoa(10+rng.IntN(400))+".00")
		case n == 4:
			step = "card application"
			o, err = r.apply(ctx, mem)
		case n <= 8 && len(m.objects) > 0:
			// An upstream outcome, allowed or not, on a random object.
			newObject = false
			ob := m.objects[rng.IntN(len(m.objects))]
			ts := transitions[ob.kind]
			if len(ts) == 0 {
				continue
			}
			tr := ts[rng.IntN(len(ts))]
			step = fmt.Sprintf("%s %s (%s)", tr.name, ob.id, ob.status)
			next, allowed := tr.next(ob.status)
			err = tr.do(w.sim, ob.id)
			switch {
			case allowed && err != nil:
				t.Errorf("%s: refused: %v", step, err)
			case !allowed && err == nil:
				t.Errorf("%s: accepted from status %s", step, ob.status)
			case allowed:
				ob.status = next
				m.accepted["transition"]++
			default:
				m.refused["transition"]++
			}
			err = nil
		case n == 9 && len(deps) > 0:
			// The same deposit reference again, under a new idempotency
			// key: the reference is the business key, nothing is credited.
			newObject = false
			d := deps[rng.IntN(len(deps))]
			step = "deposit replay " + d.ref
			got, derr := r.c.Deposits.Create(ctx, d.member, deposits.CreateParams{Asset: asset, Amount: d.credit, Reference: d.ref})
			if derr != nil || !got.Replayed {
				t.Errorf("%s: %+v, %v; want a replay", step, got, derr)
			}
		case n == 10:
			// Bad input: the service refuses it and nothing changes.
			newObject = false
			switch rng.IntN(4) {
			case 0:
				step = "qr payment beyond the balance"
				_, err = r.qrPay(ctx, mem, "9999999.00")
			case 1:
				step = "card top-up below the minimum"
				_, err = r.topUp(ctx, mem, usdt("0.01"))
			case 2:
				step = "remittance to an unknown payee"
				_, err = r.c.Remittances.Create(ctx, mem, remittance.CreateParams{PayeeID: "pye_999999", PayoutAmount: "10.00", PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport})
			default:
				step = "card top-up of another member's card"
				other := w.members[(indexOf(w.members, mem)+1)%len(w.members)]
				_, err = r.c.Cards.TopUp(ctx, mem, w.card[other], cards.TopUpParams{Amount: usdt("20")})
			}
			if err == nil {
				t.Errorf("%s: accepted", step)
			}
			m.refused["bad input"]++
			err = nil
		default:
			newObject = false
			d := time.Duration(1+rng.IntN(600)) * time.Second
			step = "advance " + d.String()
			w.sim.Clock.Advance(d)
		}
		if newObject {
			if err != nil {
				// A refusal (for example an insufficient balance): nothing
				// may have changed.
				m.refused[string(step)]++
			} else {
				m.accepted[string(o.kind)]++
				switch o.kind {
				case opDeposit:
					m.credits[mem] = mustAdd(m.credits[mem], o.credit)
					m.inside = mustAdd(m.inside, o.credit)
					deps = append(deps, o)
				default:
					m.objects = append(m.objects, &object{outcome: o})
				}
			}
		}
		if !m.check(t, fmt.Sprintf("seed %d step %d %s", seed, i, step)) {
			return m
		}
	}
	return m
}

func indexOf(list []string, v string) int {
	for i, s := range list {
		if s == v {
			return i
		}
	}
	return -1
}

// TestLedgerProperty plays 50 random sequences of 40 steps (payments,
// top-ups, remittances, card applications, deposits, upstream outcomes
// allowed or not, bad input, clock moves) and checks after every step that
// the books balance, no balance is negative, every member holds exactly
// what the test's own model says, and no money was created or lost.
func TestLedgerProperty(t *testing.T) {
	t.Parallel()
	const sequences, steps = 50, 40
	accepted, refused := map[string]int{}, map[string]int{}
	for s := uint64(1); s <= sequences; s++ {
		m := runSequence(t, s, steps)
		for k, v := range m.accepted {
			accepted[k] += v
		}
		for k, v := range m.refused {
			refused[k] += v
		}
		if t.Failed() {
			t.Fatalf("stopped at seed %d (rerun: the sequence is a function of the seed)", s)
		}
	}
	t.Logf("%d sequences x %d steps, invariants checked after each of the %d steps\naccepted: %v\nrefused (nothing changed): %v",
		sequences, steps, sequences*steps, accepted, refused)
}
