package validate

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestRedeliveredDeadDeliveryCountsEveryAttempt: the specification allows
// the redelivery of a dead delivery (six failed attempts), and each
// redelivery is one more attempt of the same row, so GET
// /v1/webhooks/deliveries answers attempts above 6 for it. mwallet.yaml
// says so (no maximum); every answer here validates against it.
func TestRedeliveredDeadDeliveryCountsEveryAttempt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	check := newChecker(t)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	defer failing.Close()
	sim, err := simulator.New()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	if _, _, err := sim.Webhooks.AddEndpoint(failing.URL + "/hooks"); err != nil {
		t.Fatal(err)
	}
	eventID, err := sim.Events.Emit("earn.order.settled", "earn_order", "eo_1", "member-1", "settled", 1)
	if err != nil {
		t.Fatal(err)
	}

	// token exchanges a token at the simulator's clock (the walk through
	// the retry schedule moves it by hours).
	token := func() string {
		t.Helper()
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/connect/token", nil)
		req.Header.Set("x-client-id", simulator.DefaultClientID)
		req.Header.Set("x-api-key", simulator.DefaultAPIKey)
		sim.ServeHTTP(w, req)
		var tok struct {
			AuthToken string `json:"auth_token"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &tok); err != nil || tok.AuthToken == "" {
			t.Fatalf("token exchange: %d %s", w.Code, w.Body)
		}
		return tok.AuthToken
	}
	// row lists the deliveries over the business API, validates the
	// exchange and returns the event's row.
	type row struct {
		ID       string `json:"id"`
		EventID  string `json:"event_id"`
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
	}
	list := func() row {
		t.Helper()
		w := httptest.NewRecorder()
		h := http.Header{"X-Auth-Token": {"Bearer " + token()}}
		r := httptest.NewRequest(http.MethodGet, "/v1/webhooks/deliveries", nil)
		r.Header = h
		sim.ServeHTTP(w, r)
		x := simulator.Exchange{Kind: "serve", Request: simulator.LoggedMessage{Method: "GET", Target: "/v1/webhooks/deliveries", Header: h},
			Response: &simulator.LoggedMessage{Status: w.Code, Header: w.Header(), Body: w.Body.String()}}
		check.Check(ctx, &x, "GET /v1/webhooks/deliveries")
		var page struct{ Data []row }
		if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
			t.Fatalf("deliveries: %d %s", w.Code, w.Body)
		}
		for _, d := range page.Data {
			if d.EventID == eventID {
				d.ID = ""
				return d
			}
		}
		t.Fatalf("no delivery of %s in %s", eventID, w.Body)
		return row{}
	}
	deliveryID := ""
	for _, d := range sim.Webhooks.Deliveries() {
		if d.EventID == eventID {
			deliveryID = d.ID
		}
	}
	flush := func() {
		// Every attempt fails: Flush reports it with a *FlushError.
		_, _ = sim.Webhooks.Flush(ctx)
	}

	for _, step := range []struct {
		name string
		do   func()
		want row
	}{
		{"queued", func() {}, row{EventID: eventID, Status: "pending", Attempts: 0}},
		{"six failed attempts", func() {
			for i := 0; i < 6; i++ {
				flush()
				sim.Clock.Advance(6 * time.Hour)
			}
		}, row{EventID: eventID, Status: "dead", Attempts: 6}},
		{"a redelivery that fails", func() {
			if err := sim.Webhooks.Redeliver(deliveryID); err != nil {
				t.Fatal(err)
			}
			flush()
		}, row{EventID: eventID, Status: "failed", Attempts: 7}},
		{"a second one", func() {
			if err := sim.Webhooks.Redeliver(deliveryID); err != nil {
				t.Fatal(err)
			}
			flush()
		}, row{EventID: eventID, Status: "failed", Attempts: 8}},
	} {
		step.do()
		if diff := cmp.Diff(step.want, list()); diff != "" {
			t.Errorf("%s: deliveries row (-want +got):\n%s", step.name, diff)
		}
	}
	for _, v := range check.Violations() {
		t.Errorf("violation: %s", v)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
}
