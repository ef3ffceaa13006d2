package simulator_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestRouteCallRunsDueTimersOnReplay: a call entered over HTTP runs the
// timers due then, as every control write over HTTP does, and so does its
// replay (the Go method alone does not). A QR order switched to immediate by
// the Go method is due but not run; DELETE /_sim/requests runs it.
func TestRouteCallRunsDueTimersOnReplay(t *testing.T) {
	t.Parallel()
	e := newEdge(t)
	sim := e.sim
	if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 2, Balances: map[string]string{"USDT": "5000"}}); err != nil {
		t.Fatal(err)
	}
	o, _, err := e.qrPay("member-2", thaiQR("100.00", "R1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Outcomes.SetObject(o.ID, simulator.Immediate()); err != nil {
		t.Fatal(err)
	}
	before := sim.State()
	e.raw.mustControl("DELETE", "/_sim/requests", nil)
	if diff := cmp.Diff(before, sim.State()); diff == "" {
		t.Fatal("DELETE /_sim/requests ran no due timer: the test does not reach its case")
	}
	_, last := simulator.RecordedInputs(sim, 1)
	if diff := cmp.Diff([]string{"call call Requests.Reset"}, last); diff != "" {
		t.Errorf("input logged (-want +got):\n%s", diff)
	}
	sameState(t, sim, replayOf(t, sim))
}

// TestOldRecordingsOfRouteCallsReplay: the checked-in recordings of earlier
// builds hold http inputs to routes that are now logged as calls; each
// replays to the digest of its end line, running those inputs as requests.
func TestOldRecordingsOfRouteCallsReplay(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "recordings", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	patterns := map[string]bool{}
	for route := range simulator.RouteCallNames() {
		m, p, _ := strings.Cut(route, " ")
		patterns[m+" "+p] = true
	}
	seen := map[string]int{}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var in struct{ Op, Method, Target string }
			if json.Unmarshal(line, &in) != nil || in.Op != "http" || !strings.HasPrefix(in.Target, "/_sim/") {
				continue
			}
			if route := routeOf(in.Method, in.Target, patterns); route != "" {
				seen[route]++
			}
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			rec, err := simulator.ReadRecordingFile(name)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := simulator.New(simulator.WithRecording(rec))
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			defer sim.Close()
		})
	}
	var got []string
	for route, n := range seen {
		if n > 0 {
			got = append(got, route)
		}
	}
	sort.Strings(got)
	// The routes the recordings exercise as http inputs: at least these.
	for _, want := range []string{
		"DELETE /_sim/faults", "DELETE /_sim/requests", "DELETE /_sim/webhooks/endpoints/{id}", "POST /_sim/faults",
		"POST /_sim/keys", "POST /_sim/members", "POST /_sim/merchant", "POST /_sim/outcomes",
		"POST /_sim/step-up/{challenge_id}/complete", "POST /_sim/webhooks/deliveries/{id}/redeliver",
		"POST /_sim/webhooks/endpoints", "POST /_sim/webhooks/endpoints/{id}/disable",
		"POST /_sim/webhooks/endpoints/{id}/enable", "POST /_sim/cards/{id}/transactions",
	} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no checked-in recording has an http input to %s (has %v)", want, got)
		}
	}
	t.Logf("http inputs to routes now logged as calls, by route: %v", seen)
}

// routeOf matches an http input's method and target to one of patterns
// ("POST /_sim/keys/{client_id}"), or "": a pattern with literal segments
// first, then one ending in {rest...}, which takes any path below it.
func routeOf(method, target string, patterns map[string]bool) string {
	path, _, _ := strings.Cut(target, "?")
	segs := strings.Split(path, "/")
	var rest []string
	for p := range patterns {
		m, pp, _ := strings.Cut(p, " ")
		if m != method {
			continue
		}
		ps := strings.Split(pp, "/")
		if strings.HasSuffix(pp, "...}") {
			if len(segs) >= len(ps) && slices.Equal(segs[:len(ps)-1], ps[:len(ps)-1]) {
				rest = append(rest, p)
			}
			continue
		}
		if len(ps) != len(segs) {
			continue
		}
		ok := true
		for i := range ps {
			if !strings.HasPrefix(ps[i], "{") && ps[i] != segs[i] {
				ok = false
			}
		}
		if ok {
			return p
		}
	}
	if len(rest) > 0 {
		return rest[0]
	}
	return ""
}
