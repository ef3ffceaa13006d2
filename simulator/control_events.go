package simulator

import (
	"fmt"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// EventsControl reads the events the simulator recorded for webhook
// delivery and emits events of its own (sim.Events). Control API:
// GET /_sim/events, POST /_sim/webhooks/events.
type EventsControl struct{ s *Simulator }

// List returns a copy of the events recorded so far, oldest first.
func (e *EventsControl) List() []Event {
	v, _ := inTx1(e.s, func(tx *kernel.Tx) ([]Event, error) { return e.s.wiring.view.events(tx), nil })
	return v
}

// Emit records an event as the service would and queues its
// deliveries: typ is an event type of the contract (for example
// "card.status.updated"; another is refused with a *NameError listing
// them, webhooks.EventTypes), object the data.object kind, id the
// data.id, externalMemberID the member (an external_member_id or mem_ id of
// a simulator member, or any value for a member the simulator does not
// know), status and version data.status and
// data.status_version. It returns the event_id. Events of platform-direct
// members are not recorded (the contract sends none): the id is then empty.
// Use it to test receivers with events whose product flow the simulator
// does not drive. Control API: POST /_sim/webhooks/events.
func (e *EventsControl) Emit(typ, object, id, externalMemberID, status string, version int64) (string, error) {
	return call2(e.s, ctlEventsEmit, func() (string, error) {
		if err := checkEventType(typ); err != nil {
			return "", err
		}
		return inTx1(e.s, func(tx *kernel.Tx) (string, error) {
			return e.s.wiring.ctl.emitEvent(tx, typ, object, id, externalMemberID, status, version, nil)
		})
	}, typ, object, id, externalMemberID, status, version)
}

// EmitExtra is Emit with extra data fields (for example
// compensation_source and application_id of kyc.quick.compensated). Extras
// must be identifiers or statuses, like every field of an event body.
func (e *EventsControl) EmitExtra(typ, object, id, externalMemberID, status string, version int64, extra map[string]any) (string, error) {
	// The extras as JSON gives them (numbers as float64), so that a replay
	// of the call, which reads them from JSON, records the same event.
	extra, err := viaJSON(extra)
	if err != nil {
		return "", fmt.Errorf("simulator: EmitExtra: extra: %w", err)
	}
	return call2(e.s, ctlEventsEmitExtra, func() (string, error) {
		if err := checkEventType(typ); err != nil {
			return "", err
		}
		return inTx1(e.s, func(tx *kernel.Tx) (string, error) {
			return e.s.wiring.ctl.emitEvent(tx, typ, object, id, externalMemberID, status, version, extra)
		})
	}, typ, object, id, externalMemberID, status, version, extra)
}

// The names the Events control methods record their calls under, each declared
// once and used by its method and by eventsControls.
const (
	ctlEventsEmit      = "Events.Emit"
	ctlEventsEmitExtra = "Events.EmitExtra"
)

// eventsControls declares the events control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var eventsControls = []controlDecl{
	{name: "Events.List", noCall: true, bind: func(s *Simulator) any { return s.Events.List }},
	{name: ctlEventsEmit, bind: func(s *Simulator) any { return s.Events.Emit }},
	{name: ctlEventsEmitExtra, bind: func(s *Simulator) any { return s.Events.EmitExtra }},
}
