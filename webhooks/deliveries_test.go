package webhooks_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

func TestRedeliverRejectsBadIDsLocally(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	client := sim.Client()
	for _, id := range []string{"", "   ", "whd_", "whd_a/b", "a b", "x?y", "%2F"} {
		_, err := client.Webhooks.Redeliver(context.Background(), id)
		var pe *mwallet.ParamError
		if !errors.As(err, &pe) || pe.Param != "id" {
			t.Errorf("Redeliver(%q) = %v, want a *ParamError on id", id, err)
		}
	}
	for _, r := range sim.Requests.List() {
		if strings.Contains(r.Path, "/redeliver") {
			t.Errorf("a request was sent: %+v", r)
		}
	}
}

// TestRedeliverNoSubscriberRow redelivers the row recorded when no endpoint
// existed (the fixture member's member.created) once an endpoint
// subscribes, by its bare id; the event keeps its event_id.
func TestRedeliverNoSubscriberRow(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	client := sim.Client()
	ctx := context.Background()
	var rows []webhooks.Delivery
	for d, err := range client.Webhooks.List(ctx, mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, d)
	}
	if len(rows) != 1 || rows[0].Status != webhooks.DeliveryNoSubscriber || rows[0].EventType != webhooks.EventMemberCreated {
		t.Fatalf("rows = %+v, want the fixture's no_subscriber member.created", rows)
	}
	var mu sync.Mutex
	var got []webhooks.Event
	recv := httptest.NewServer(webhooks.Handler(sim.Credentials().WebhookSecretValue(), func(_ context.Context, ev webhooks.Event) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev)
		return nil
	}, webhooks.WithClock(sim.Clock.Now)))
	t.Cleanup(recv.Close)
	if _, _, err := sim.Webhooks.AddEndpoint(recv.URL, string(webhooks.EventMemberCreated)); err != nil {
		t.Fatal(err)
	}
	res, err := client.Webhooks.Redeliver(ctx, strings.TrimPrefix(rows[0].ID, "whd_"))
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != rows[0].ID || !res.Queued || res.Response == nil || res.Response.IdempotencyKey == "" {
		t.Errorf("Redeliver = %+v", res)
	}
	var sent bool
	for _, r := range sim.Requests.List() {
		if r.Method == http.MethodPost && r.Path == "/v1/webhooks/deliveries/"+rows[0].ID+"/redeliver" {
			sent = r.IdempotencyKey == res.Response.IdempotencyKey && r.Member == "" && r.Status == 200
		}
	}
	if !sent {
		t.Errorf("journal lacks the redeliver call with its idempotency key: %+v", sim.Requests.List())
	}
	if _, err := sim.Webhooks.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].EventID != rows[0].EventID || got[0].EventType != webhooks.EventMemberCreated {
		t.Fatalf("received %+v, want the original member.created event %s", got, rows[0].EventID)
	}
	if path, ok := got[0].Data.RetrievalPath(); !ok || !strings.HasPrefix(path, "/v1/members/mem_") {
		t.Errorf("RetrievalPath() = %q, %v", path, ok)
	}
	m, err := client.Members.Get(ctx, got[0].Data.ID)
	if err != nil || m.ExternalMemberID != got[0].Data.ExternalMemberID {
		t.Errorf("re-reading the member: %+v, %v", m, err)
	}
}

func TestListPagesAndStops(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	client := sim.Client()
	for i := 0; i < 5; i++ {
		sim.Clock.Advance(time.Second)
		if _, err := sim.Events.Emit("deposit.credited", "deposit", "1", "member-1", "credited", 0); err != nil {
			t.Fatal(err)
		}
	}
	count := func(limit, stopAfter int) int {
		n := 0
		for _, err := range client.Webhooks.List(context.Background(), mwallet.ListParams{Limit: limit}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if n == stopAfter {
				break
			}
		}
		return n
	}
	if n := count(2, 0); n != 6 {
		t.Errorf("listed %d rows with limit 2, want 6", n)
	}
	if n := count(100, 0); n != 6 {
		t.Errorf("listed %d rows with limit 100, want 6", n)
	}
	before := len(sim.Requests.List())
	if n := count(1, 2); n != 2 {
		t.Errorf("stopped after %d rows, want 2", n)
	}
	if calls := len(sim.Requests.List()) - before; calls > 3 { // token exchange aside, two pages
		t.Errorf("stopping early still made %d requests", calls)
	}
}
