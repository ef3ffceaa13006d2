package simulator_test

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/openapi"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// The arguments of the control ops are checked against their domains by
// TestControlArgumentDomains (control_gen_test.go), generated from the
// declarations; the tests here hold the document and a few crossings.

// TestControlDocumentListsTheNames holds the names the control OpenAPI
// document lists to the ones the simulator accepts: the event types of
// SimEventType, and the outcome collections of OutcomeRequest.
func TestControlDocumentListsTheNames(t *testing.T) {
	t.Parallel()
	doc := string(openapi.Control())
	start := strings.Index(doc, "\n    SimEventType:\n")
	end := strings.Index(doc, "\n    EmitEventRequest:\n")
	if start < 0 || end < start {
		t.Fatal("no SimEventType schema before EmitEventRequest in the control document")
	}
	var documented []string
	for _, line := range strings.Split(doc[start:end], "\n") {
		if v, ok := strings.CutPrefix(line, "        - "); ok {
			documented = append(documented, v)
		}
	}
	var want []string
	for _, e := range webhooks.EventTypes() {
		want = append(want, string(e))
	}
	sort.Strings(documented)
	sort.Strings(want)
	if diff := cmp.Diff(want, documented); diff != "" {
		t.Errorf("SimEventType enum (-event types +documented):\n%s", diff)
	}

	m := regexp.MustCompile(`description: The outcome collection.\n\s+enum: \[([a-z/, ]+)\]`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("no collection enum in the control document")
	}
	got := strings.Split(strings.ReplaceAll(m[1], " ", ""), ",")
	sort.Strings(got)
	err := simtest.Start(t).Outcomes.Set("", simulator.Manual())
	var ne *simulator.NameError
	if !errors.As(err, &ne) {
		t.Fatalf("Outcomes.Set(\"\"): %v", err)
	}
	if diff := cmp.Diff(ne.Valid, got); diff != "" {
		t.Errorf("collections (-simulator +document):\n%s", diff)
	}
}

// TestInProgressTakesEveryWriteEndpoint: the endpoint check of
// StartInProgress refuses only paths no endpoint serves: every write
// endpoint of the simulator (path parameters filled in) is accepted.
func TestInProgressTakesEveryWriteEndpoint(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	param := regexp.MustCompile(`\{[^}]*\}`)
	n := 0
	for i, e := range simulator.Endpoints(sim) {
		method, path := e.Method, e.Path
		if method == http.MethodGet || method == http.MethodHead {
			continue
		}
		path = strings.TrimSuffix(param.ReplaceAllString(path, "x1"), "x1...")
		key := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		if err := sim.Requests.StartInProgress(method, path, key, nil, time.Minute); err != nil {
			t.Errorf("StartInProgress(%s %s): %v", method, path, err)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("only %d write endpoints", n)
	}
	t.Logf("%d write endpoints accepted", n)
}

// TestControlNamesOnExistingObjects: a bad name given with an object that
// exists (a card status for a card, a compensation source for a quick KYC
// binding) is a *NameError of the name, over HTTP 400 invalid_request, and
// changes nothing.
func TestControlNamesOnExistingObjects(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	e := &knobEnv{t: t, sim: sim, c: c, tok: c.token()}
	card := e.card()
	r := e.post("/v1/kyc/quick", member1, map[string]any{})
	wantStatus(t, r, 201)
	binding := r.body["id"].(string)
	before := mustDigest(t, sim)

	for _, row := range []struct {
		kind string
		call func() error
	}{
		{"card status", func() error { return sim.Cards.SetStatus(card, "activated") }},
		{"compensation source", func() error { return sim.KYC.CompensateQuickBinding(binding, "operator", "") }},
	} {
		err := row.call()
		var ne *simulator.NameError
		if !errors.As(err, &ne) || ne.Kind != row.kind || ne.NotFound || len(ne.Valid) == 0 {
			t.Errorf("%s: %T %v, want a *NameError of kind %q with the valid choices", row.kind, err, err, row.kind)
		}
	}
	wantCode(t, c.control("POST", "/_sim/cards/"+card+"/set_status", map[string]any{"status": "activated"}), 400, "invalid_request")
	wantCode(t, c.control("POST", "/_sim/kyc/quick/"+binding+"/compensate", map[string]any{"compensation_source": "operator"}), 400, "invalid_request")
	if after := mustDigest(t, sim); after != before {
		t.Errorf("refused names changed the state (digest %s -> %s)", before, after)
	}
}
