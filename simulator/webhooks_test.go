package simulator_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// delivery is one request a test receiver got.
type delivery struct {
	header http.Header
	body   []byte
}

// receiver is a real HTTP webhook receiver. answer decides the status of
// the n-th request (0-based); nil answers 200.
type receiver struct {
	mu     sync.Mutex
	got    []delivery
	answer func(n int, d delivery) int
	srv    *httptest.Server
}

func newReceiver(t *testing.T, answer func(n int, d delivery) int) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := delivery{header: r.Header.Clone(), body: body}
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, d)
		answer := rc.answer
		rc.mu.Unlock()
		status := http.StatusOK
		if answer != nil {
			status = answer(n, d)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

// flush flushes and returns the result. A failed attempt is part of what
// these tests check, so a *FlushError is not fatal here, but the rule is:
// the error is a *FlushError carrying the same result exactly when an
// attempt failed.
func flush(t *testing.T, sim *simulator.Simulator) simulator.FlushResult {
	t.Helper()
	res, err := sim.Webhooks.Flush(context.Background())
	var fe *simulator.FlushError
	switch {
	case err == nil && res.Failed == 0 && len(res.Failures) == 0:
	case errors.As(err, &fe) && res.Failed > 0 && len(res.Failures) == res.Failed:
		if diff := cmp.Diff(res, fe.Result); diff != "" {
			t.Fatalf("FlushError.Result differs from the result (-result +error):\n%s", diff)
		}
	default:
		t.Fatalf("Flush = %+v, %v: want a *FlushError exactly when an attempt failed", res, err)
	}
	return res
}

// counts is the attempt counts of a flush result.
func counts(r simulator.FlushResult) [3]int { return [3]int{r.Attempted, r.Succeeded, r.Failed} }

func mustEmit(t *testing.T, sim *simulator.Simulator, typ, object, id, status string, version int64) string {
	t.Helper()
	evID, err := sim.Events.Emit(typ, object, id, simulator.DefaultMemberExternalID, status, version)
	if err != nil || evID == "" {
		t.Fatalf("EmitEvent(%s): %q, %v", typ, evID, err)
	}
	return evID
}

// rowsOf returns the delivery rows of one event.
func rowsOf(sim *simulator.Simulator, eventID string) []simulator.WebhookDelivery {
	var out []simulator.WebhookDelivery
	for _, d := range sim.Webhooks.Deliveries() {
		if d.EventID == eventID {
			out = append(out, d)
		}
	}
	return out
}

func oneRow(t *testing.T, sim *simulator.Simulator, eventID string) simulator.WebhookDelivery {
	t.Helper()
	rows := rowsOf(sim, eventID)
	if len(rows) != 1 {
		t.Fatalf("event %s has %d delivery rows, want 1: %+v", eventID, len(rows), rows)
	}
	return rows[0]
}

// handSignature computes the v1 value independently of both SDK and
// simulator.
func handSignature(secret, ts string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func TestWebhookSignatureAndBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		env          simulator.Environment
		secret       string // per-endpoint secret; empty uses the merchant credential
		wantLivemode bool
	}{
		{name: "sandbox", env: simulator.Sandbox},
		{name: "production", env: simulator.Production, wantLivemode: true},
		{name: "endpoint secret", env: simulator.Sandbox, secret: "whsec_endpoint_own"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t, simulator.WithEnvironment(tc.env))
			rc := newReceiver(t, nil)
			id, secret, err := sim.Webhooks.AddEndpointConfig(simulator.WebhookEndpointConfig{URL: rc.srv.URL, Secret: tc.secret})
			if err != nil || !strings.HasPrefix(id, "whe_") {
				t.Fatalf("AddWebhookEndpointConfig: %q, %v", id, err)
			}
			wantSecret := tc.secret
			if wantSecret == "" {
				wantSecret = sim.Credentials().WebhookSecret
			}
			if secret != wantSecret {
				t.Fatalf("endpoint secret %q, want %q", secret, wantSecret)
			}
			sim.Clock.Advance(90 * time.Second)
			evID := mustEmit(t, sim, "card.status.updated", "card", "c-100", "active", 2)
			if res := flush(t, sim); counts(res) != [3]int{1, 1, 0} {
				t.Fatalf("flush = %+v", res)
			}
			got := rc.deliveries()
			if len(got) != 1 {
				t.Fatalf("receiver got %d requests, want 1", len(got))
			}
			d := got[0]
			for k, want := range map[string]string{"Content-Type": "application/json", "Z-Event-Id": evID, "Z-Event-Type": "card.status.updated"} {
				if v := d.header.Get(k); v != want {
					t.Errorf("header %s = %q, want %q", k, v, want)
				}
			}
			// Independent computation of the signature.
			sig := d.header.Get("Z-Signature")
			ts := strconv.FormatInt(sim.Clock.Now().Unix(), 10)
			if want := "t=" + ts + ",v1=" + handSignature(wantSecret, ts, d.body); sig != want {
				t.Errorf("z-signature = %q, want %q", sig, want)
			}
			// The SDK verifies it too, on the simulator clock.
			clock := webhooks.WithClock(sim.Clock.Now)
			if err := webhooks.Verify(d.body, sig, mwallet.Secret(wantSecret), clock); err != nil {
				t.Errorf("SDK Verify: %v", err)
			}
			if tc.secret != "" {
				err := webhooks.Verify(d.body, sig, mwallet.Secret(sim.Credentials().WebhookSecret), clock)
				if !errors.Is(err, webhooks.ErrSignatureMismatch) {
					t.Errorf("the merchant secret verified an endpoint-secret delivery: %v", err)
				}
			}
			// The body: identifiers and statuses only, in the documented shape.
			var body map[string]any
			if err := json.Unmarshal(d.body, &body); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{
				"event_id": evID, "event_type": "card.status.updated", "created_at": sim.Clock.Now().UTC().Format(time.RFC3339),
				"merchant_id": sim.Credentials().MerchantID, "livemode": tc.wantLivemode,
				"data": map[string]any{"object": "card", "id": "c-100", "external_member_id": "member-1", "status": "active", "status_version": float64(2)},
			}
			if diff := cmp.Diff(want, body); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
			ev, err := webhooks.ConstructEvent(d.body, sig, mwallet.Secret(wantSecret), clock)
			if err != nil || ev.EventID != evID || ev.Livemode != tc.wantLivemode || ev.Data.StatusVersion != 2 {
				t.Errorf("ConstructEvent = %+v, %v", ev, err)
			}
			row := oneRow(t, sim, evID)
			if row.Status != "sent" || len(row.Attempts) != 1 || row.Attempts[0].StatusCode != 200 || row.EndpointID != id {
				t.Errorf("row = %+v", row)
			}
		})
	}
}

func TestWebhookRetryScheduleToDead(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	rc := newReceiver(t, func(int, delivery) int { return http.StatusInternalServerError })
	if _, _, err := sim.Webhooks.AddEndpoint(rc.srv.URL); err != nil {
		t.Fatal(err)
	}
	t0 := sim.Clock.Now()
	evID := mustEmit(t, sim, "qrpay.order.completed", "qrpay_order", "o1", "completed", 3)
	if res := flush(t, sim); res.Attempted != 1 || res.Failed != 1 {
		t.Fatalf("first flush = %+v", res)
	}
	wantTimes := []time.Time{t0}
	at := t0
	for i, wait := range []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 120 * time.Minute, 360 * time.Minute} {
		row := oneRow(t, sim, evID)
		if row.Status != "pending" || row.NextAttemptAt == nil || !row.NextAttemptAt.Equal(at.Add(wait)) {
			t.Fatalf("after attempt %d: status %s, next %v; want pending at %v", i+1, row.Status, row.NextAttemptAt, at.Add(wait))
		}
		sim.Clock.Advance(wait - time.Second)
		if res := flush(t, sim); res.Attempted != 0 {
			t.Fatalf("retry %d attempted one second early", i+1)
		}
		sim.Clock.Advance(time.Second)
		if res := flush(t, sim); res.Attempted != 1 {
			t.Fatalf("retry %d: flush attempted %d, want 1", i+1, res.Attempted)
		}
		at = at.Add(wait)
		wantTimes = append(wantTimes, at)
	}
	row := oneRow(t, sim, evID)
	var gotTimes []time.Time
	for _, a := range row.Attempts {
		gotTimes = append(gotTimes, a.At)
		if a.StatusCode != 500 || a.Error == "" {
			t.Errorf("attempt %+v: want status 500 with an error", a)
		}
	}
	if diff := cmp.Diff(wantTimes, gotTimes); diff != "" {
		t.Errorf("attempt times (-want +got):\n%s", diff)
	}
	if row.Status != "dead" || row.NextAttemptAt != nil {
		t.Errorf("after 6 attempts: status %s, next %v; want dead, none", row.Status, row.NextAttemptAt)
	}
	if total := wantTimes[5].Sub(t0); total != 516*time.Minute {
		t.Errorf("schedule spans %v, want 8h36m", total)
	}
	sim.Clock.Advance(48 * time.Hour)
	if res := flush(t, sim); res.Attempted != 0 {
		t.Errorf("a dead delivery was attempted again: %+v", res)
	}
	// Every attempt is signed at its own time with the same event_id.
	got := rc.deliveries()
	if len(got) != 6 {
		t.Fatalf("receiver got %d requests, want 6", len(got))
	}
	for i, d := range got {
		if d.header.Get("Z-Event-Id") != evID {
			t.Errorf("attempt %d: z-event-id %q", i+1, d.header.Get("Z-Event-Id"))
		}
		if err := webhooks.Verify(d.body, d.header.Get("Z-Signature"), simulator.DefaultWebhookSecret,
			webhooks.WithClock(func() time.Time { return wantTimes[i] })); err != nil {
			t.Errorf("attempt %d: signature not valid at its attempt time: %v", i+1, err)
		}
	}
}

// lossyAck runs the SDK handler but answers 502 while dropAcks is set: the
// event is processed, the acknowledgement is lost, the service retries.
type lossyAck struct {
	mu       sync.Mutex
	dropAcks bool
	next     http.Handler
}

func (l *lossyAck) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	l.next.ServeHTTP(rec, r)
	l.mu.Lock()
	drop := l.dropAcks
	l.mu.Unlock()
	if drop {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	w.WriteHeader(rec.Code)
}

func TestWebhookRedeliveryDeduplicatedBySDKHandler(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	client := sim.Client()
	ctx := context.Background()
	var mu sync.Mutex
	var processed []string
	h := webhooks.Handler(simulator.DefaultWebhookSecret, func(_ context.Context, ev webhooks.Event) error {
		mu.Lock()
		defer mu.Unlock()
		processed = append(processed, ev.EventID)
		return nil
	}, webhooks.WithClock(sim.Clock.Now))
	lossy := &lossyAck{dropAcks: true, next: h}
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Z-Event-Id"))
		mu.Unlock()
		lossy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		t.Fatal(err)
	}
	evID := mustEmit(t, sim, "remittance.order.completed", "remittance", "9b1f0c3e-1111-4222-8333-444455556666", "completed", 4)
	flush(t, sim)
	for _, wait := range []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 120 * time.Minute, 360 * time.Minute} {
		sim.Clock.Advance(wait)
		flush(t, sim)
	}
	row := oneRow(t, sim, evID)
	if row.Status != "dead" {
		t.Fatalf("status %s, want dead", row.Status)
	}
	// A sent or pending row cannot be redelivered; a dead one can, with or
	// without its whd_ prefix, and the call is idempotent.
	key := "3c1f6a2e-8d4b-4f1a-9c2e-7b6d5a4f3e21"
	res, err := client.Webhooks.Redeliver(ctx, strings.TrimPrefix(row.ID, "whd_"), mwallet.WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != row.ID || !res.Queued || res.Response.Replayed {
		t.Errorf("Redeliver = %+v (replayed %v)", res, res.Response.Replayed)
	}
	again, err := client.Webhooks.Redeliver(ctx, row.ID, mwallet.WithIdempotencyKey(key))
	if err != nil || !again.Response.Replayed || again.ID != row.ID {
		t.Errorf("Redeliver replay = %+v, %v", again, err)
	}
	_, err = client.Webhooks.Redeliver(ctx, row.ID)
	wantAPICode(t, err, mwallet.CodeStateInvalid) // pending again
	lossy.mu.Lock()
	lossy.dropAcks = false
	lossy.mu.Unlock()
	if res := flush(t, sim); counts(res) != [3]int{1, 1, 0} {
		t.Fatalf("flush after redeliver = %+v", res)
	}
	row = oneRow(t, sim, evID)
	if row.Status != "sent" || len(row.Attempts) != 7 {
		t.Errorf("after redelivery: status %s, %d attempts; want sent, 7", row.Status, len(row.Attempts))
	}
	_, err = client.Webhooks.Redeliver(ctx, row.ID)
	wantAPICode(t, err, mwallet.CodeStateInvalid) // sent
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 7 {
		t.Errorf("receiver saw %d deliveries, want 7", len(seen))
	}
	for _, id := range seen {
		if id != evID {
			t.Errorf("delivery with event id %s, want %s (redelivery keeps the event_id)", id, evID)
		}
	}
	if diff := cmp.Diff([]string{evID}, processed); diff != "" {
		t.Errorf("processed (-want +got), the SDK Handler must deduplicate:\n%s", diff)
	}
}

func wantAPICode(t *testing.T, err error, code mwallet.Code) {
	t.Helper()
	var apiErr *mwallet.Error
	if !errors.As(err, &apiErr) || apiErr.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
	if apiErr.RequestID == "" {
		t.Errorf("error %v has no request id", err)
	}
}

func TestWebhookOutOfOrderMerged(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	tracker := webhooks.NewTracker()
	var mu sync.Mutex
	var applied, dropped []string
	h := webhooks.Handler(simulator.DefaultWebhookSecret, func(_ context.Context, ev webhooks.Event) error {
		mu.Lock()
		defer mu.Unlock()
		if tracker.Apply(ev) {
			applied = append(applied, ev.Data.Status)
		} else {
			dropped = append(dropped, ev.Data.Status)
		}
		return nil
	}, webhooks.WithClock(sim.Clock.Now))
	// The first attempt of some events fails, so later events overtake them.
	failFirst := map[string]bool{}
	attempts := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Z-Event-Id")
		mu.Lock()
		attempts[id]++
		fail := failFirst[id] && attempts[id] == 1
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		t.Fatal(err)
	}
	mustEmit(t, sim, "card.status.updated", "card", "c1", "pending", 1)
	v2 := mustEmit(t, sim, "card.status.updated", "card", "c1", "active", 2)
	mustEmit(t, sim, "card.status.updated", "card", "c1", "frozen", 3)
	// Constant-0 events: suspension, then restoration a second later; the
	// suspension's first attempt fails so the restoration arrives first.
	if err := sim.Members.SetStatus(simulator.DefaultMemberExternalID, "suspended"); err != nil {
		t.Fatal(err)
	}
	events := sim.Events.List()
	suspendID := events[len(events)-1].ID
	sim.Clock.Advance(time.Second)
	if err := sim.Members.SetStatus(simulator.DefaultMemberExternalID, "active"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	failFirst[v2], failFirst[suspendID] = true, true
	mu.Unlock()
	flush(t, sim)
	sim.Clock.Advance(time.Minute)
	if res := flush(t, sim); res.Attempted != 2 || res.Succeeded != 2 {
		t.Fatalf("retry flush = %+v, want 2 attempts", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"pending", "frozen", "active"}, applied); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"active", "suspended"}, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	card, _ := tracker.Last(webhooks.ObjectKey{Object: webhooks.ObjectCard, ID: "c1"})
	if card.Data.Status != "frozen" || card.Data.StatusVersion != 3 {
		t.Errorf("card merged to %s v%d, want frozen v3", card.Data.Status, card.Data.StatusVersion)
	}
	memberEvents := 0
	for _, e := range sim.Events.List() {
		if e.Type == "member.suspended" {
			memberEvents++
		}
	}
	if memberEvents != 2 {
		t.Errorf("%d member.suspended events, want 2", memberEvents)
	}
}

func TestWebhookDisableAndDeleteTurnPendingToNoSubscriber(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	client := sim.Client()
	ctx := context.Background()
	a, b := newReceiver(t, nil), newReceiver(t, nil)
	idA, _, err := sim.Webhooks.AddEndpoint(a.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	idB, _, err := sim.Webhooks.AddEndpoint(b.srv.URL, "card.topup.credited")
	if err != nil {
		t.Fatal(err)
	}
	evID := mustEmit(t, sim, "card.topup.credited", "card_topup", "t1", "credited", 2)
	rows := rowsOf(sim, evID)
	if len(rows) != 2 || rows[0].Status != "pending" || rows[1].Status != "pending" {
		t.Fatalf("fan-out rows = %+v, want two pending", rows)
	}
	if err := sim.Webhooks.DisableEndpoint(idA); err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, r := range rowsOf(sim, evID) {
		status[r.EndpointID] = r.Status
	}
	if diff := cmp.Diff(map[string]string{idA: "no_subscriber", idB: "pending"}, status); diff != "" {
		t.Errorf("after disabling A (-want +got):\n%s", diff)
	}
	if err := sim.Webhooks.RemoveEndpoint(idB); err != nil {
		t.Fatal(err)
	}
	for _, r := range rowsOf(sim, evID) {
		if r.Status != "no_subscriber" || r.NextAttemptAt != nil {
			t.Errorf("after deleting B: row %+v, want no_subscriber with nothing scheduled", r)
		}
	}
	if res := flush(t, sim); res.Attempted != 0 {
		t.Errorf("flush attempted %d, want 0", res.Attempted)
	}
	// No endpoint subscribes now: redelivery is refused.
	_, err = client.Webhooks.Redeliver(ctx, rows[0].ID)
	wantAPICode(t, err, mwallet.CodeStateInvalid)
	// Enabling A again makes it a subscriber; the redelivered row goes to it
	// with the same event_id.
	if err := sim.Webhooks.EnableEndpoint(idA); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Webhooks.Redeliver(ctx, rows[0].ID); err != nil {
		t.Fatal(err)
	}
	if res := flush(t, sim); counts(res) != [3]int{1, 1, 0} {
		t.Fatalf("flush = %+v", res)
	}
	got := a.deliveries()
	if len(got) != 1 || got[0].header.Get("Z-Event-Id") != evID || len(b.deliveries()) != 0 {
		t.Errorf("A got %d, B got %d deliveries", len(got), len(b.deliveries()))
	}
	if err := sim.Webhooks.RemoveEndpoint("whe_nope"); err == nil {
		t.Error("removing an unknown endpoint succeeded")
	}
}

func TestWebhookNoSubscriberRows(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	// The fixture member was created before any endpoint existed.
	created := sim.Webhooks.Deliveries()
	if len(created) != 1 || created[0].EventType != "member.created" || created[0].Status != "no_subscriber" || created[0].EndpointID != "" {
		t.Fatalf("fixture rows = %+v, want one no_subscriber member.created", created)
	}
	rc := newReceiver(t, nil)
	if _, _, err := sim.Webhooks.AddEndpoint(rc.srv.URL, "qrpay.order.completed", "qrpay.order.failed"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		typ        string
		wantRows   int
		wantStatus string
	}{
		{"card.status.updated", 1, "no_subscriber"}, // filtered out: one no_subscriber row
		{"qrpay.order.failed", 1, "pending"},
		{"qrpay.order.completed", 1, "pending"},
	}
	for _, tc := range tests {
		evID := mustEmit(t, sim, tc.typ, "qrpay_order", "o9", "x", 1)
		rows := rowsOf(sim, evID)
		if len(rows) != tc.wantRows || rows[0].Status != tc.wantStatus {
			t.Errorf("%s: rows %+v, want %d %s", tc.typ, rows, tc.wantRows, tc.wantStatus)
		}
	}
	if res := flush(t, sim); res.Succeeded != 2 {
		t.Errorf("flush = %+v, want 2 sent", res)
	}
	// Redelivering the fixture row needs a subscriber to member.created.
	client := sim.Client()
	_, err := client.Webhooks.Redeliver(context.Background(), created[0].ID)
	wantAPICode(t, err, mwallet.CodeStateInvalid)
	_, err = client.Webhooks.Redeliver(context.Background(), "whd_00000000-0000-4000-8000-000000000000")
	wantAPICode(t, err, mwallet.CodeNotFound)
	var pe *mwallet.ParamError
	if _, err := client.Webhooks.Redeliver(context.Background(), "  "); !errors.As(err, &pe) {
		t.Errorf("blank id: %v, want a *ParamError", err)
	}
}

func TestWebhookEnvironments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       simulator.Environment
		endpoints []simulator.Environment
		wantTo    []int // indexes of the endpoints that receive
	}{
		{"sandbox prefers sandbox endpoints", simulator.Sandbox, []simulator.Environment{simulator.Production, simulator.Sandbox}, []int{1}},
		{"sandbox falls back to live endpoints", simulator.Sandbox, []simulator.Environment{simulator.Production}, []int{0}},
		{"production never goes to sandbox", simulator.Production, []simulator.Environment{simulator.Sandbox}, nil},
		{"production to production", simulator.Production, []simulator.Environment{simulator.Sandbox, simulator.Production}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t, simulator.WithEnvironment(tc.env))
			var recv []*receiver
			for _, env := range tc.endpoints {
				rc := newReceiver(t, nil)
				if _, _, err := sim.Webhooks.AddEndpointConfig(simulator.WebhookEndpointConfig{URL: rc.srv.URL, Environment: env}); err != nil {
					t.Fatal(err)
				}
				recv = append(recv, rc)
			}
			evID := mustEmit(t, sim, "deposit.credited", "deposit", "77", "credited", 0)
			flush(t, sim)
			var to []int
			for i, rc := range recv {
				if len(rc.deliveries()) > 0 {
					to = append(to, i)
				}
			}
			if diff := cmp.Diff(tc.wantTo, to); diff != "" {
				t.Errorf("receivers (-want +got):\n%s", diff)
			}
			if tc.wantTo == nil && oneRow(t, sim, evID).Status != "no_subscriber" {
				t.Errorf("want a no_subscriber row")
			}
		})
	}
}

// TestWebhookReceiverCallsBack: a receiver that calls the simulator (control
// API, business API, and emitting a new event) during the delivery does not
// deadlock, and the event it causes is delivered by the same flush.
func TestWebhookReceiverCallsBack(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	client := sim.Client()
	var mu sync.Mutex
	var order []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		typ := r.Header.Get("Z-Event-Type")
		mu.Lock()
		order = append(order, typ)
		mu.Unlock()
		if typ == "card.application.approved" {
			resp, err := http.Get(sim.URL() + "/_sim/webhooks/deliveries")
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("control API during delivery: %v", err)
				w.WriteHeader(500)
				return
			}
			resp.Body.Close()
			n := 0
			for _, err := range client.Webhooks.List(r.Context(), mwallet.ListParams{}) {
				if err != nil {
					t.Errorf("List during delivery: %v", err)
				}
				n++
			}
			if _, err := sim.Events.Emit("card.status.updated", "card", "c5", "member-1", "active", 1); err != nil || n == 0 {
				t.Errorf("EmitEvent during delivery: %v (listed %d)", err, n)
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		t.Fatal(err)
	}
	mustEmit(t, sim, "card.application.approved", "card_application", "cap_1", "approved", 2)
	res := flush(t, sim)
	if counts(res) != [3]int{2, 2, 0} {
		t.Errorf("flush = %+v, want 2 sent (204 counts as success)", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"card.application.approved", "card.status.updated"}, order); diff != "" {
		t.Errorf("delivery order (-want +got):\n%s", diff)
	}
}

func TestWebhookTransportFailure(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL
	gone.Close()
	redirect := httptest.NewServer(http.RedirectHandler("/elsewhere", http.StatusFound))
	t.Cleanup(redirect.Close)
	for _, u := range []string{url, redirect.URL} {
		if _, _, err := sim.Webhooks.AddEndpoint(u); err != nil {
			t.Fatal(err)
		}
	}
	evID := mustEmit(t, sim, "card.3ds.received", "card", "c1", "received", 5)
	if res := flush(t, sim); res.Failed != 2 {
		t.Fatalf("flush = %+v, want 2 failures", res)
	}
	codes := map[int]bool{}
	for _, r := range rowsOf(sim, evID) {
		a := r.Attempts[0]
		codes[a.StatusCode] = true
		if r.Status != "pending" || a.Error == "" {
			t.Errorf("row %+v", r)
		}
	}
	if !codes[0] || !codes[302] {
		t.Errorf("attempt status codes %v, want 0 (no answer) and 302 (a redirect is not a 2xx)", codes)
	}
}

func TestWebhookDeliveriesList(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	rc := newReceiver(t, func(n int, _ delivery) int {
		if n == 0 {
			return 500
		}
		return 200
	})
	epID, _, err := sim.Webhooks.AddEndpoint(rc.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 4; i++ {
		sim.Clock.Advance(time.Second)
		ids = append(ids, mustEmit(t, sim, "exchange.order.executed", "exchange_order", "x"+strconv.Itoa(i), "executed", 0))
	}
	flush(t, sim) // the first fails (pending, retry in 1 min), three are sent
	flushedAt := sim.Clock.Now()
	var got []webhooks.Delivery
	for d, err := range sim.Client().Webhooks.List(context.Background(), mwallet.ListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if len(got) != 5 { // four events plus the fixture's member.created
		t.Fatalf("listed %d deliveries, want 5", len(got))
	}
	for i := 0; i < 4; i++ {
		d := got[i]
		if d.EventID != ids[3-i] || d.EventType != webhooks.EventExchangeOrderExecuted || d.EndpointID != epID || !d.Status.Known() || d.Attempts != 1 {
			t.Errorf("item %d = %+v (want newest first, event %s)", i, d, ids[3-i])
		}
	}
	first := got[3]
	if first.Status != webhooks.DeliveryPending || first.NextAttemptAt == nil || !first.NextAttemptAt.Equal(flushedAt.Add(time.Minute)) {
		t.Errorf("failed row = %+v, want pending with the next attempt one minute after the flush", first)
	}
	if got[0].Status != webhooks.DeliverySent || got[0].NextAttemptAt != nil {
		t.Errorf("sent row = %+v", got[0])
	}
	last := got[4]
	if last.Status != webhooks.DeliveryNoSubscriber || last.EndpointID != "" || !last.Status.Redeliverable() {
		t.Errorf("fixture row = %+v", last)
	}
}

func TestWebhookControlAPI(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	rc := newReceiver(t, nil)
	call := func(method, path string, in any) (int, map[string]any) {
		t.Helper()
		var body io.Reader
		if in != nil {
			b, _ := json.Marshal(in)
			body = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, sim.URL()+path, body)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	tests := []struct {
		name     string
		method   string
		path     string
		in       any
		want     int
		wantCode string
	}{
		{"bad url", "POST", "/_sim/webhooks/endpoints", map[string]any{"url": "ftp://x"}, 400, "invalid_request"},
		{"relative url", "POST", "/_sim/webhooks/endpoints", map[string]any{"url": "/hook"}, 400, "invalid_request"},
		{"bad environment", "POST", "/_sim/webhooks/endpoints", map[string]any{"url": rc.srv.URL, "environment": "staging"}, 400, "invalid_request"},
		{"unknown endpoint delete", "DELETE", "/_sim/webhooks/endpoints/whe_nope", nil, 404, "not_found"},
		{"unknown endpoint disable", "POST", "/_sim/webhooks/endpoints/whe_nope/disable", nil, 404, "not_found"},
		{"event without type", "POST", "/_sim/webhooks/events", map[string]any{"object": "card", "id": "c1"}, 400, "invalid_request"},
		{"event with a bad version", "POST", "/_sim/webhooks/events", map[string]any{"event_type": "card.status.updated", "object": "card", "id": "c1", "status_version": 1.5}, 400, "invalid_request"},
	}
	for _, tc := range tests {
		code, out := call(tc.method, tc.path, tc.in)
		if code != tc.want || out["code"] != tc.wantCode {
			t.Errorf("%s: %d %v, want %d %s", tc.name, code, out, tc.want, tc.wantCode)
		}
	}
	code, ep := call("POST", "/_sim/webhooks/endpoints", map[string]any{"url": rc.srv.URL, "events": []string{"kyc.quick.compensated"}})
	if code != 201 || ep["secret"] != simulator.DefaultWebhookSecret || !strings.HasPrefix(ep["id"].(string), "whe_") {
		t.Fatalf("create endpoint: %d %v", code, ep)
	}
	code, ev := call("POST", "/_sim/webhooks/events", map[string]any{
		"event_type": "kyc.quick.compensated", "object": "quick_kyc_binding", "id": "qkb_1", "external_member_id": "member-1",
		"status": "compensated", "status_version": 1767225600001, "extra": map[string]any{"compensation_source": "auto", "application_id": "cap_9"},
	})
	if code != 201 || !strings.HasPrefix(ev["event_id"].(string), "evt_") {
		t.Fatalf("emit: %d %v", code, ev)
	}
	code, fl := call("POST", "/_sim/webhooks/flush", nil)
	if code != 200 || fl["attempted"] != float64(1) || fl["succeeded"] != float64(1) {
		t.Fatalf("flush: %d %v", code, fl)
	}
	got := rc.deliveries()
	if len(got) != 1 {
		t.Fatalf("receiver got %d", len(got))
	}
	parsed, err := webhooks.ConstructEvent(got[0].body, got[0].header.Get("Z-Signature"), simulator.DefaultWebhookSecret, webhooks.WithClock(sim.Clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Data.CompensationSource != webhooks.CompensationAuto || parsed.Data.ApplicationID != "cap_9" || parsed.Data.StatusVersion != 1767225600001 {
		t.Errorf("KYC extras = %+v", parsed.Data)
	}
	code, list := call("GET", "/_sim/webhooks/deliveries", nil)
	rows, _ := list["data"].([]any)
	if code != 200 || len(rows) != 2 {
		t.Fatalf("deliveries: %d %v", code, list)
	}
	sent := rows[1].(map[string]any)
	attempts, _ := sent["attempts"].([]any)
	if sent["status"] != "sent" || len(attempts) != 1 || attempts[0].(map[string]any)["status_code"] != float64(200) {
		t.Errorf("row = %v", sent)
	}
	if code, _ := call("POST", "/_sim/webhooks/endpoints/"+ep["id"].(string)+"/disable", nil); code != 200 {
		t.Errorf("disable: %d", code)
	}
	if code, out := call("DELETE", "/_sim/webhooks/endpoints/"+strings.TrimPrefix(ep["id"].(string), "whe_"), nil); code != 200 || out["deleted"] != true {
		t.Errorf("delete without prefix: %d %v", code, out)
	}
	if code, out := call("GET", "/_sim/webhooks/endpoints", nil); code != 200 || len(out["data"].([]any)) != 0 {
		t.Errorf("endpoints after delete: %d %v", code, out)
	}
}

func TestWebhookAutoDeliver(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	arrived := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- r.Header.Get("Z-Event-Id")
	}))
	t.Cleanup(srv.Close)
	if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := sim.Webhooks.SetAutoDeliver(true); err != nil {
		t.Fatal(err)
	}
	evID := mustEmit(t, sim, "card.withdraw.completed", "card_withdrawal", "w1", "completed", 2)
	select {
	case got := <-arrived:
		if got != evID {
			t.Errorf("auto delivery of %s, want %s", got, evID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no automatic delivery")
	}
}

func TestWebhookDeliveriesNeedMerchantRead(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	creds, err := sim.Keys.Add("narrow_client", "narrow_api_key_0123456789", "narrow_signing_key_0123456789", simulator.KeySettings{Scopes: []string{"cards:read"}})
	if err != nil {
		t.Fatal(err)
	}
	client, err := mwclient.New(sim.URL(), mwallet.Credentials{
		ClientID: creds.ClientID, APIKey: mwallet.Secret(creds.APIKey), SigningKey: mwallet.Secret(creds.SigningKey),
	}, mwallet.WithClock(sim.Clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	row := sim.Webhooks.Deliveries()[0] // the fixture's no_subscriber row
	_, err = client.Webhooks.Redeliver(context.Background(), row.ID)
	wantAPICode(t, err, mwallet.CodeInsufficientScope)
	for _, err := range client.Webhooks.List(context.Background(), mwallet.ListParams{}) {
		wantAPICode(t, err, mwallet.CodeInsufficientScope)
	}
	if got := sim.Webhooks.Deliveries()[0]; got.Status != "no_subscriber" || len(got.Attempts) != 0 {
		t.Errorf("row changed: %+v", got)
	}
}

func TestWebhookFlushCancelled(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel() // the flush's caller gives up while the receiver works
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		t.Fatal(err)
	}
	evID := mustEmit(t, sim, "card.status.updated", "card", "c1", "active", 1)
	if _, err := sim.Webhooks.Flush(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("FlushWebhooks = %v, want context.Canceled", err)
	}
	row := oneRow(t, sim, evID)
	if row.Status != "pending" || len(row.Attempts) != 0 || row.NextAttemptAt == nil || row.NextAttemptAt.After(sim.Clock.Now()) {
		t.Errorf("row after a cancelled flush = %+v, want pending, no attempt, still due", row)
	}
}
