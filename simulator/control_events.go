package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// EventsControl reads the events the simulator recorded for webhook
// delivery and emits events of its own (sim.Events). Control API:
// GET /_sim/events, POST /_sim/webhooks/events.
type EventsControl struct{ s *Simulator }

// List returns a copy of the events recorded so far, oldest first.
func (e *EventsControl) List() []Event {
	v, _ := invoke[[]Event](e.s, opEventsList, &noInput{})
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
	return invoke[string](e.s, opEventsEmit, &eventIn{EventType: typ, Object: object, ID: id, ExternalMemberID: externalMemberID, Status: status, StatusVersion: &version})
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
	return invoke[string](e.s, opEventsEmitExtra, &eventIn{EventType: typ, Object: object, ID: id, ExternalMemberID: externalMemberID, Status: status, StatusVersion: &version, Extra: extra})
}

// eventIn is the body of POST /_sim/webhooks/events and the arguments of
// Emit and EmitExtra.
type eventIn struct {
	EventType        string         `json:"event_type" dom:"event_type,req"`
	Object           string         `json:"object" dom:"event_object,req"`
	ID               string         `json:"id" dom:"name,req"`
	ExternalMemberID string         `json:"external_member_id" dom:"name"`
	Status           string         `json:"status" dom:"name"`
	StatusVersion    *int64         `json:"status_version" dom:"status_version"`
	Extra            map[string]any `json:"extra" dom:"event_extra"`
}

// version is data.status_version (default 0).
func (in *eventIn) version() int64 {
	if in.StatusVersion == nil {
		return 0
	}
	return *in.StatusVersion
}

// emitEvent records the event of in (Emit, EmitExtra, POST
// /_sim/webhooks/events) and returns its id ("" for a platform-direct
// member's, which is not recorded).
func emitEvent(x *opRun, in *eventIn) (any, error) {
	st := x.st()
	version := in.version()
	ext := strings.TrimSpace(in.ExternalMemberID)
	m := st.members.Get(x.tx, ext)
	if m == nil {
		m = st.members.ByExternal(x.tx, ext)
	}
	if m == nil {
		m = &member{ExternalID: ext}
	}
	return recordEvent(x.tx, st, strings.TrimSpace(in.EventType), strings.TrimSpace(in.Object), strings.TrimSpace(in.ID), m, in.Status, version, in.Extra), nil
}

var (
	opEventsList = def[noInput]{Route: "GET /_sim/events", Name: "Events.List", NoCall: true,
		Run:   func(x *opRun, _ *noInput) (any, error) { return x.s.wiring.view.events(x.tx), nil },
		Reply: func(_ *opRun, _ *noInput, out any) (int, any) { return http.StatusOK, controlList(out.([]Event)) },
	}.Op()
	opEventsEmit = def[eventIn]{Name: "Events.Emit", Run: emitEvent, Args: func(in *eventIn) []any {
		return []any{in.EventType, in.Object, in.ID, in.ExternalMemberID, in.Status, in.version()}
	}}.Op()
	opEventsEmitExtra = def[eventIn]{Name: "Events.EmitExtra", Run: emitEvent, Args: func(in *eventIn) []any {
		return []any{in.EventType, in.Object, in.ID, in.ExternalMemberID, in.Status, in.version(), in.Extra}
	}}.Op()
	// POST /_sim/webhooks/events has no Go method of its own: its extra
	// keeps the numbers of the body as written (json.Number), which
	// EmitExtra's arguments do not, so it is logged as the request.
	opEventsRoute = def[eventIn]{Route: "POST /_sim/webhooks/events", Status: http.StatusCreated, Run: emitEvent,
		Reply: func(_ *opRun, _ *eventIn, out any) (int, any) {
			return http.StatusCreated, map[string]any{"event_id": out}
		},
	}.Op()
)

// eventsOps declares the events' routes and methods.
var eventsOps = []*op{opEventsList, opEventsEmit, opEventsEmitExtra, opEventsRoute}

// viaJSON returns v as a JSON round trip gives it back.
func viaJSON[T any](v T) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}
