package simulator

// OutcomesControl decides when upstream outcomes happen by themselves
// (sim.Outcomes): manual (the default: a test drives each one), immediate,
// or after a delay on the simulator clock. Control API: POST /_sim/outcomes.
type OutcomesControl struct{ s *Simulator }

// Set sets the outcome mode of a whole collection (for example
// CollectionQROrders) for objects put in flight from now on. A collection
// that is not one of the Collection constants is refused with a
// *NameError listing them, and nothing changes.
func (o *OutcomesControl) Set(collection OutcomeCollection, m OutcomeMode) error {
	return o.s.wiring.ctl.perform(opOutcomes, &outcomesIn{Collection: string(collection), Mode: m.String(), set: true})
}

// SetObject sets the mode of one object already in flight (id with its
// REST prefix). Immediate runs its success path now; After schedules it.
// An id that names no QR order, card application, card, card top-up or
// remittance is refused with a *NameError (NotFound), and nothing changes.
func (o *OutcomesControl) SetObject(id string, m OutcomeMode) error {
	return o.s.wiring.ctl.perform(opOutcomes, &outcomesIn{ObjectID: id, Mode: m.String()})
}

// outcomesIn is the body of POST /_sim/outcomes: collection or object_id,
// and the mode (default manual).
type outcomesIn struct {
	Collection string `json:"collection" dom:"outcome_collection"`
	ObjectID   string `json:"object_id" dom:"outcome_object"`
	Mode       string `json:"mode" dom:"outcome_mode"`
	// set: the input of Outcomes.Set (a collection, even an empty one).
	set bool `json:"-" dom:"-"`
}

func (in *outcomesIn) rules(x *opRun) error {
	switch {
	case in.set && in.Collection == "":
		return &NameError{Kind: "outcome collection", Field: "collection", Valid: domains["outcome_collection"].Choices(x)}
	case in.Collection != "" && in.ObjectID != "":
		return errInvalidRequest("send collection or object_id, not both")
	case in.Collection == "" && in.ObjectID == "":
		return errInvalidRequest("collection or object_id is required")
	}
	return nil
}

// mode is the mode asked for.
func (in *outcomesIn) mode() OutcomeMode {
	m, _ := ParseOutcomeMode(in.Mode)
	return m
}

// opOutcomes is POST /_sim/outcomes, Outcomes.Set (a collection) and
// Outcomes.SetObject (an object): it answers the mode set.
var opOutcomes = def[outcomesIn]{
	Route: "POST /_sim/outcomes", Name: "Outcomes.Set", Alias: "Outcomes.SetObject",
	Calls: func(in *outcomesIn) (string, []any) {
		if in.Collection != "" || in.set {
			return "Outcomes.Set", []any{OutcomeCollection(in.Collection), in.mode()}
		}
		return "Outcomes.SetObject", []any{in.ObjectID, in.mode()}
	},
	Run: func(x *opRun, in *outcomesIn) (any, error) {
		m := in.mode()
		if in.Collection != "" {
			x.s.wiring.timers.SetCollection(x.tx, in.Collection, m.mode())
		} else {
			x.s.wiring.timers.SetObject(x.tx, in.ObjectID, m.mode())
		}
		return map[string]any{"collection": in.Collection, "object_id": in.ObjectID, "mode": m.String()}, nil
	},
}.Op()

// outcomesOps declares the outcome modes' route and methods.
var outcomesOps = []*op{opOutcomes}
