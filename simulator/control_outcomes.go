package simulator

// OutcomesControl decides when upstream outcomes happen by themselves
// (sim.Outcomes): manual (the default: a test drives each one), immediate,
// or after a delay on the simulator clock. Control API: POST /_sim/outcomes.
type OutcomesControl struct{ s *Simulator }

// Set sets the outcome mode of a whole collection (for example
// CollectionQROrders) for objects put in flight from now on.
func (o *OutcomesControl) Set(collection string, m OutcomeMode) error {
	return call0(o.s, "Outcomes.Set", func() { o.s.setOutcome(collection, m) }, collection, m)
}

// SetObject sets the mode of one object already in flight (id with its
// REST prefix). Immediate runs its success path now; After schedules it.
func (o *OutcomesControl) SetObject(id string, m OutcomeMode) error {
	return call0(o.s, "Outcomes.SetObject", func() { o.s.runSetObjectOutcome(id, m) }, id, m)
}
