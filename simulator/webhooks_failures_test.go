package simulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// A receiver built as a production receiver is (webhooks.Handler on the
// wall clock) refuses every delivery of the embedded simulator, whose clock
// starts at 2026-01-01. None of that may be silent: Flush returns a
// *FlushError naming the delivery, the receiver's status and answer, and a
// hint; the delivery row and the control API keep the answer; the handler
// logs why when it has a logger. The receiver the simulator hands out
// (sim.Webhooks.Handler) verifies on the simulator's clock and accepts.
func TestWebhookRefusalsAreNeverSilent(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	secret := mwallet.Secret(sim.Credentials().WebhookSecret)

	var logged bytes.Buffer
	wall := httptest.NewServer(webhooks.Handler(secret, nil, webhooks.WithLogger(slog.New(slog.NewTextHandler(&logged, nil)))))
	t.Cleanup(wall.Close)
	var handled atomic.Int32
	ok := httptest.NewServer(sim.Webhooks.Handler(func(context.Context, webhooks.Event) error {
		handled.Add(1)
		return nil
	}))
	t.Cleanup(ok.Close)
	wallID, _, err := sim.Webhooks.AddEndpoint(wall.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sim.Webhooks.AddEndpoint(ok.URL); err != nil {
		t.Fatal(err)
	}
	evID := mustEmit(t, sim, "card.status.updated", "card", "c-1", "active", 2)

	res, err := sim.Webhooks.Flush(context.Background())
	var fe *simulator.FlushError
	if !errors.As(err, &fe) {
		t.Fatalf("Flush = %+v, %v; want a *FlushError", res, err)
	}
	if counts(res) != [3]int{2, 1, 1} || handled.Load() != 1 {
		t.Fatalf("flush = %+v, handled %d; want one sent (simulator's receiver) and one failed (wall-clock receiver)", res, handled.Load())
	}
	f := res.Failures[0]
	wantAnswer := "invalid signature: webhooks: signature timestamp out of range: timestamp stale by"
	if f.EventID != evID || f.EndpointID != wallID || f.URL != wall.URL || f.StatusCode != http.StatusBadRequest ||
		!strings.HasPrefix(f.Response, wantAnswer) || f.Status != "pending" || f.NextAttemptAt == nil {
		t.Errorf("failure = %+v; want event %s to %s answered 400 %q..., pending with a retry", f, evID, wallID, wantAnswer)
	}
	msg := err.Error()
	for _, want := range []string{"1 of 2 webhook delivery attempts failed", "card.status.updated " + evID, "receiver answered 400: " + wantAnswer,
		"sim.Webhooks.Handler", "webhooks.WithClock(sim.Clock.Now)", "2026-01-01T00:00:00Z"} {
		if !strings.Contains(msg, want) {
			t.Errorf("FlushError %q lacks %q", msg, want)
		}
	}
	// The row keeps the status and the answer of the attempt.
	for _, d := range sim.Webhooks.Deliveries() {
		if d.EndpointID != wallID {
			continue
		}
		a := d.Attempts[0]
		if a.StatusCode != http.StatusBadRequest || !strings.HasPrefix(a.Response, wantAnswer) || !strings.HasPrefix(a.Error, "receiver answered 400: "+wantAnswer) {
			t.Errorf("attempt = %+v", a)
		}
	}
	// The handler said why in its log.
	if !strings.Contains(logged.String(), "webhook signature rejected") || !strings.Contains(logged.String(), "timestamp stale by") {
		t.Errorf("handler log %q lacks the reason", logged.String())
	}

	// The control API shows the same: the rows' attempts, and the flush's
	// failures and hint in a 200 answer.
	sim.Clock.Advance(61e9) // the retry falls due
	resp, err := http.Post(sim.URL()+"/_sim/webhooks/flush", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var out simulator.FlushResult
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /_sim/webhooks/flush: %d %s", resp.StatusCode, b)
	}
	if out.Failed != 1 || len(out.Failures) != 1 || !strings.HasPrefix(out.Failures[0].Response, wantAnswer) || !strings.Contains(out.Hint, "sim.Webhooks.Handler") {
		t.Errorf("control flush = %s", b)
	}
	resp, err = http.Get(sim.URL() + "/_sim/webhooks/deliveries")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"response":"`+wantAnswer) {
		t.Errorf("GET /_sim/webhooks/deliveries lacks the answer: %s", b)
	}
}

// The answer kept on an attempt is its beginning: at most 512 bytes, valid
// UTF-8 (a character cut by the limit dropped), control characters blanked;
// a 2xx answer is kept too; an empty failing answer says so.
func TestWebhookAttemptKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300) // 600 bytes: the 512th byte cuts a character
	tests := []struct {
		name   string
		status int
		body   string
		want   string
		err    string
	}{
		{"refusal", 401, "unauthorised\r\n", "unauthorised", "receiver answered 401: unauthorised"},
		{"empty refusal", 500, "", "", "receiver answered 500 with an empty body"},
		{"long answer", 503, long, strings.Repeat("é", 256), "receiver answered 503: " + strings.Repeat("é", 256)},
		{"control bytes", 400, "a\x00b\x1bc\td", "a b c\td", "receiver answered 400: a b c\td"},
		{"success", 200, "ok\n", "ok", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			if _, _, err := sim.Webhooks.AddEndpoint(srv.URL); err != nil {
				t.Fatal(err)
			}
			evID := mustEmit(t, sim, "card.status.updated", "card", "c-1", "active", 2)
			res, err := sim.Webhooks.Flush(context.Background())
			if (err != nil) != (tt.err != "") {
				t.Fatalf("Flush = %+v, %v", res, err)
			}
			a := oneRow(t, sim, evID).Attempts[0]
			if a.StatusCode != tt.status || a.Response != tt.want || a.Error != tt.err {
				t.Errorf("attempt = %d %q %q, want %d %q %q", a.StatusCode, a.Response, a.Error, tt.status, tt.want, tt.err)
			}
		})
	}
}

// A receiver that does not answer is a failure too, with no status.
func TestWebhookFlushErrorWithoutAnswer(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	if _, _, err := sim.Webhooks.AddEndpoint(url); err != nil {
		t.Fatal(err)
	}
	mustEmit(t, sim, "card.status.updated", "card", "c-1", "active", 2)
	_, err := sim.Webhooks.Flush(context.Background())
	var fe *simulator.FlushError
	if !errors.As(err, &fe) || fe.Result.Failures[0].StatusCode != 0 || fe.Result.Failures[0].Error == "" || !strings.Contains(err.Error(), url) {
		t.Fatalf("Flush error = %v", err)
	}
}
