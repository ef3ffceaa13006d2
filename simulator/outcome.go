package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
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
func (m OutcomeMode) String() string { return m.mode().String() }

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
	m, err := outcomes.ParseMode(s)
	if err != nil {
		return OutcomeMode{}, err
	}
	return OutcomeMode{kind: m.Kind, after: m.After}, nil
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

// mode is m as the timers keep it.
func (m OutcomeMode) mode() outcomes.Mode { return outcomes.Mode{Kind: m.kind, After: m.after} }

// newTimers returns the timers of the simulator clock c
// (internal/outcomes), which the product lines register their success
// paths with and the clock's advance runs.
func newTimers(c *Clock) *outcomes.Timers {
	return outcomes.New(outcomes.Clock{Now: c.Now, Set: c.set})
}
