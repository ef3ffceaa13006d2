package webhooks

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// recorded is what the test's record was handed.
type recorded struct {
	Event  kernel.Event
	Member string
}

// TestEventOps: an event is recorded trimmed (its status as given) with
// version 0 when none is sent, the Go calls carry the input's arguments,
// the route answers the event's id, and the list answers the public copies
// as the control API's envelope.
func TestEventOps(t *testing.T) {
	t.Parallel()
	var got []recorded
	ops := NewEventOps(func(opRun) []string { return []string{"evt_1"} }, func(_ opRun, e kernel.Event, ext string) string {
		got = append(got, recorded{e, ext})
		return "evt_" + e.ObjectID
	})
	if diff := cmp.Diff([]controltest.Decl{
		{Route: "GET /_sim/events", Name: "Events.List"},
		{Name: "Events.Emit"},
		{Name: "Events.EmitExtra"},
		{Route: "POST /_sim/webhooks/events"},
	}, controltest.Decls(ops.List, ops.Emit, ops.EmitExtra, ops.Route)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	v := int64(3)
	tests := []struct {
		name string
		op   *control.Op[opRun]
		in   EventIn
		args []any
		want recorded
	}{
		{name: "emit", op: ops.Emit,
			in:   EventIn{EventType: " card.status.updated ", Object: " card ", ID: " c1 ", ExternalMemberID: " ext-1 ", Status: " active ", StatusVersion: &v},
			args: []any{" card.status.updated ", " card ", " c1 ", " ext-1 ", " active ", int64(3)},
			want: recorded{kernel.Event{Type: "card.status.updated", Object: "card", ObjectID: "c1", Status: " active ", Version: 3}, "ext-1"}},
		{name: "emit with extras, no version", op: ops.EmitExtra,
			in:   EventIn{EventType: "kyc.quick.compensated", Object: "kyc", ID: "k1", Extra: map[string]any{"a": "b"}},
			args: []any{"kyc.quick.compensated", "kyc", "k1", "", "", int64(0), map[string]any{"a": "b"}},
			want: recorded{kernel.Event{Type: "kyc.quick.compensated", Object: "kyc", ObjectID: "k1", Extra: map[string]any{"a": "b"}}, ""}},
	}
	for _, tt := range tests {
		got = nil
		if _, args, _ := tt.op.Call(&tt.in); !cmp.Equal(args, tt.args) {
			t.Errorf("%s: recorded call %v, want %v", tt.name, args, tt.args)
		}
		out, err := tt.op.Run(opRun{}, &tt.in)
		if err != nil || out != "evt_"+tt.want.Event.ObjectID {
			t.Errorf("%s: answer %v, %v", tt.name, out, err)
		}
		if diff := cmp.Diff([]recorded{tt.want}, got); diff != "" {
			t.Errorf("%s: recorded (-want +got):\n%s", tt.name, diff)
		}
	}
	if status, body := ops.Route.Reply(opRun{}, &EventIn{}, "evt_9"); status != http.StatusCreated || !cmp.Equal(body, map[string]any{"event_id": "evt_9"}) {
		t.Errorf("route's answer %d %v", status, body)
	}
	out, _ := ops.List.Run(opRun{}, &control.NoInput{})
	if _, body := ops.List.Reply(opRun{}, &control.NoInput{}, out); !cmp.Equal(body, api.ListEnvelope{Data: []string{"evt_1"}}) {
		t.Errorf("list's envelope %v", body)
	}
}
