package simulator

import (
	"fmt"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/services"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// EventsControl reads the events the simulator recorded for webhook
// delivery and emits events of its own (sim.Events). Control API:
// GET /_sim/events, POST /_sim/webhooks/events.
type EventsControl struct{ s *Simulator }

// List returns a copy of the events recorded so far, oldest first.
func (e *EventsControl) List() []Event {
	v, _ := invoke[[]Event](e.s, eventOps.List, &noInput{})
	return v
}

// Emit records an event as the service would and queues its
// deliveries: typ is an event type of the contract (for example
// "card.status.updated"; another is refused with a *NameError listing
// them, webhooks.EventTypes), object the data.object kind (a documented
// one), id the data.id, externalMemberID the member (an external_member_id
// or mem_ id of a simulator member, or any value for a member the simulator
// does not know), status and version data.status and data.status_version.
// It returns the event_id. Events of platform-direct members are not
// recorded (the contract sends none): the id is then empty. Use it to test
// receivers with events whose product flow the simulator does not drive.
// Control API: POST /_sim/webhooks/events.
func (e *EventsControl) Emit(typ, object, id, externalMemberID, status string, version int64) (string, error) {
	return invoke[string](e.s, eventOps.Emit, &hookline.EventIn{EventType: typ, Object: object, ID: id, ExternalMemberID: externalMemberID, Status: status, StatusVersion: &version})
}

// EmitExtra is Emit with extra data fields (for example
// compensation_source and application_id of kyc.quick.compensated). Extras
// must be identifiers or statuses, like every field of an event body.
func (e *EventsControl) EmitExtra(typ, object, id, externalMemberID, status string, version int64, extra map[string]any) (string, error) {
	// The extras as JSON gives them (numbers as float64), so that a replay
	// of the call, which reads them from JSON, records the same event.
	extra, err := control.ViaJSON(extra)
	if err != nil {
		return "", fmt.Errorf("simulator: EmitExtra: extra: %w", err)
	}
	return invoke[string](e.s, eventOps.EmitExtra, &hookline.EventIn{EventType: typ, Object: object, ID: id, ExternalMemberID: externalMemberID, Status: status, StatusVersion: &version, Extra: extra})
}

// eventOps are the events' ops, declared in the webhook line
// (internal/webhooks): the list answers the public Event, and an event is
// recorded for the member the input names, found by mem_ id or
// external_member_id (services.Record; a member the simulator does not know is
// only its external_member_id).
var eventOps = hookline.NewEventOps(func(x *opRun) []Event { return x.Sim.wiring.view.events(x.Tx) },
	func(x *opRun, e kernel.Event, ext string) string {
		st := &x.Sim.st
		m := st.members.Get(x.Tx, ext)
		if m == nil {
			m = st.members.ByExternal(x.Tx, ext)
		}
		if m == nil {
			m = &member{ExternalID: ext}
		}
		return services.Record(x.Tx, st.webhooks, e, m)
	})

// eventsOps declares the events' routes and methods.
var eventsOps = []*op{eventOps.List, eventOps.Emit, eventOps.EmitExtra, eventOps.Route}
