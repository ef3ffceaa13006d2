package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/webhooks"
)

// A webhook receiver: the Handler verifies, decodes and deduplicates each
// delivery; the function re-reads the object the event names (bodies carry
// only identifiers and statuses). The embedded simulator stands in for the
// service: it signs and POSTs the events to the receiver when flushed.
func Example_receiver() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()

	handler := webhooks.Handler(sim.Credentials().WebhookSecretValue(),
		func(ctx context.Context, ev webhooks.Event) error {
			fmt.Println("received", ev.EventType, "livemode:", ev.Livemode)
			if ev.Data.Object != webhooks.ObjectMember {
				return nil
			}
			id, _ := ev.Data.RESTID() // mem_<uuid>, from the bare uuid in data.id
			m, err := client.Members.Get(ctx, id)
			if err != nil {
				return err // answered 500: the service retries later
			}
			fmt.Println("member", m.ExternalMemberID, "is now", m.Status)
			return nil
		},
		webhooks.WithClock(sim.Clock.Now), // the simulator's clock signs the deliveries
	)
	receiver := httptest.NewServer(handler)
	defer receiver.Close()

	if _, _, err := sim.Webhooks.AddEndpoint(receiver.URL, string(webhooks.EventMemberSuspended)); err != nil {
		fmt.Println(err)
		return
	}
	_ = sim.Members.SetStatus("member-1", "suspended") // emits member.suspended
	res, err := sim.Webhooks.Flush(context.Background())
	fmt.Printf("attempted %d, succeeded %d, err %v\n", res.Attempted, res.Succeeded, err)
	// Output:
	// received member.suspended livemode: false
	// member member-1 is now suspended
	// attempted 1, succeeded 1, err <nil>
}

// Verify checks a z-signature header over the raw body; its errors say why.
func ExampleVerify() {
	secret := mwallet.Secret("whsec_example")
	body := []byte(`{"event_id":"evt_1","event_type":"card.status.updated","data":{"object":"card","id":"c1"}}`)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	header := "t=1767268800,v1=" + sign("whsec_example", 1767268800, body)
	clock := webhooks.WithClock(func() time.Time { return now })

	fmt.Println(webhooks.Verify(body, header, secret, clock))

	err := webhooks.Verify(body, header, secret, webhooks.WithClock(func() time.Time { return now.Add(10 * time.Minute) }))
	fmt.Println(errors.Is(err, webhooks.ErrTimestampOutOfRange), err)

	err = webhooks.Verify(append(body, ' '), header, secret, clock)
	fmt.Println(errors.Is(err, webhooks.ErrSignatureMismatch))

	// During a rotation, accept the old and the new secret.
	err = webhooks.Verify(body, header, "whsec_new", clock, webhooks.WithSecrets(secret))
	fmt.Println(err)
	// Output:
	// <nil>
	// true webhooks: signature timestamp out of range: timestamp stale by 10m0s (tolerance 5m0s)
	// true
	// <nil>
}

// A Tracker merges events forward by status_version and drops late ones.
func ExampleTracker() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	card := func(status string, version int64) webhooks.Event {
		return webhooks.Event{EventType: webhooks.EventCardStatusUpdated, CreatedAt: t0,
			Data: webhooks.Data{Object: webhooks.ObjectCard, ID: "c1", Status: status, StatusVersion: version}}
	}
	tr := webhooks.NewTracker()
	for _, ev := range []webhooks.Event{card("pending", 1), card("frozen", 3), card("active", 2)} {
		fmt.Println(ev.Data.Status, tr.Apply(ev))
	}
	last, _ := tr.Last(webhooks.ObjectKey{Object: webhooks.ObjectCard, ID: "c1"})
	fmt.Println("current:", last.Data.Status)
	// Output:
	// pending true
	// frozen true
	// active false
	// current: frozen
}
