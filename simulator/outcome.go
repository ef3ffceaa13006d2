package simulator

import (
	"container/heap"
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// OutcomeMode says how an upstream reaches its outcome for an object in
// flight (a QR order processing, a card application under review, a top-up
// processing, a remittance dispatching):
//
//   - Manual: the object stays where it is until the control API (or a Go
//     method) drives an outcome; this is the default, so a test sees
//     'processing' for as long as it wants.
//   - Immediate: the upstream succeeds right after the request that put the
//     object in flight has been answered.
//   - After(d): the upstream succeeds d later on the simulator clock (use
//     Clock.Advance to get there).
type OutcomeMode struct {
	kind  string
	after time.Duration
}

// Manual leaves outcomes to the control API.
func Manual() OutcomeMode { return OutcomeMode{kind: "manual"} }

// Immediate makes the upstream succeed as soon as the request is answered.
func Immediate() OutcomeMode { return OutcomeMode{kind: "immediate"} }

// After makes the upstream succeed d later on the simulator clock.
func After(d time.Duration) OutcomeMode { return OutcomeMode{kind: "after", after: d} }

// String names the mode ("manual", "immediate" or "after:30s").
func (m OutcomeMode) String() string {
	switch m.kind {
	case "", "manual":
		return "manual"
	case "after":
		return "after:" + m.after.String()
	}
	return m.kind
}

// MarshalText writes the mode as String does (the zero OutcomeMode, which
// behaves as Manual, as the empty string).
func (m OutcomeMode) MarshalText() ([]byte, error) {
	if m == (OutcomeMode{}) {
		return []byte{}, nil
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a mode as ParseOutcomeMode does (the empty string as
// the zero OutcomeMode).
func (m *OutcomeMode) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*m = OutcomeMode{}
		return nil
	}
	v, err := ParseOutcomeMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// ParseOutcomeMode reads "manual", "immediate" or "after:<duration>".
func ParseOutcomeMode(s string) (OutcomeMode, error) {
	switch {
	case s == "manual" || s == "":
		return Manual(), nil
	case s == "immediate":
		return Immediate(), nil
	case strings.HasPrefix(s, "after:"):
		d, err := time.ParseDuration(strings.TrimPrefix(s, "after:"))
		if err != nil || d < 0 {
			return OutcomeMode{}, fmt.Errorf("bad outcome duration %q", s)
		}
		return After(d), nil
	}
	return OutcomeMode{}, fmt.Errorf("unknown outcome mode %q (manual, immediate, after:<duration>)", s)
}

// OutcomeCollection names a collection of objects whose upstream outcome a
// mode governs (OutcomesControl.Set, POST /_sim/outcomes "collection"). A
// name that is not one of the Collection constants is refused with a
// *NameError listing them.
type OutcomeCollection string

// Outcome collections: the objects whose upstream outcome a mode governs.
const (
	CollectionQROrders         OutcomeCollection = "qrpay/orders"
	CollectionCardApplications OutcomeCollection = "cards/applications"
	CollectionCardTopups       OutcomeCollection = "cards/topups"
	CollectionRemittances      OutcomeCollection = "remittances"
)

// outcomeState is data only (no closures), so that it can be persisted: an
// object in flight is its id and collection, and its success path is the
// collection's, registered with on. Its tables: the outcome modes set by
// collection and by object, the objects in flight, and the pending timers
// of the clock (a binary heap by instant, as container/heap keeps it, and
// the sequence that breaks ties).
type outcomeState struct {
	byCollection *kernel.Table[string, modeRow]
	byObject     *kernel.Table[string, modeRow]
	pending      *kernel.Table[string, string] // object id -> its collection, while in flight
	timers       *kernel.Cell[kernel.List[timer]]
	timerSeq     *kernel.Cell[int64]
}

// modeRow is an OutcomeMode as a row.
type modeRow struct {
	Kind  string
	After time.Duration
}

func (m modeRow) mode() OutcomeMode { return OutcomeMode{kind: m.Kind, after: m.After} }

func newOutcomeState(k *kernel.Kernel) *outcomeState {
	return &outcomeState{
		byCollection: kernel.NewTable[string, modeRow](k, "outcomes.by_collection"),
		byObject:     kernel.NewTable[string, modeRow](k, "outcomes.by_object"),
		pending:      kernel.NewTable[string, string](k, "outcomes.in_flight"),
		timers:       kernel.NewCell(k, "clock.timers", kernel.List[timer]{}),
		timerSeq:     kernel.NewCell(k, "clock.timer_seq", int64(0)),
	}
}

// timers runs what the clock brings due: the upstream outcomes of objects
// in flight, each by its collection's success path, and the clock's
// advance that fires them in time order. It holds the state (for the clock
// and the outcome modes, which are part of the state image) and the success
// paths the product lines register, which are wiring, not state.
type timers struct {
	st  *simState
	run map[string]func(tx *kernel.Tx, id string) error // collection -> upstream success path
}

// outcomes is the outcome state.
func (t *timers) outcomes() *outcomeState { return t.st.outcome }

// on registers the upstream's success path of a collection: success runs,
// in a step of its own, for the id of an object of the collection whose
// outcome falls due. It looks the object up by id and does nothing when it
// is gone; an error undoes what it did.
// Product lines register theirs when they are registered.
func (t *timers) on(collection OutcomeCollection, success func(tx *kernel.Tx, id string) error) {
	if t.run == nil {
		t.run = map[string]func(*kernel.Tx, string) error{}
	}
	t.run[string(collection)] = success
}

// setCollection sets the outcome mode of a whole collection (for example
// CollectionQROrders) for objects put in flight from now on.
func (t *timers) setCollection(tx *kernel.Tx, collection string, m OutcomeMode) {
	t.outcomes().byCollection.Put(tx, collection, modeRow{m.kind, m.after})
}

// setObject sets the outcome mode of one object; an object in flight has
// its outcome scheduled by the new mode at once.
func (t *timers) setObject(tx *kernel.Tx, id string, m OutcomeMode) {
	o := t.outcomes()
	o.byObject.Put(tx, id, modeRow{m.kind, m.after})
	if o.pending.Has(tx, id) {
		t.apply(tx, id, m)
	}
}

// inFlight puts object id of collection in flight: the collection's success
// path (on) runs when the mode that governs the object says. The product
// code calls settled(id) when the object reaches a final state by any path,
// so a later timer does nothing.
func (t *timers) inFlight(tx *kernel.Tx, collection OutcomeCollection, id string) {
	o := t.outcomes()
	o.pending.Put(tx, id, string(collection))
	r, ok := o.byObject.Get(tx, id)
	if !ok {
		r, _ = o.byCollection.Get(tx, string(collection))
	}
	t.apply(tx, id, r.mode())
}

// isInFlight reports whether object id is in flight.
func (t *timers) isInFlight(tx *kernel.Tx, id string) bool { return t.outcomes().pending.Has(tx, id) }

func (t *timers) apply(tx *kernel.Tx, id string, m OutcomeMode) {
	switch m.kind {
	case "immediate":
		t.after(tx, 0, id)
	case "after":
		t.after(tx, m.after, id)
	}
}

// fire is a timer falling due: the success path of object id, if it is
// still in flight, in a step of its own (an error undoes it; the object is
// out of flight either way, as the timer is spent).
func (t *timers) fire(tx *kernel.Tx, id string) {
	o := t.outcomes()
	collection, still := o.pending.Get(tx, id)
	if !still {
		return
	}
	o.pending.Delete(tx, id)
	if run := t.run[collection]; run != nil {
		_ = tx.Step("timer "+collection+" "+id, func() error { return run(tx, id) })
	}
}

// settled marks object id as no longer in flight.
func (t *timers) settled(tx *kernel.Tx, id string) { t.outcomes().pending.Delete(tx, id) }

// after schedules the outcome of object id (fire, in a transaction) d after
// now on the simulator clock.
func (t *timers) after(tx *kernel.Tx, d time.Duration, id string) {
	o := t.outcomes()
	seq := o.timerSeq.Get(tx) + 1
	o.timerSeq.Set(tx, seq)
	h := timerHeap(o.timers.Get(tx).Slice())
	heap.Push(&h, timer{At: t.st.clock.Now().Add(d), Seq: seq, ID: id})
	o.timers.Set(tx, kernel.ListOf(h...))
}

// hasDue reports whether a timer falls due at or before limit.
func (t *timers) hasDue(tx *kernel.Tx, limit time.Time) bool {
	h := t.outcomes().timers.Get(tx)
	return h.Len() > 0 && !h.At(0).At.After(limit)
}

// popDue removes and returns the next timer due at or before limit.
func (t *timers) popDue(tx *kernel.Tx, limit time.Time) (timer, bool) {
	o := t.outcomes()
	h := timerHeap(o.timers.Get(tx).Slice())
	if len(h) == 0 || h[0].At.After(limit) {
		return timer{}, false
	}
	due := heap.Pop(&h).(timer)
	o.timers.Set(tx, kernel.ListOf(h...))
	return due, true
}

// pending returns the number of timers not yet run.
func (t *timers) pending(tx *kernel.Tx) int { return t.outcomes().timers.Get(tx).Len() }

// advance moves the clock forward by d, running every timer that falls due
// on the way at its own time, in time order: each in a step of its own.
func (t *timers) advance(tx *kernel.Tx, d time.Duration) {
	target := t.st.clock.Now().Add(d)
	for {
		var ran bool
		_ = tx.Step("advance", func() error {
			due, ok := t.popDue(tx, target)
			if !ok {
				return nil
			}
			ran = true
			t.st.clock.set(due.At)
			t.fire(tx, due.ID)
			return nil
		})
		if !ran {
			break
		}
	}
	t.st.clock.set(target)
}

// runDue runs timers already due at the current time (for outcomes that
// happen "immediately" after a request).
func (t *timers) runDue(tx *kernel.Tx) { t.advance(tx, 0) }

func (m OutcomeMode) legacy() image.OutcomeMode {
	return image.OutcomeMode{Kind: m.kind, After: m.after}
}

func (t *timers) legacy(tx *kernel.Tx) (*image.Clock, *image.OutcomeState) {
	o := t.outcomes()
	c := &image.Clock{Now: tx.Now(), Seq: o.timerSeq.Get(tx)}
	if c.Seq > 0 {
		c.Timers = image.TimerHeap{} // a heap that held a timer stays allocated
	}
	for tm := range o.timers.Get(tx).Values() {
		c.Timers = append(c.Timers, &image.Timer{At: tm.At, Seq: tm.Seq, Id: tm.ID})
	}
	os := &image.OutcomeState{ByCollection: map[string]image.OutcomeMode{}, ByObject: map[string]image.OutcomeMode{}, Pending: map[string]string{}}
	for k, m := range o.byCollection.All(tx) {
		os.ByCollection[k] = m.mode().legacy()
	}
	for k, m := range o.byObject.All(tx) {
		os.ByObject[k] = m.mode().legacy()
	}
	for k, v := range o.pending.All(tx) {
		os.Pending[k] = v
	}
	return c, os
}
