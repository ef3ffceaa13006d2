package webhooks

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// fakeHost counts the background flushes asked for.
type fakeHost struct {
	flushes int
}

func (h *fakeHost) AutoFlush() { h.flushes++ }

func direct(rt *http.Transport) http.RoundTripper { return rt }

// newLine returns a line of a merchant in env whose webhook secret is
// "whsec_m", its host, its services and an open transaction (ended at test
// end).
func newLine(t *testing.T, env string) (*Line, *fakeHost, *kerneltest.Services, *kernel.Tx) {
	t.Helper()
	svc := kerneltest.New()
	svc.Env, svc.Secret = env, "whsec_m"
	tx := svc.Begin()
	t.Cleanup(tx.End)
	h := &fakeHost{}
	return New(svc.Kernel(), h, direct), h, svc, tx
}

func addEndpoint(t *testing.T, l *Line, tx *kernel.Tx, cfg EndpointConfig) string {
	t.Helper()
	v, _, err := l.AddEndpoint(tx, cfg)
	if err != nil {
		t.Fatalf("AddEndpoint(%+v): %v", cfg, err)
	}
	return v.ID
}

// queue queues a new event of type typ and returns it.
func queue(l *Line, svc *kerneltest.Services, tx *kernel.Tx, typ string) *Event {
	ev := &Event{ID: "evt_" + svc.NewUUID(tx), Type: typ, CreatedAt: svc.Clock, Object: "card", ObjectID: "c1", ExternalMemberID: "m-1", Status: "active", StatusVersion: 2}
	l.Queue(tx, *ev)
	return ev
}

// rowsOf lists endpoint and status of the rows of event id.
func rowsOf(l *Line, tx *kernel.Tx, eventID string) []string {
	var out []string
	for _, d := range l.Deliveries(tx) {
		if d.EventID == eventID {
			out = append(out, d.EndpointID+":"+d.Status)
		}
	}
	return out
}

func codeOf(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

// TestSubscribers is the fan-out rule: an event goes to every active
// endpoint of the merchant's environment that subscribes to its type; a
// sandbox event with no sandbox subscriber goes to production endpoints; a
// production event never goes to sandbox; no subscriber makes one
// no_subscriber row.
func TestSubscribers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       string
		endpoints []EndpointConfig // ids are e1, e2, ... in this order
		disable   []int            // indexes of endpoints to disable
		typ       string
		want      []string
	}{
		{"one subscriber to everything", Sandbox, []EndpointConfig{{URL: "http://a/"}}, nil, "card.created", []string{"e1:pending"}},
		{"type filter", Sandbox, []EndpointConfig{{URL: "http://a/", Events: []string{"kyc.updated"}}, {URL: "http://b/", Events: []string{" card.created "}}}, nil, "card.created", []string{"e2:pending"}},
		{"fan-out", Production, []EndpointConfig{{URL: "http://a/"}, {URL: "https://b/"}}, nil, "card.created", []string{"e1:pending", "e2:pending"}},
		{"sandbox falls back to production", Sandbox, []EndpointConfig{{URL: "http://a/", Environment: Production}}, nil, "card.created", []string{"e1:pending"}},
		{"sandbox endpoints first", Sandbox, []EndpointConfig{{URL: "http://a/", Environment: Production}, {URL: "http://b/"}}, nil, "card.created", []string{"e2:pending"}},
		{"production never to sandbox", Production, []EndpointConfig{{URL: "http://a/", Environment: Sandbox}}, nil, "card.created", []string{":no_subscriber"}},
		{"disabled endpoint", Sandbox, []EndpointConfig{{URL: "http://a/"}, {URL: "http://b/"}}, []int{0}, "card.created", []string{"e2:pending"}},
		{"nobody", Sandbox, nil, nil, "card.created", []string{":no_subscriber"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, h, svc, tx := newLine(t, tc.env)
			names := map[string]string{"": ""}
			var ids []string
			for i, cfg := range tc.endpoints {
				id := addEndpoint(t, l, tx, cfg)
				ids = append(ids, id)
				names[id] = "e" + string(rune('1'+i))
			}
			for _, i := range tc.disable {
				if _, err := l.SetEndpointDisabled(tx, ids[i], true); err != nil {
					t.Fatal(err)
				}
			}
			ev := queue(l, svc, tx, tc.typ)
			var got []string
			for _, r := range rowsOf(l, tx, ev.ID) {
				id, status, _ := strings.Cut(r, ":")
				got = append(got, names[id]+":"+status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if h.flushes != 0 {
				t.Errorf("%d background flushes with automatic delivery off", h.flushes)
			}
		})
	}
}

// TestAttemptSchedule is the retry rule of one row: failures wait 1, 5,
// 30, 120 and 360 minutes, the sixth makes the row dead; a 2xx makes it
// sent; a redelivery's single failed attempt makes it failed; a failure
// after its endpoint was disabled makes it no_subscriber.
func TestAttemptSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// answers are the attempts' results: "" a success, else the error.
		answers    []string
		redeliver  bool // redeliver after the answers, then fail once more
		disableMid bool // disable the endpoint before the last answer
		want       []string
	}{
		{"sent at once", []string{""}, false, false, []string{"sent"}},
		{"retry then sent", []string{"500", "500", ""}, false, false, []string{"pending+1m0s", "pending+5m0s", "sent"}},
		{"dead after six", []string{"x", "x", "x", "x", "x", "x"}, false, false,
			[]string{"pending+1m0s", "pending+5m0s", "pending+30m0s", "pending+2h0m0s", "pending+6h0m0s", "dead"}},
		{"redelivery fails once", []string{"x", "x", "x", "x", "x", "x"}, true, false,
			[]string{"pending+1m0s", "pending+5m0s", "pending+30m0s", "pending+2h0m0s", "pending+6h0m0s", "dead", "failed"}},
		{"endpoint disabled in flight", []string{"x"}, false, true, []string{"no_subscriber"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, _, svc, tx := newLine(t, Sandbox)
			eid := addEndpoint(t, l, tx, EndpointConfig{URL: "http://a/hook"})
			queue(l, svc, tx, "card.created")
			var got []string
			attempt := func(answer string) {
				t.Helper()
				jobs := l.Due(tx)
				if len(jobs) != 1 {
					t.Fatalf("due jobs at %s: %d, want 1", svc.Clock, len(jobs))
				}
				if tc.disableMid {
					if _, err := l.SetEndpointDisabled(tx, eid, true); err != nil {
						t.Fatal(err)
					}
				}
				code := 200
				if answer != "" {
					code = 500
				}
				ok, f, err := l.Attempted(tx, jobs[0].DeliveryID, svc.Clock, code, "", answer)
				if err != nil {
					t.Fatal(err)
				}
				if ok != (answer == "") {
					t.Fatalf("attempt answered %q: ok = %v", answer, ok)
				}
				d := l.Deliveries(tx)[0]
				s := d.Status
				if d.NextAttemptAt != nil {
					wait := d.NextAttemptAt.Sub(svc.Clock)
					s += "+" + wait.String()
					svc.Clock = *d.NextAttemptAt
				}
				if !ok && f.Status != d.Status {
					t.Errorf("failure status %q, row %q", f.Status, d.Status)
				}
				got = append(got, s)
			}
			for _, a := range tc.answers {
				attempt(a)
			}
			if tc.redeliver {
				id := l.Deliveries(tx)[0].ID
				if _, _, err := l.Redeliver(request(tx, svc.Clock, id)); err != nil {
					t.Fatal(err)
				}
				attempt("x")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("row after each attempt (-want +got):\n%s", diff)
			}
			if jobs := l.Due(tx); len(jobs) != 0 {
				t.Errorf("%d jobs still due", len(jobs))
			}
		})
	}
}

func request(tx *kernel.Tx, now time.Time, id string) *api.Request {
	r := httptest.NewRequest(http.MethodPost, "/v1/webhooks/deliveries/"+id+"/redeliver", nil)
	r.SetPathValue("id", id)
	return &api.Request{Tx: tx, Req: r, Now: now, Header: http.Header{}}
}

// TestRedeliverRefusals lists what redelivery refuses, and that nothing
// changes then.
func TestRedeliverRefusals(t *testing.T) {
	t.Parallel()
	l, _, svc, tx := newLine(t, Sandbox)
	ev := queue(l, svc, tx, "card.created") // no_subscriber: nobody subscribes
	orphan := l.Deliveries(tx)[0].ID
	eid := addEndpoint(t, l, tx, EndpointConfig{URL: "http://a/", Events: []string{"kyc.updated"}})
	queue(l, svc, tx, "kyc.updated")
	pending := l.Deliveries(tx)[1].ID
	tests := []struct{ name, id, code string }{
		{"unknown row", "whd_nope", "not_found"},
		{"pending row", pending, "state_invalid"},
		{"pending row without prefix", strings.TrimPrefix(pending, "whd_"), "state_invalid"},
		{"nobody subscribes now", orphan, "state_invalid"},
	}
	before := l.Deliveries(tx)
	for _, tc := range tests {
		if _, _, err := l.Redeliver(request(tx, svc.Clock, tc.id)); codeOf(err) != tc.code {
			t.Errorf("%s: error %v, want %s", tc.name, err, tc.code)
		}
	}
	if diff := cmp.Diff(before, l.Deliveries(tx)); diff != "" {
		t.Errorf("refused redeliveries changed the rows (-before +after):\n%s", diff)
	}
	// A subscriber appears: the orphan row goes to it, once.
	if _, err := l.SetEndpointDisabled(tx, eid, true); err != nil {
		t.Fatal(err)
	}
	addEndpoint(t, l, tx, EndpointConfig{URL: "http://b/"})
	if _, out, err := l.Redeliver(request(tx, svc.Clock, orphan)); err != nil || !cmp.Equal(out, map[string]any{"id": orphan, "queued": true}) {
		t.Fatalf("redeliver: %v %v", out, err)
	}
	if got := rowsOf(l, tx, ev.ID); len(got) != 1 || !strings.HasSuffix(got[0], ":pending") {
		t.Errorf("rows of the redelivered event: %v", got)
	}
}

// TestEndpointRefusals lists the endpoint changes the line refuses.
func TestEndpointRefusals(t *testing.T) {
	t.Parallel()
	l, _, _, tx := newLine(t, Sandbox)
	tests := []struct {
		name string
		cfg  EndpointConfig
		code string
	}{
		{"empty url", EndpointConfig{}, "invalid_fields"},
		{"relative url", EndpointConfig{URL: "/hook"}, "invalid_fields"},
		{"ftp url", EndpointConfig{URL: "ftp://a/"}, "invalid_fields"},
		{"no host", EndpointConfig{URL: "http:///x"}, "invalid_fields"},
		{"unknown environment", EndpointConfig{URL: "http://a/", Environment: "staging"}, "invalid_fields"},
		{"empty event type", EndpointConfig{URL: "http://a/", Events: []string{" "}}, "invalid_fields"},
	}
	for _, tc := range tests {
		if _, _, err := l.AddEndpoint(tx, tc.cfg); codeOf(err) != tc.code {
			t.Errorf("%s: error %v, want %s", tc.name, err, tc.code)
		}
	}
	if n := len(l.EndpointList(tx)); n != 0 {
		t.Errorf("%d endpoints after refusals", n)
	}
	for _, op := range []func() error{
		func() error { return l.RemoveEndpoint(tx, "whe_nope") },
		func() error { _, err := l.SetEndpointDisabled(tx, "nope", true); return err },
	} {
		if err := op(); !errors.Is(err, api.ErrControlNotFound) {
			t.Errorf("unknown endpoint: %v, want the host's not-found marker", err)
		}
	}
	v, secret, err := l.AddEndpoint(tx, EndpointConfig{URL: " http://a/ ", Events: []string{"b.x", "a.x"}})
	if err != nil {
		t.Fatal(err)
	}
	if secret != "whsec_m" || v.URL != "http://a/" || !cmp.Equal(v.Events, []string{"a.x", "b.x"}) || v.Environment != Sandbox {
		t.Errorf("endpoint %+v secret %q", v, secret)
	}
	if err := l.RemoveEndpoint(tx, strings.TrimPrefix(v.ID, "whe_")); err != nil {
		t.Errorf("remove by bare id: %v", err)
	}
}

// TestAutoDelivery: queuing with automatic delivery on asks the host for a
// background flush; a no_subscriber row does not.
func TestAutoDelivery(t *testing.T) {
	t.Parallel()
	l, h, svc, tx := newLine(t, Sandbox)
	l.SetAuto(tx, true)
	queue(l, svc, tx, "card.created")
	if h.flushes != 0 {
		t.Errorf("flush asked for a row without subscriber")
	}
	addEndpoint(t, l, tx, EndpointConfig{URL: "http://a/"})
	queue(l, svc, tx, "card.created")
	if h.flushes != 1 {
		t.Errorf("flushes = %d, want 1", h.flushes)
	}
}

// TestEventBody is the delivery body: identifiers and statuses, extras in
// key order after the data fields (never overriding them), livemode from
// the environment, and the job carries the endpoint's own secret.
func TestEventBody(t *testing.T) {
	t.Parallel()
	l, _, svc, tx := newLine(t, Production)
	addEndpoint(t, l, tx, EndpointConfig{URL: "http://a/", Secret: "whsec_own"})
	ev := &Event{ID: "evt_1", Type: "kyc.quick.compensated", CreatedAt: svc.Clock, Object: "kyc", ObjectID: "k1",
		ExternalMemberID: "m-1", Status: "done", StatusVersion: 3,
		Extra: map[string]any{"zeta": "z", "application_id": "app_1", "status": "forged"}}
	l.Queue(tx, *ev)
	jobs := l.Due(tx)
	if len(jobs) != 1 || jobs[0].Secret != "whsec_own" || jobs[0].URL != "http://a/" {
		t.Fatalf("jobs %+v", jobs)
	}
	want := `{"event_id":"evt_1","event_type":"kyc.quick.compensated","created_at":"2026-01-01T00:00:00Z","merchant_id":"mch_1","livemode":true,` +
		`"data":{"object":"kyc","id":"k1","external_member_id":"m-1","status":"done","status_version":3,"application_id":"app_1","zeta":"z"}}`
	if got := string(jobs[0].Body); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	if !json.Valid(jobs[0].Body) {
		t.Errorf("body is not JSON")
	}
	if ids := l.InFlight(tx); len(ids) != 1 {
		t.Errorf("in flight %v", ids)
	}
	l.Release(tx, l.InFlight(tx))
	if !l.AnyDue(tx) {
		t.Errorf("a released row is not due again")
	}
}
