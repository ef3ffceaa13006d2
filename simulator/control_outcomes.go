package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/kernel"

// OutcomesControl decides when upstream outcomes happen by themselves
// (sim.Outcomes): manual (the default: a test drives each one), immediate,
// or after a delay on the simulator clock. Control API: POST /_sim/outcomes.
type OutcomesControl struct{ s *Simulator }

// Set sets the outcome mode of a whole collection (for example
// CollectionQROrders) for objects put in flight from now on. A collection
// that is not one of the Collection constants is refused with a
// *NameError listing them, and nothing changes.
func (o *OutcomesControl) Set(collection OutcomeCollection, m OutcomeMode) error {
	return call1(o.s, ctlOutcomesSet, func() error {
		if err := o.s.wiring.ctl.checkCollection(collection); err != nil {
			return err
		}
		return inTx(o.s, func(tx *kernel.Tx) error {
			o.s.wiring.timers.setCollection(tx, string(collection), m)
			return nil
		})
	}, collection, m)
}

// SetObject sets the mode of one object already in flight (id with its
// REST prefix). Immediate runs its success path now; After schedules it.
// An id that names no QR order, card application, card, card top-up or
// remittance is refused with a *NameError (NotFound), and nothing changes.
func (o *OutcomesControl) SetObject(id string, m OutcomeMode) error {
	return call1(o.s, ctlOutcomesSetObject, func() error {
		tx := o.s.k.Begin()
		defer tx.End()
		if err := o.s.wiring.ctl.checkOutcomeObject(tx, id); err != nil {
			return err
		}
		o.s.wiring.timers.setObject(tx, id, m)
		return nil
	}, id, m)
}

// The names the Outcomes control methods record their calls under, each declared
// once and used by its method and by outcomesControls.
const (
	ctlOutcomesSet       = "Outcomes.Set"
	ctlOutcomesSetObject = "Outcomes.SetObject"
)

// outcomesControls declares the outcomes control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var outcomesControls = []controlDecl{
	{name: ctlOutcomesSet, bind: func(s *Simulator) any { return s.Outcomes.Set }},
	{name: ctlOutcomesSetObject, bind: func(s *Simulator) any { return s.Outcomes.SetObject }},
}
