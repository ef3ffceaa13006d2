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

func (s *Simulator) outcomes() *outcomeState {
	if s.st.outcome == nil {
		s.st.outcome = &outcomeState{byCollection: map[string]OutcomeMode{}, byObject: map[string]OutcomeMode{}, pending: map[string]string{}}
	}
	return s.st.outcome
}

// onOutcome registers the upstream's success path of a collection: success
// runs, in a transaction, for the id of an object of the collection whose
// outcome falls due. It looks the object up by id and does nothing when it
// is gone. Product lines register theirs when they are registered.
func (s *Simulator) onOutcome(collection OutcomeCollection, success func(tx *kernel.Tx, id string)) {
	if s.wiring.outcomeRun == nil {
		s.wiring.outcomeRun = map[string]func(*kernel.Tx, string){}
	}
	s.wiring.outcomeRun[string(collection)] = success
}

// setOutcome sets the outcome mode of a whole collection (for example
// CollectionQROrders) for objects put in flight from now on.
func (s *Simulator) setOutcome(collection string, m OutcomeMode) {
	tx := s.k.Begin()
	defer tx.End()
	s.outcomes().byCollection[collection] = m
}

func (s *Simulator) setObjectOutcome(tx *kernel.Tx, id string, m OutcomeMode) {
	o := s.outcomes()
	o.byObject[id] = m
	if _, ok := o.pending[id]; ok {
		s.applyOutcome(tx, id, m)
	}
}

// inFlight puts object id of collection in flight: the collection's success
// path (onOutcome) runs when the mode that governs the object says. The
// product code calls settled(id) when the object reaches a final state by
// any path, so a later timer does nothing.
func (s *Simulator) inFlight(tx *kernel.Tx, collection OutcomeCollection, id string) {
	o := s.outcomes()
	o.pending[id] = string(collection)
	m, ok := o.byObject[id]
	if !ok {
		m = o.byCollection[string(collection)]
	}
	s.applyOutcome(tx, id, m)
}

func (s *Simulator) applyOutcome(tx *kernel.Tx, id string, m OutcomeMode) {
	switch m.kind {
	case "immediate":
		s.after(0, id)
	case "after":
		s.after(m.after, id)
	}
}

// runOutcome is a timer falling due: the success path of object id, if it
// is still in flight.
func (s *Simulator) runOutcome(tx *kernel.Tx, id string) {
	collection, still := s.outcomes().pending[id]
	if !still {
		return
	}
	delete(s.outcomes().pending, id)
	if run := s.wiring.outcomeRun[collection]; run != nil {
		run(tx, id)
	}
}

// settled marks object id as no longer in flight.
func (s *Simulator) settled(tx *kernel.Tx, id string) { delete(s.outcomes().pending, id) }
