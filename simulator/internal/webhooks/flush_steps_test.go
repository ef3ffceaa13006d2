package webhooks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlushSteps: the flush's steps take the due delivery into flight,
// give it back, take it again and record the receiver's answer; an attempt
// of an unknown delivery is refused.
func TestFlushSteps(t *testing.T) {
	t.Parallel()
	l, _, svc, tx := newLine(t, Sandbox)
	eid := addEndpoint(t, l, tx, EndpointConfig{URL: "http://a/hook"})
	ev := queue(l, svc, tx, "card.created")
	jobs := l.DueStep(tx)
	if len(jobs) != 1 || len(l.DueStep(tx)) != 0 {
		t.Fatalf("due jobs %+v, want one, then none while in flight", jobs)
	}
	l.ReleaseStep(tx, []string{jobs[0].DeliveryID})
	again := l.DueStep(tx)
	if len(again) != 1 || again[0].DeliveryID != jobs[0].DeliveryID {
		t.Fatalf("due after release: %+v", again)
	}
	ok, _, err := l.AttemptedStep(tx, again[0].DeliveryID, svc.Clock, 200, "ok", "")
	if !ok || err != nil {
		t.Fatalf("attempt: ok %v, err %v", ok, err)
	}
	if ok, _, err := l.AttemptedStep(tx, "whd_none", svc.Clock, 200, "", ""); ok || err == nil {
		t.Errorf("attempt of an unknown delivery: ok %v, err %v", ok, err)
	}
	if diff := cmp.Diff([]string{eid + ":sent"}, rowsOf(l, tx, ev.ID)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
