package webhooks_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/webhooks"
)

func ev(id string, typ webhooks.EventType, obj webhooks.ObjectKind, objID, status string, version int64, at time.Duration) webhooks.Event {
	return webhooks.Event{
		EventID: id, EventType: typ, CreatedAt: testNow.Add(at),
		Data: webhooks.Data{Object: obj, ID: objID, Status: status, StatusVersion: version},
	}
}

func TestTrackerOutOfOrder(t *testing.T) {
	t.Parallel()
	card := func(id, status string, v int64, at time.Duration) webhooks.Event {
		return ev(id, webhooks.EventCardStatusUpdated, webhooks.ObjectCard, "c1", status, v, at)
	}
	suspended := func(id, status string, at time.Duration) webhooks.Event {
		return ev(id, webhooks.EventMemberSuspended, webhooks.ObjectMember, "u1", status, 0, at)
	}
	earn := func(id string, objID string, v int64, at time.Duration) webhooks.Event {
		return ev(id, webhooks.EventEarnOrderSettled, webhooks.ObjectEarnOrder, objID, "settled", v, at)
	}
	tests := []struct {
		name        string
		arrivals    []webhooks.Event
		wantApplied []string
		wantLast    map[webhooks.ObjectKey]string // object -> event id
	}{
		{
			name:        "versions in order",
			arrivals:    []webhooks.Event{card("e1", "pending", 1, 0), card("e2", "active", 2, time.Second), card("e3", "frozen", 3, 2*time.Second)},
			wantApplied: []string{"e1", "e2", "e3"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "card", ID: "c1"}: "e3"},
		},
		{
			name:        "older version arriving late is dropped",
			arrivals:    []webhooks.Event{card("e1", "pending", 1, 0), card("e3", "frozen", 3, 2*time.Second), card("e2", "active", 2, time.Second)},
			wantApplied: []string{"e1", "e3"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "card", ID: "c1"}: "e3"},
		},
		{
			name:        "equal real version is dropped",
			arrivals:    []webhooks.Event{card("e2", "active", 2, time.Second), card("e2b", "active", 2, 3*time.Second)},
			wantApplied: []string{"e2"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "card", ID: "c1"}: "e2"},
		},
		{
			name: "objects are independent",
			arrivals: []webhooks.Event{card("e3", "frozen", 3, 0),
				ev("x1", webhooks.EventCardStatusUpdated, webhooks.ObjectCard, "c2", "active", 1, 0)},
			wantApplied: []string{"e3", "x1"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "card", ID: "c1"}: "e3", {Object: "card", ID: "c2"}: "x1"},
		},
		{
			name:        "constant-0: equal versions are not skipped",
			arrivals:    []webhooks.Event{suspended("s1", "suspended", 0), suspended("s2", "active", time.Minute)},
			wantApplied: []string{"s1", "s2"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "member", ID: "u1"}: "s2"},
		},
		{
			name:        "constant-0: ordered by created_at, an older one arriving late is dropped",
			arrivals:    []webhooks.Event{suspended("s2", "active", time.Minute), suspended("s1", "suspended", 0)},
			wantApplied: []string{"s2"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "member", ID: "u1"}: "s2"},
		},
		{
			name:        "constant-0: same created_at is applied",
			arrivals:    []webhooks.Event{suspended("s1", "suspended", 0), suspended("s1b", "active", 0)},
			wantApplied: []string{"s1", "s1b"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "member", ID: "u1"}: "s1b"},
		},
		{
			name:        "earn flexible interest (version 0) ordered by created_at",
			arrivals:    []webhooks.Event{earn("f1", "u1", 0, 0), earn("f2", "u1", 0, time.Hour)},
			wantApplied: []string{"f1", "f2"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "earn_order", ID: "u1"}: "f2"},
		},
		{
			name:        "earn fixed term merged by version",
			arrivals:    []webhooks.Event{earn("t2", "eo1", 2, time.Hour), earn("t1", "eo1", 1, 2*time.Hour)},
			wantApplied: []string{"t2"},
			wantLast:    map[webhooks.ObjectKey]string{{Object: "earn_order", ID: "eo1"}: "t2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := webhooks.NewTracker()
			var applied []string
			for _, e := range tc.arrivals {
				if tr.Apply(e) {
					applied = append(applied, e.EventID)
				}
			}
			if diff := cmp.Diff(tc.wantApplied, applied); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
			for k, want := range tc.wantLast {
				got, ok := tr.Last(k)
				if !ok || got.EventID != want {
					t.Errorf("Last(%v) = %s, %v; want %s", k, got.EventID, ok, want)
				}
			}
			if tr.Len() != len(tc.wantLast) {
				t.Errorf("Len() = %d, want %d", tr.Len(), len(tc.wantLast))
			}
		})
	}
}

func TestTrackerForget(t *testing.T) {
	t.Parallel()
	tr := webhooks.NewTracker()
	e3 := ev("e3", webhooks.EventCardStatusUpdated, webhooks.ObjectCard, "c1", "closed", 3, 0)
	e1 := ev("e1", webhooks.EventCardStatusUpdated, webhooks.ObjectCard, "c1", "pending", 1, 0)
	if !tr.Apply(e3) || tr.Apply(e1) {
		t.Fatal("Apply before Forget")
	}
	tr.Forget(e3.Key())
	if _, ok := tr.Last(e3.Key()); ok || tr.Len() != 0 {
		t.Error("Forget left the object")
	}
	if !tr.Apply(e1) {
		t.Error("Apply after Forget = false")
	}
}
