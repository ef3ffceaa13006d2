package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
)

// OutcomesControl decides when upstream outcomes happen by themselves
// (sim.Outcomes): manual (the default: a test drives each one), immediate,
// or after a delay on the simulator clock. Control API: POST /_sim/outcomes.
type OutcomesControl struct{ s *Simulator }

// Set sets the outcome mode of a whole collection (for example
// CollectionQROrders) for objects put in flight from now on. A collection
// that is not one of the Collection constants is refused with a
// *NameError listing them, and nothing changes.
func (o *OutcomesControl) Set(collection OutcomeCollection, m OutcomeMode) error {
	return o.s.wiring.ctl.perform(outcomeOps.Set, &outcomes.ModeIn{Collection: string(collection), Mode: m.String(), Set: true})
}

// SetObject sets the mode of one object already in flight (id with its
// REST prefix). Immediate runs its success path now; After schedules it.
// An id that names no QR order, card application, card, card top-up or
// remittance is refused with a *NameError (NotFound), and nothing changes.
func (o *OutcomesControl) SetObject(id string, m OutcomeMode) error {
	return o.s.wiring.ctl.perform(outcomeOps.Set, &outcomes.ModeIn{ObjectID: id, Mode: m.String()})
}

// outcomeOps are the clock's and the outcome modes' ops, declared in
// internal/outcomes over the timers: the Go methods take the public
// OutcomeCollection and OutcomeMode, and an empty collection is refused
// with a *NameError listing them.
var outcomeOps = outcomes.NewControlOps(func(x *opRun) (*outcomes.Timers, *kernel.Tx) { return x.Sim.wiring.timers, x.Tx }, outcomes.Views[*opRun]{
	Collection: func(c string) any { return OutcomeCollection(c) },
	Mode:       func(m outcomes.Mode) any { return OutcomeMode{kind: m.Kind, after: m.After} },
	Legacy:     func(x *opRun) bool { return x.Legacy },
	Refused:    nameError,
})

// outcomesOps declares the outcome modes' route and methods.
var outcomesOps = []*op{outcomeOps.Set}
