package webhooks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRedeliverID: the operator's redelivery takes an id with or without
// whd_, answers the row queued, and refuses as Redeliver does.
func TestRedeliverID(t *testing.T) {
	t.Parallel()
	l, _, svc, tx := newLine(t, Sandbox)
	queue(l, svc, tx, "card.created") // no_subscriber: nobody subscribes
	orphan := l.Deliveries(tx)[0].ID
	if _, err := l.RedeliverID(tx, svc.Clock, orphan); codeOf(err) != "state_invalid" {
		t.Errorf("nobody subscribes: error %v, want state_invalid", err)
	}
	if _, err := l.RedeliverID(tx, svc.Clock, "whd_nope"); codeOf(err) != "not_found" {
		t.Errorf("unknown row: error %v, want not_found", err)
	}
	addEndpoint(t, l, tx, EndpointConfig{URL: "http://b/"})
	out, err := l.RedeliverID(tx, svc.Clock, strings.TrimPrefix(orphan, "whd_"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"id": orphan, "queued": true}, out); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}
