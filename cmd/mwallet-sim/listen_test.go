package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// received is one delivery as the forward target saw it.
type received struct {
	eventID, eventType string
	verifyErr          error
	event              webhooks.Event
}

// target is a forward target that verifies every delivery with the SDK and
// answers status.
func target(t *testing.T, sim *simulator.Simulator, status int) (*httptest.Server, <-chan received) {
	t.Helper()
	ch := make(chan received, 16)
	secret := sim.Credentials().WebhookSecretValue()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := received{eventID: r.Header.Get("z-event-id"), eventType: r.Header.Get("z-event-type")}
		rec.verifyErr = webhooks.Verify(body, r.Header.Get("z-signature"), secret, webhooks.WithClock(sim.Clock.Now))
		if rec.verifyErr == nil {
			rec.event, rec.verifyErr = webhooks.DecodeEvent(body)
		}
		ch <- rec
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return srv, ch
}

// syncBuffer is a bytes.Buffer safe for the listener's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startListen runs "mwallet-sim listen" until the test stops it with the
// returned function, which waits for the command to return.
func startListen(t *testing.T, args ...string) (stop func() error, out *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"listen"}, args...), out, out, func(u string) { ready <- u })
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("listen returned early: %v\n%s", err, out.String())
	}
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop, out
}

func TestListenForwardsDeliveriesUnchanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		want       simulator.FlushResult
		wantStatus string // delivery row status after the flush
	}{
		{"target accepts", http.StatusOK, simulator.FlushResult{Attempted: 1, Succeeded: 1}, "sent"},
		{"target fails", http.StatusServiceUnavailable, simulator.FlushResult{Attempted: 1, Failed: 1}, "pending"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			fwd, got := target(t, sim, tc.status)
			// The test flushes itself (-flush-interval 0), so every attempt
			// is complete and recorded when sim.Webhooks.Flush returns.
			stop, out := startListen(t, "-forward-to", fwd.URL+"/hooks", "-base-url", sim.URL(),
				"-events", "qrpay.order.completed", "-flush-interval", "0")
			eps := sim.Webhooks.Endpoints()
			if len(eps) != 1 || !cmp.Equal(eps[0].Events, []string{"qrpay.order.completed"}) {
				t.Fatalf("endpoints %+v", eps)
			}

			id, err := sim.Events.Emit("qrpay.order.completed", "qrpay_order", "0b6f6a52-1111-4222-8333-944455556666", "member-1", "completed", 3)
			if err != nil {
				t.Fatal(err)
			}
			// Not subscribed: recorded with no subscriber, never forwarded.
			if _, err := sim.Events.Emit("qrpay.order.failed", "qrpay_order", "0b6f6a52-1111-4222-8333-944455556667", "member-1", "failed", 3); err != nil {
				t.Fatal(err)
			}
			res, err := sim.Webhooks.Flush(context.Background())
			var fe *simulator.FlushError
			if err != nil && (res.Failed == 0 || !errors.As(err, &fe)) {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res, cmpopts.IgnoreFields(simulator.FlushResult{}, "Failures", "Hint")); diff != "" {
				t.Errorf("flush (-want +got):\n%s", diff)
			}
			rec := <-got // the flush returned, so the target has answered
			if rec.verifyErr != nil {
				t.Fatalf("the forwarded delivery does not verify: %v", rec.verifyErr)
			}
			if rec.eventID != id || rec.eventType != "qrpay.order.completed" || rec.event.EventID != id || rec.event.Data.Status != "completed" {
				t.Errorf("target got %+v, want event %s", rec, id)
			}
			select {
			case extra := <-got:
				t.Errorf("an unsubscribed event was forwarded: %+v", extra)
			default:
			}

			var row simulator.WebhookDelivery
			for _, d := range sim.Webhooks.Deliveries() {
				if d.EventID == id {
					row = d
				}
			}
			if row.Status != tc.wantStatus || len(row.Attempts) != 1 || row.Attempts[0].StatusCode != tc.status {
				t.Errorf("delivery row %+v, want %s with one attempt answered %d", row, tc.wantStatus, tc.status)
			}

			if err := stop(); err != nil {
				t.Fatalf("listen: %v", err)
			}
			if eps := sim.Webhooks.Endpoints(); len(eps) != 0 {
				t.Errorf("endpoint left behind: %+v", eps)
			}
			text := out.String()
			for _, w := range []string{
				"Ready! Forwarding qrpay.order.completed from " + sim.URL() + " to " + fwd.URL + "/hooks",
				fmt.Sprintf("qrpay.order.completed              %s  [%d] POST %s/hooks", id, tc.status, fwd.URL),
				"Removed webhook endpoint " + eps[0].ID,
			} {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			if err := sim.CheckLedger(); err != nil {
				t.Error(err)
			}
			if err := sim.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestListenFlushesAndForwardsTriggeredEvents(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	fwd, got := target(t, sim, http.StatusOK)
	stop, out := startListen(t, "-forward-to", fwd.URL, "-base-url", sim.URL(), "-flush-interval", "20ms")

	// The default events filter subscribes to everything: the new member's
	// member.created, then the order's completion.
	ev, _ := runTrigger(t, sim, "qrpay.order.completed")
	deadline := time.After(10 * time.Second)
	for seen := map[string]bool{}; !seen[ev.ID]; {
		select {
		case rec := <-got:
			if rec.verifyErr != nil {
				t.Fatalf("delivery %s does not verify: %v", rec.eventID, rec.verifyErr)
			}
			seen[rec.eventID] = true
		case <-deadline:
			t.Fatalf("event %s not forwarded within the deadline\n%s", ev.ID, out.String())
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if eps := sim.Webhooks.Endpoints(); len(eps) != 0 {
		t.Errorf("endpoint left behind: %+v", eps)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestListenArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no target", []string{"listen"}, "-forward-to is required"},
		{"relative target", []string{"listen", "-forward-to", "/hooks"}, "absolute http"},
		{"negative flush", []string{"listen", "-forward-to", "http://127.0.0.1:1/", "-flush-interval", "-1s"}, "negative"},
		{"extra argument", []string{"listen", "-forward-to", "http://127.0.0.1:1/", "now"}, "unexpected arguments"},
		{"no simulator", []string{"listen", "-forward-to", "http://127.0.0.1:1/", "-base-url", "http://127.0.0.1:1"}, "registering the webhook endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := run(context.Background(), tc.args, io.Discard, io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
