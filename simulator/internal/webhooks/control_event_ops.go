package webhooks

import (
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The events' ops (GET /_sim/events, POST /_sim/webhooks/events,
// Events.Emit and Events.EmitExtra), over the declaring package's run of
// one op X: the list answers the declaring package's public copies of the
// events (E), and an event is recorded by the declaring package, which
// finds its member.

// EventIn is the body of POST /_sim/webhooks/events and the arguments of
// Events.Emit and Events.EmitExtra.
type EventIn struct {
	EventType        string         `json:"event_type" dom:"event_type,req"`
	Object           string         `json:"object" dom:"event_object,req"`
	ID               string         `json:"id" dom:"name,req"`
	ExternalMemberID string         `json:"external_member_id" dom:"name"`
	Status           string         `json:"status" dom:"name"`
	StatusVersion    *int64         `json:"status_version" dom:"status_version"`
	Extra            map[string]any `json:"extra" dom:"event_extra"`
}

// Version is data.status_version (default 0).
func (in *EventIn) Version() int64 {
	if in.StatusVersion == nil {
		return 0
	}
	return *in.StatusVersion
}

// EventOps are the events' ops, by Go method; Route is POST
// /_sim/webhooks/events, which has no Go method of its own.
type EventOps[X any] struct {
	List, Emit, EmitExtra, Route *control.Op[X]
}

// NewEventOps declares the ops; events gives the events recorded so far as
// their public copies, oldest first, and record records an event of the
// member externalMemberID (an external_member_id or mem_ id) and returns
// its id ("" when it is not recorded).
func NewEventOps[X, E any](events func(X) []E, record func(x X, e kernel.Event, externalMemberID string) string) *EventOps[X] {
	emit := func(x X, in *EventIn) (any, error) {
		version := in.Version()
		ext := strings.TrimSpace(in.ExternalMemberID)
		e := kernel.Event{Type: strings.TrimSpace(in.EventType), Object: strings.TrimSpace(in.Object), ObjectID: strings.TrimSpace(in.ID),
			Status: in.Status, Version: version, Extra: in.Extra}
		return record(x, e, ext), nil
	}
	return &EventOps[X]{
		List: control.Def[X, control.NoInput]{Route: "GET /_sim/events", Name: "Events.List", NoCall: true,
			Run:   func(x X, _ *control.NoInput) (any, error) { return events(x), nil },
			Reply: func(_ X, _ *control.NoInput, out any) (int, any) { return http.StatusOK, control.List(out.([]E)) },
		}.Op(),
		Emit: control.Def[X, EventIn]{Name: "Events.Emit", Run: emit, Args: func(in *EventIn) []any {
			return []any{in.EventType, in.Object, in.ID, in.ExternalMemberID, in.Status, in.Version()}
		}}.Op(),
		EmitExtra: control.Def[X, EventIn]{Name: "Events.EmitExtra", Run: emit, Args: func(in *EventIn) []any {
			return []any{in.EventType, in.Object, in.ID, in.ExternalMemberID, in.Status, in.Version(), in.Extra}
		}}.Op(),
		// Its extra keeps the numbers of the body as written
		// (json.Number), which EmitExtra's arguments do not, so it is
		// logged as the request.
		Route: control.Def[X, EventIn]{Route: "POST /_sim/webhooks/events", Status: http.StatusCreated, Run: emit,
			Reply: func(_ X, _ *EventIn, out any) (int, any) {
				return http.StatusCreated, map[string]any{"event_id": out}
			},
		}.Op(),
	}
}
