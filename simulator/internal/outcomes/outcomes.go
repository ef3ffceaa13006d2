// Package outcomes is the kernel's timer service: the upstream outcomes of
// objects in flight (a QR order processing, a card application under
// review, a top-up processing, a remittance dispatching), the modes that
// govern them, and the timers of the simulator clock that bring them due
// (kernel.Services' InFlight and Settled). It declares the control ops of
// the clock and the modes (control_ops.go).
//
// Its state is data only (no closures), so that it can be persisted: an
// object in flight is its id and collection, and its success path is the
// collection's, registered with On. Its tables: the outcome modes set by
// collection and by object, the objects in flight, and the pending timers
// of the clock (a binary heap by instant, as container/heap keeps it, and
// the sequence that breaks ties).
package outcomes

import (
	"container/heap"
	"sort"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The kinds of Mode.
const (
	Manual    = "manual"
	Immediate = "immediate"
	After     = "after"
)

// Mode says how an upstream reaches its outcome: Kind is Manual (or empty:
// the control API drives it), Immediate (right after the request that put
// the object in flight is answered) or After (After later on the clock).
type Mode struct {
	Kind  string
	After time.Duration
}

// Timer is an upstream outcome falling due: the success path of the object
// ID. It is data, not a closure, so the clock can be persisted.
type Timer struct {
	At  time.Time
	Seq int64
	ID  string
}

// timerHeap is the pending timers as a binary heap by (At, Seq), the order
// container/heap keeps them in.
type timerHeap []Timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].At.Equal(h[j].At) {
		return h[i].Seq < h[j].Seq
	}
	return h[i].At.Before(h[j].At)
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(Timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

// State is the service's tables.
type State struct {
	byCollection *kernel.Table[string, Mode]
	byObject     *kernel.Table[string, Mode]
	pending      *kernel.Table[string, string] // object id -> its collection, while in flight
	timers       *kernel.Cell[kernel.List[Timer]]
	timerSeq     *kernel.Cell[int64]
}

// Pending returns the number of timers not yet run.
func (st *State) Pending(tx *kernel.Tx) int { return st.timers.Get(tx).Len() }

// Clock is the simulator clock as the timers move it: Now reads it, Set
// moves it forward to t (never back).
type Clock struct {
	Now func() time.Time
	Set func(t time.Time)
}

// Timers runs what the clock brings due: the upstream outcomes of objects
// in flight, each by its collection's success path, and the clock's
// advance that fires them in time order. It holds the state and the
// success paths the product lines register, which are wiring, not state.
type Timers struct {
	st    *State
	clock Clock
	run   map[string]func(tx *kernel.Tx, id string) error // collection -> upstream success path
}

// New returns the timers moving clock; their state is registered in a
// kernel with Register, in the place of the kernel's tables it takes.
func New(clock Clock) *Timers {
	return &Timers{clock: clock, run: map[string]func(*kernel.Tx, string) error{}}
}

// Register registers the timers' tables in k and returns them.
func (t *Timers) Register(k *kernel.Kernel) *State {
	t.st = &State{
		byCollection: kernel.NewTable[string, Mode](k, "outcomes.by_collection"),
		byObject:     kernel.NewTable[string, Mode](k, "outcomes.by_object"),
		pending:      kernel.NewTable[string, string](k, "outcomes.in_flight"),
		timers:       kernel.NewCell(k, "clock.timers", kernel.List[Timer]{}),
		timerSeq:     kernel.NewCell(k, "clock.timer_seq", int64(0)),
	}
	return t.st
}

// On registers the upstream's success path of a collection: success runs,
// in a step of its own, for the id of an object of the collection whose
// outcome falls due. It looks the object up by id and does nothing when it
// is gone; an error undoes what it did. Product lines register theirs when
// they are registered.
func (t *Timers) On(collection string, success func(tx *kernel.Tx, id string) error) {
	t.run[collection] = success
}

// Collections are the collections a success path is registered for,
// sorted.
func (t *Timers) Collections() []string {
	out := make([]string, 0, len(t.run))
	for c := range t.run {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// SetCollection sets the outcome mode of a whole collection for objects
// put in flight from now on.
func (t *Timers) SetCollection(tx *kernel.Tx, collection string, m Mode) {
	t.st.byCollection.Put(tx, collection, m)
}

// SetObject sets the outcome mode of one object; an object in flight has
// its outcome scheduled by the new mode at once.
func (t *Timers) SetObject(tx *kernel.Tx, id string, m Mode) {
	t.st.byObject.Put(tx, id, m)
	if t.st.pending.Has(tx, id) {
		t.apply(tx, id, m)
	}
}

// InFlight puts object id of collection in flight: the collection's success
// path (On) runs when the mode that governs the object says. The product
// code calls Settled(id) when the object reaches a final state by any
// path, so a later timer does nothing.
func (t *Timers) InFlight(tx *kernel.Tx, collection, id string) {
	t.st.pending.Put(tx, id, collection)
	m, ok := t.st.byObject.Get(tx, id)
	if !ok {
		m, _ = t.st.byCollection.Get(tx, collection)
	}
	t.apply(tx, id, m)
}

// IsInFlight reports whether object id is in flight.
func (t *Timers) IsInFlight(tx *kernel.Tx, id string) bool { return t.st.pending.Has(tx, id) }

// Settled marks object id as no longer in flight.
func (t *Timers) Settled(tx *kernel.Tx, id string) { t.st.pending.Delete(tx, id) }

func (t *Timers) apply(tx *kernel.Tx, id string, m Mode) {
	switch m.Kind {
	case Immediate:
		t.after(tx, 0, id)
	case After:
		t.after(tx, m.After, id)
	}
}

// fire is a timer falling due: the success path of object id, if it is
// still in flight, in a step of its own (an error undoes it; the object is
// out of flight either way, as the timer is spent).
func (t *Timers) fire(tx *kernel.Tx, id string) {
	collection, still := t.st.pending.Get(tx, id)
	if !still {
		return
	}
	t.st.pending.Delete(tx, id)
	if run := t.run[collection]; run != nil {
		_ = tx.Step("timer "+collection+" "+id, func() error { return run(tx, id) })
	}
}

// after schedules the outcome of object id (fire, in a transaction) d after
// now on the simulator clock.
func (t *Timers) after(tx *kernel.Tx, d time.Duration, id string) {
	seq := t.st.timerSeq.Get(tx) + 1
	t.st.timerSeq.Set(tx, seq)
	h := timerHeap(t.st.timers.Get(tx).Slice())
	heap.Push(&h, Timer{At: t.clock.Now().Add(d), Seq: seq, ID: id})
	t.st.timers.Set(tx, kernel.ListOf(h...))
}

// HasDue reports whether a timer falls due at or before limit.
func (t *Timers) HasDue(tx *kernel.Tx, limit time.Time) bool {
	h := t.st.timers.Get(tx)
	return h.Len() > 0 && !h.At(0).At.After(limit)
}

// popDue removes and returns the next timer due at or before limit.
func (t *Timers) popDue(tx *kernel.Tx, limit time.Time) (Timer, bool) {
	h := timerHeap(t.st.timers.Get(tx).Slice())
	if len(h) == 0 || h[0].At.After(limit) {
		return Timer{}, false
	}
	due := heap.Pop(&h).(Timer)
	t.st.timers.Set(tx, kernel.ListOf(h...))
	return due, true
}

// Pending returns the number of timers not yet run.
func (t *Timers) Pending(tx *kernel.Tx) int { return t.st.Pending(tx) }

// Advance moves the clock forward by d, running every timer that falls due
// on the way at its own time, in time order: each in a step of its own.
func (t *Timers) Advance(tx *kernel.Tx, d time.Duration) {
	target := t.clock.Now().Add(d)
	for {
		var ran bool
		_ = tx.Step("advance", func() error {
			due, ok := t.popDue(tx, target)
			if !ok {
				return nil
			}
			ran = true
			t.clock.Set(due.At)
			t.fire(tx, due.ID)
			return nil
		})
		if !ran {
			break
		}
	}
	t.clock.Set(target)
}

// RunDue runs timers already due at the current time (for outcomes that
// happen "immediately" after a request).
func (t *Timers) RunDue(tx *kernel.Tx) { t.Advance(tx, 0) }

// View is the service's state as the digest's image of earlier recordings
// reads it: the timers in heap order, their sequence, the modes by
// collection and by object, and the objects in flight.
type View struct {
	Timers       []Timer
	TimerSeq     int64
	ByCollection map[string]Mode
	ByObject     map[string]Mode
	Pending      map[string]string
}

// View reads the service's state.
func (t *Timers) View(tx *kernel.Tx) View {
	v := View{TimerSeq: t.st.timerSeq.Get(tx), Timers: t.st.timers.Get(tx).Slice(),
		ByCollection: map[string]Mode{}, ByObject: map[string]Mode{}, Pending: map[string]string{}}
	for k, m := range t.st.byCollection.All(tx) {
		v.ByCollection[k] = m
	}
	for k, m := range t.st.byObject.All(tx) {
		v.ByObject[k] = m
	}
	for k, c := range t.st.pending.All(tx) {
		v.Pending[k] = c
	}
	return v
}
