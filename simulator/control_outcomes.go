package simulator

import (
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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

// setOutcomeCall is POST /_sim/outcomes, the HTTP entry of Set (with
// collection) and SetObject (with object_id): it answers the mode set.
func setOutcomeCall(s *Simulator, _ *http.Request, body []byte) (string, []any, controlRun, error) {
	var in struct {
		Collection string `json:"collection"`
		ObjectID   string `json:"object_id"`
		Mode       string `json:"mode"`
	}
	if err := decodeControl(body, &in); err != nil {
		return "", nil, nil, err
	}
	m, err := ParseOutcomeMode(in.Mode)
	if err != nil {
		return "", nil, nil, errInvalidRequest(err.Error())
	}
	answer := map[string]any{"collection": in.Collection, "object_id": in.ObjectID, "mode": m.String()}
	switch {
	case in.Collection != "" && in.ObjectID != "":
		return "", nil, nil, errInvalidRequest("send collection or object_id, not both")
	case in.Collection != "":
		c := OutcomeCollection(strings.Trim(in.Collection, "/"))
		return ctlOutcomesSet, []any{c, m}, func(tx *kernel.Tx) (int, any, error) {
			if err := s.wiring.ctl.checkCollection(c); err != nil {
				return 0, nil, err
			}
			s.wiring.timers.setCollection(tx, string(c), m)
			return http.StatusOK, answer, nil
		}, nil
	case in.ObjectID != "":
		return ctlOutcomesSetObject, []any{in.ObjectID, m}, func(tx *kernel.Tx) (int, any, error) {
			if err := s.wiring.ctl.checkOutcomeObject(tx, in.ObjectID); err != nil {
				return 0, nil, err
			}
			s.wiring.timers.setObject(tx, in.ObjectID, m)
			return http.StatusOK, answer, nil
		}, nil
	}
	return "", nil, nil, errInvalidRequest("collection or object_id is required")
}

// The names the Outcomes control methods record their calls under, each declared
// once and used by its method and by outcomesControls.
const (
	ctlOutcomesSet       = "Outcomes.Set"
	ctlOutcomesSetObject = "Outcomes.SetObject"
)

// outcomesControls declares the outcomes control methods and the routes that call them
// (control_decl.go), the routes in their registration order. Set is
// declared with POST /_sim/outcomes among the core routes (control.go),
// where it registers; the route calls SetObject too.
var outcomesControls = []controlDecl{
	{name: ctlOutcomesSetObject, bind: func(s *Simulator) any { return s.Outcomes.SetObject }},
}
