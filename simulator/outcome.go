package simulator

import (
	"fmt"
	"strings"
	"time"

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
// collection's, registered with onOutcome.
type outcomeState struct {
	byCollection map[string]OutcomeMode
	byObject     map[string]OutcomeMode
	pending      map[string]string // object id -> its collection, while in flight
}

// timers runs what the clock brings due: the upstream outcomes of objects
// in flight, each by its collection's success path, and the clock's
// advance that fires them in time order. It holds the state (for the clock
// and the outcome modes, which are part of the state image) and the success
// paths the product lines register, which are wiring, not state.
type timers struct {
	st  *simState
	run map[string]func(tx *kernel.Tx, id string) // collection -> upstream success path
}

// outcomes is the outcome state, made on first use.
func (t *timers) outcomes() *outcomeState {
	if t.st.outcome == nil {
		t.st.outcome = &outcomeState{byCollection: map[string]OutcomeMode{}, byObject: map[string]OutcomeMode{}, pending: map[string]string{}}
	}
	return t.st.outcome
}

// on registers the upstream's success path of a collection: success runs,
// in a transaction, for the id of an object of the collection whose outcome
// falls due. It looks the object up by id and does nothing when it is gone.
// Product lines register theirs when they are registered.
func (t *timers) on(collection OutcomeCollection, success func(tx *kernel.Tx, id string)) {
	if t.run == nil {
		t.run = map[string]func(*kernel.Tx, string){}
	}
	t.run[string(collection)] = success
}

// setCollection sets the outcome mode of a whole collection (for example
// CollectionQROrders) for objects put in flight from now on.
func (t *timers) setCollection(tx *kernel.Tx, collection string, m OutcomeMode) {
	t.outcomes().byCollection[collection] = m
}

// setObject sets the outcome mode of one object; an object in flight has
// its outcome scheduled by the new mode at once.
func (t *timers) setObject(tx *kernel.Tx, id string, m OutcomeMode) {
	o := t.outcomes()
	o.byObject[id] = m
	if _, ok := o.pending[id]; ok {
		t.apply(tx, id, m)
	}
}

// inFlight puts object id of collection in flight: the collection's success
// path (on) runs when the mode that governs the object says. The product
// code calls settled(id) when the object reaches a final state by any path,
// so a later timer does nothing.
func (t *timers) inFlight(tx *kernel.Tx, collection OutcomeCollection, id string) {
	o := t.outcomes()
	o.pending[id] = string(collection)
	m, ok := o.byObject[id]
	if !ok {
		m = o.byCollection[string(collection)]
	}
	t.apply(tx, id, m)
}

func (t *timers) apply(tx *kernel.Tx, id string, m OutcomeMode) {
	switch m.kind {
	case "immediate":
		t.after(0, id)
	case "after":
		t.after(m.after, id)
	}
}

// fire is a timer falling due: the success path of object id, if it is
// still in flight.
func (t *timers) fire(tx *kernel.Tx, id string) {
	collection, still := t.outcomes().pending[id]
	if !still {
		return
	}
	delete(t.outcomes().pending, id)
	if run := t.run[collection]; run != nil {
		run(tx, id)
	}
}

// settled marks object id as no longer in flight.
func (t *timers) settled(tx *kernel.Tx, id string) { delete(t.outcomes().pending, id) }

// after schedules the outcome of object id (fire, in a transaction) d after
// now on the simulator clock.
func (t *timers) after(d time.Duration, id string) {
	t.st.clock.at(t.st.clock.Now().Add(d), id)
}

// advance moves the clock forward by d, running every timer that falls due
// on the way at its own time, in time order.
func (t *timers) advance(tx *kernel.Tx, d time.Duration) {
	target := t.st.clock.Now().Add(d)
	for {
		due, ok := t.st.clock.popDue(target)
		if !ok {
			break
		}
		t.st.clock.set(due.at)
		t.fire(tx, due.id)
	}
	t.st.clock.set(target)
}

// runDue runs timers already due at the current time (for outcomes that
// happen "immediately" after a request).
func (t *timers) runDue(tx *kernel.Tx) { t.advance(tx, 0) }
