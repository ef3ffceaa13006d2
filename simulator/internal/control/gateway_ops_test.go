package control

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gatewayX is the gateway ops' tests' run: the journal and the faults.
type gatewayX struct {
	journal, faults []string
	started         []any
}

// TestRequestOps: the journal's declarations and answers, the newest
// requests of a limit, the endpoint rule and the request in progress.
func TestRequestOps(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	errNoEndpoint := errors.New("no endpoint")
	ops := NewRequestOps(RequestViews[*gatewayX, string]{
		Journal: func(x *gatewayX) []string { return x.journal },
		Reset:   func(x *gatewayX) error { x.journal = nil; return nil },
		Endpoint: func(_ *gatewayX, method, target string) error {
			if target != "/v1/x" {
				return errNoEndpoint
			}
			return nil
		},
		StartInProgress: func(x *gatewayX, method, target, key string, body []byte, d time.Duration) error {
			x.started = append(x.started, method, target, key, string(body), d)
			return nil
		},
		Now:               func(*gatewayX) time.Time { return now },
		DefaultInProgress: time.Minute,
	})
	got := []string{}
	for _, o := range []*Op[*gatewayX]{ops.List, ops.Reset, ops.StartInProgress} {
		got = append(got, o.Route+" "+o.Name)
	}
	if diff := cmp.Diff([]string{"GET /_sim/requests Requests.List", "DELETE /_sim/requests Requests.Reset",
		"POST /_sim/requests/in_progress Requests.StartInProgress"}, got); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	x := &gatewayX{journal: []string{"a", "b", "c"}}
	two := 2
	out, _ := ops.List.Run(x, &JournalQuery{Limit: &two})
	if _, body := ops.List.Reply(x, &JournalQuery{}, out); !cmp.Equal(body, List([]string{"b", "c"})) {
		t.Errorf("the newest two: %v", body)
	}
	secs := 30.0
	in := &InProgressIn{Method: "post", Path: "/v1/x", IdempotencyKey: "k", Body: "{}", Seconds: &secs}
	if err := ops.StartInProgress.Rules(x, &InProgressIn{Method: "POST", Path: "/v1/y"}); !errors.Is(err, errNoEndpoint) {
		t.Errorf("rules: %v", err)
	}
	_, args, _ := ops.StartInProgress.Call(&InProgressIn{Method: "POST", Path: "/v1/x", IdempotencyKey: "k"})
	if diff := cmp.Diff([]any{"POST", "/v1/x", "k", []byte(""), time.Minute}, args); diff != "" {
		t.Errorf("arguments with the default (-want +got):\n%s", diff)
	}
	started, err := ops.StartInProgress.Run(x, in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"method": "POST", "path": "/v1/x", "idempotency_key": "k", "until": "2026-01-01T00:00:30Z"}
	if diff := cmp.Diff(want, started); diff != "" {
		t.Errorf("in progress (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"post", "/v1/x", "k", "{}", 30 * time.Second}, x.started); diff != "" {
		t.Errorf("started (-want +got):\n%s", diff)
	}
	if reset, err := ops.Reset.Run(x, &NoInput{}); err != nil || !cmp.Equal(reset, List([]string{})) || x.journal != nil {
		t.Errorf("reset: %v, %v, journal %v", reset, err, x.journal)
	}
}

// TestFaultOps: the fault table's declarations, the public fault of an
// input, and the list each op answers.
func TestFaultOps(t *testing.T) {
	t.Parallel()
	ops := NewFaultOps(FaultViews[*gatewayX, string]{
		Fault:  func(in FaultIn) string { return in.Kind + " " + in.Path },
		List:   func(x *gatewayX) []string { return x.faults },
		Inject: func(x *gatewayX, f string) error { x.faults = append(x.faults, f); return nil },
		Clear:  func(x *gatewayX) error { x.faults = nil; return nil },
	})
	got := []string{}
	for _, o := range []*Op[*gatewayX]{ops.List, ops.Inject, ops.Clear} {
		got = append(got, o.Route+" "+o.Name)
	}
	if diff := cmp.Diff([]string{"GET /_sim/faults Faults.List", "POST /_sim/faults Faults.Inject", "DELETE /_sim/faults Faults.Clear"}, got); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	x := &gatewayX{}
	in := &FaultIn{Kind: "error", Path: "/v1/x"}
	if _, args, _ := ops.Inject.Call(in); !cmp.Equal([]any{"error /v1/x"}, args) {
		t.Errorf("Faults.Inject's arguments: %v", args)
	}
	if out, err := ops.Inject.Run(x, in); err != nil || !cmp.Equal(out, List([]string{"error /v1/x"})) {
		t.Errorf("inject: %v, %v", out, err)
	}
	if status, body := ops.List.Reply(x, &NoInput{}, x.faults); status != http.StatusOK || !cmp.Equal(body, List([]string{"error /v1/x"})) {
		t.Errorf("list: %d %v", status, body)
	}
	if out, err := ops.Clear.Run(x, &NoInput{}); err != nil || !cmp.Equal(out, List([]string{})) || x.faults != nil {
		t.Errorf("clear: %v, %v, faults %v", out, err, x.faults)
	}
}
