package faults

import (
	"fmt"
	"iter"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// MaxDelayMS caps a delay fault's DelayMS.
const MaxDelayMS = 60_000

// KnownKind reports whether kind is one of the fault kinds (simulator.FaultKind's Known).
func KnownKind(kind string) bool {
	switch kind {
	case KindError, KindErrorAfter, KindDropBefore, KindDropAfter, KindDelay:
		return true
	}
	return false
}

// Check refuses a fault that cannot be armed, with the message the
// control API and InjectFault answer; hold says the fault has a Go-only
// Hold channel, which lets a delay fault go without DelayMS.
func (r Row) Check(hold bool) error {
	if !KnownKind(r.Kind) {
		return fmt.Errorf("fault kind %q: want error, error_after, drop_before, drop_after or delay", r.Kind)
	}
	if !strings.HasPrefix(r.Path, "/") {
		return fmt.Errorf("fault path %q must start with /", r.Path)
	}
	if r.Count < 0 {
		return fmt.Errorf("fault count %d is negative", r.Count)
	}
	if r.OneIn < 0 {
		return fmt.Errorf("fault one_in %d is negative", r.OneIn)
	}
	if r.Status != 0 && (r.Status < 400 || r.Status > 599) {
		return fmt.Errorf("fault status %d: want 400 to 599", r.Status)
	}
	if r.Kind == KindDelay {
		if r.DelayMS < 0 || r.DelayMS > MaxDelayMS {
			return fmt.Errorf("fault delay_ms %d: want 1 to %d", r.DelayMS, MaxDelayMS)
		}
		if r.DelayMS == 0 && !hold {
			return fmt.Errorf("a delay fault needs delay_ms")
		}
	}
	return nil
}

// Armed is r as it is armed: a random fault (OneIn above 1) without a
// Count is Unlimited, any other fault without a Count applies once.
func (r Row) Armed() Row {
	r.Unlimited = r.Count == 0 && r.OneIn > 1
	if r.Count == 0 && !r.Unlimited {
		r.Count = 1
	}
	return r
}

// Listed is the armed faults in their order, as a listing reports them:
// Count is what remains, 0 for an Unlimited fault.
func (t Table) Listed(tx *kernel.Tx) iter.Seq[Row] {
	return func(yield func(Row) bool) {
		for _, r := range t.All(tx) {
			r.Count = r.Remaining
			if r.Unlimited {
				r.Count = 0
			}
			if !yield(r) {
				return
			}
		}
	}
}
