package simulator_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// routeCallCase is one control route that is the HTTP entry of a Go control
// method: a request to it, and a call of the method.
type routeCallCase struct {
	route      string // the declared route
	name       string // the Go method's declared name
	method     string
	path, body string
	goCall     func(sim *simulator.Simulator) error
}

// feeRate is a merchant fee rate the Merchant.Set row sets.
var feeRate int64 = 25

// routeCallCases lists every control route declared as the HTTP entry of a
// Go method (TestRouteAndGoMethodLogTheSameCall checks the list against the
// declarations); POST /_sim/outcomes enters one of two methods by its body.
func routeCallCases(clientID string) []routeCallCase {
	return []routeCallCase{
		{"POST /_sim/faults", "Faults.Inject", "POST", "/_sim/faults", `{"path": "/v1/deposits", "kind": "error", "status": 502}`,
			func(sim *simulator.Simulator) error {
				return sim.Faults.Inject(simulator.Fault{Path: "/v1/deposits", Kind: simulator.FaultError, Status: 502})
			}},
		{"DELETE /_sim/faults", "Faults.Clear", "DELETE", "/_sim/faults", "",
			func(sim *simulator.Simulator) error { return sim.Faults.Clear() }},
		{"DELETE /_sim/requests", "Requests.Reset", "DELETE", "/_sim/requests", "",
			func(sim *simulator.Simulator) error { return sim.Requests.Reset() }},
		{"POST /_sim/members", "Members.Create", "POST", "/_sim/members", `{"external_member_id": "by-http", "kyc_level": 2, "balances": {"USDT": "10"}}`,
			func(sim *simulator.Simulator) error {
				_, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "by-go", KYCLevel: 2, Balances: map[string]string{"USDT": "10"}})
				return err
			}},
		{"POST /_sim/keys", "Keys.Add", "POST", "/_sim/keys", `{"client_id": "key-http", "scopes": ["wallet:read"]}`,
			func(sim *simulator.Simulator) error {
				_, err := sim.Keys.Add("key-go", "", "", simulator.KeySettings{Scopes: []string{"wallet:read"}})
				return err
			}},
		{"POST /_sim/keys/{client_id}", "Keys.Set", "POST", "/_sim/keys/" + clientID, `{"disabled": false}`,
			func(sim *simulator.Simulator) error {
				return sim.Keys.Set(clientID, simulator.KeySettings{Disabled: simulator.Bool(false)})
			}},
		{"POST /_sim/outcomes", "Outcomes.Set", "POST", "/_sim/outcomes", `{"collection": "qrpay/orders", "mode": "immediate"}`,
			func(sim *simulator.Simulator) error {
				return sim.Outcomes.Set(simulator.CollectionQROrders, simulator.Immediate())
			}},
		{"POST /_sim/outcomes", "Outcomes.SetObject", "POST", "/_sim/outcomes", `{"object_id": "qro_none", "mode": "manual"}`,
			func(sim *simulator.Simulator) error { return sim.Outcomes.SetObject("qro_none", simulator.Manual()) }},
		{"POST /_sim/webhooks/endpoints", "Webhooks.AddEndpointConfig", "POST", "/_sim/webhooks/endpoints", `{"url": "http://127.0.0.1:9/a", "events": ["member.suspended"]}`,
			func(sim *simulator.Simulator) error {
				_, _, err := sim.Webhooks.AddEndpointConfig(simulator.WebhookEndpointConfig{URL: "http://127.0.0.1:9/b", Events: []string{"member.suspended"}})
				return err
			}},
		{"DELETE /_sim/webhooks/endpoints/{id}", "Webhooks.RemoveEndpoint", "DELETE", "/_sim/webhooks/endpoints/we_none", "",
			func(sim *simulator.Simulator) error { return sim.Webhooks.RemoveEndpoint("we_none") }},
		{"POST /_sim/webhooks/endpoints/{id}/disable", "Webhooks.DisableEndpoint", "POST", "/_sim/webhooks/endpoints/we_none/disable", "",
			func(sim *simulator.Simulator) error { return sim.Webhooks.DisableEndpoint("we_none") }},
		{"POST /_sim/webhooks/endpoints/{id}/enable", "Webhooks.EnableEndpoint", "POST", "/_sim/webhooks/endpoints/we_none/enable", "",
			func(sim *simulator.Simulator) error { return sim.Webhooks.EnableEndpoint("we_none") }},
		{"POST /_sim/webhooks/auto", "Webhooks.SetAutoDeliver", "POST", "/_sim/webhooks/auto", `{"enabled": false}`,
			func(sim *simulator.Simulator) error { return sim.Webhooks.SetAutoDeliver(false) }},
		{"POST /_sim/webhooks/deliveries/{id}/redeliver", "Webhooks.Redeliver", "POST", "/_sim/webhooks/deliveries/whd_none/redeliver", "",
			func(sim *simulator.Simulator) error { return sim.Webhooks.Redeliver("whd_none") }},
		{"POST /_sim/merchant", "Merchant.Set", "POST", "/_sim/merchant", `{"fee_rate_bps": 25, "prepaid": {"USDT": "100"}}`,
			func(sim *simulator.Simulator) error {
				return sim.Merchant.Set(simulator.MerchantSettings{FeeRateBps: &feeRate, Prepaid: map[string]string{"USDT": "100"}})
			}},
		actionRow("QRPay.Complete", "qrpay/orders/qro_none/complete", func(sim *simulator.Simulator) error { return sim.QRPay.Complete("qro_none") }),
		actionRow("QRPay.Fail", "qrpay/orders/qro_none/fail", func(sim *simulator.Simulator) error { return sim.QRPay.Fail("qro_none") }),
		actionRow("QRPay.Refund", "qrpay/orders/qro_none/refund", func(sim *simulator.Simulator) error { return sim.QRPay.Refund("qro_none") }),
		actionRow("QRPay.Timeout", "qrpay/orders/qro_none/timeout", func(sim *simulator.Simulator) error { return sim.QRPay.Timeout("qro_none") }),
		actionRow("Cards.Ship", "cards/crd_none/ship", func(sim *simulator.Simulator) error { return sim.Cards.Ship("crd_none") }),
		actionRow("Cards.CompleteClose", "cards/crd_none/close_complete", func(sim *simulator.Simulator) error { return sim.Cards.CompleteClose("crd_none") }),
		actionRow("Cards.UnlockActivation", "cards/crd_none/unlock", func(sim *simulator.Simulator) error { return sim.Cards.UnlockActivation("crd_none") }),
		actionRow("Cards.ApproveApplication", "cards/applications/cap_none/approve", func(sim *simulator.Simulator) error { return sim.Cards.ApproveApplication("cap_none") }),
		actionRow("Cards.RejectApplication", "cards/applications/cap_none/reject", func(sim *simulator.Simulator) error { return sim.Cards.RejectApplication("cap_none") }),
		actionRow("Cards.CreditTopUp", "cards/topups/ctp_none/credit", func(sim *simulator.Simulator) error { return sim.Cards.CreditTopUp("ctp_none") }),
		actionRow("Cards.RejectTopUp", "cards/topups/ctp_none/reject", func(sim *simulator.Simulator) error { return sim.Cards.RejectTopUp("ctp_none") }),
		actionRow("Cards.TimeoutTopUp", "cards/topups/ctp_none/timeout", func(sim *simulator.Simulator) error { return sim.Cards.TimeoutTopUp("ctp_none") }),
		{"POST /_sim/{rest...}", "Cards.AddTransaction", "POST", "/_sim/cards/crd_none/transactions", `{"kind": "purchase", "status": "succeed", "direction": "debit", "amount": "100", "occurred_at": "2026-01-01T10:00:00+07:00"}`,
			func(sim *simulator.Simulator) error {
				_, err := sim.Cards.AddTransaction("crd_none", simulator.CardTransaction{Kind: "purchase", Status: "succeed", Direction: "debit", Amount: "100"})
				return err
			}},
		{"POST /_sim/{rest...}", "Cards.SetStatus", "POST", "/_sim/cards/crd_none/set_status", `{"status": "frozen"}`,
			func(sim *simulator.Simulator) error { return sim.Cards.SetStatus("crd_none", "frozen") }},
		{"POST /_sim/{rest...}", "Cards.SetUpstreamBalanceReadable", "POST", "/_sim/cards/crd_none/upstream_balance", `{"readable": false}`,
			func(sim *simulator.Simulator) error { return sim.Cards.SetUpstreamBalanceReadable("crd_none", false) }},
		actionRow("Remittances.Dispatch", "remittances/rmt_none/dispatch", func(sim *simulator.Simulator) error { return sim.Remittances.Dispatch("rmt_none") }),
		actionRow("Remittances.Refund", "remittances/rmt_none/refund", func(sim *simulator.Simulator) error { return sim.Remittances.Refund("rmt_none") }),
		actionRow("Remittances.NeedsReconfirm", "remittances/rmt_none/needs_reconfirm", func(sim *simulator.Simulator) error { return sim.Remittances.NeedsReconfirm("rmt_none") }),
		actionRow("Remittances.Advance", "remittances/rmt_none/advance", func(sim *simulator.Simulator) error { _, err := sim.Remittances.Advance("rmt_none"); return err }),
		{"POST /_sim/{rest...}", "Remittances.Complete", "POST", "/_sim/remittances/rmt_none/complete", `{"settled_amount": "101.5"}`,
			func(sim *simulator.Simulator) error { return sim.Remittances.Complete("rmt_none", "101.5") }},
		{"POST /_sim/{rest...}", "Remittances.Fail", "POST", "/_sim/remittances/rmt_none/fail", `{"failure_code": "payout_rejected"}`,
			func(sim *simulator.Simulator) error { return sim.Remittances.Fail("rmt_none", "payout_rejected") }},
		actionRow("KYC.Update", "kyc/mem_none/update", func(sim *simulator.Simulator) error { return sim.KYC.Update("mem_none") }),
		actionRow("KYC.Reject", "kyc/mem_none/reject", func(sim *simulator.Simulator) error { return sim.KYC.Reject("mem_none") }),
		actionRow("KYC.CompleteSession", "kyc/sessions/kys_none/complete", func(sim *simulator.Simulator) error { return sim.KYC.CompleteSession("kys_none") }),
		{"POST /_sim/{rest...}", "KYC.Approve", "POST", "/_sim/kyc/mem_none/approve", `{"level": 2}`,
			func(sim *simulator.Simulator) error { return sim.KYC.Approve("mem_none", 2) }},
		{"POST /_sim/{rest...}", "KYC.CompensateQuickBinding", "POST", "/_sim/kyc/quick/kqb_none/compensate", `{"compensation_source": "admin"}`,
			func(sim *simulator.Simulator) error { return sim.KYC.CompensateQuickBinding("kqb_none", "admin", "") }},
		{"POST /_sim/{rest...}", "Members.SetStatus", "POST", "/_sim/members/member-1/status", `{"status": "suspended"}`,
			func(sim *simulator.Simulator) error { return sim.Members.SetStatus("member-1", "active") }},
		{"POST /_sim/{rest...}", "Merchant.TopUpPrepaid", "POST", "/_sim/merchant/prepaid/topup", `{"asset": "USDT", "amount": "25"}`,
			func(sim *simulator.Simulator) error { return sim.Merchant.TopUpPrepaid("USDT", "5") }},
		// An action without a Go method of its own, and a body its method
		// cannot say (an explicit level 0): a call of Action.
		{"POST /_sim/{rest...}", "Action", "POST", "/_sim/kyc/member-1/supplement", "{}",
			func(sim *simulator.Simulator) error {
				_, err := sim.Action("kyc/supplement", "member-1", nil)
				return err
			}},
		{"POST /_sim/{rest...}", "Action", "POST", "/_sim/remittances/rmt_none/advance", `{"settled_amount": "10"}`,
			func(sim *simulator.Simulator) error {
				_, err := sim.Action("remittances/advance", "rmt_none", []byte(`{"settled_amount": "10"}`))
				return err
			}},
		{"POST /_sim/{rest...}", "Action", "POST", "/_sim/kyc/member-1/approve", `{"level": 0}`,
			func(sim *simulator.Simulator) error {
				// Refused (level must be 1 or 2), and logged all the same.
				_, _ = sim.Action("kyc/approve", "member-1", []byte(`{"level": 0}`))
				return nil
			}},
		{"POST /_sim/step-up/{challenge_id}/complete", "StepUp.Complete", "POST", "/_sim/step-up/chl_none/complete", "",
			func(sim *simulator.Simulator) error { return sim.StepUp.Complete("chl_none") }},
	}
}

// actionRow is the row of an object action logged as a call of its own Go
// method (simulator.ActionMethods).
func actionRow(name, path string, goCall func(sim *simulator.Simulator) error) routeCallCase {
	return routeCallCase{"POST /_sim/{rest...}", name, "POST", "/_sim/" + path, "{}", goCall}
}

// recordedCalls returns the call inputs of sim's recording, in order, as
// their JSON lines decoded.
func recordedCalls(t *testing.T, sim *simulator.Simulator) []map[string]any {
	t.Helper()
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var in map[string]any
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatal(err)
		}
		if in["op"] == "call" {
			out = append(out, in)
		}
	}
	return out
}

// TestRouteAndGoMethodLogTheSameCall: every control route declared as the
// HTTP entry of a Go control method logs one call of that method, under its
// declared name, as the Go method does (the HTTP one with the route it
// entered through); the recording of both replays to the same state.
func TestRouteAndGoMethodLogTheSameCall(t *testing.T) {
	t.Parallel()
	cases := routeCallCases("")
	covered := map[string]string{}
	for _, c := range cases {
		covered[c.route] = c.name
	}
	declared := simulator.RouteCalls()
	for route := range declared {
		if _, ok := covered[route]; !ok {
			t.Errorf("%s is declared as the HTTP entry of %s but has no row here", route, declared[route])
		}
	}
	for route := range covered {
		if _, ok := declared[route]; !ok {
			t.Errorf("row %s: not declared as the HTTP entry of a Go method", route)
		}
	}
	// Every object action with a Go method of its own has a row.
	rows := map[string]bool{}
	for _, c := range cases {
		rows[c.name] = true
	}
	for key, name := range simulator.ActionMethods() {
		if !rows[name] {
			t.Errorf("object action %s (%s) has no row here", key, name)
		}
	}
	for i := range cases {
		t.Run(cases[i].name, func(t *testing.T) {
			t.Parallel()
			sim, rc := newRaw(t)
			c := routeCallCases(sim.Credentials().ClientID)[i]
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			h := http.Header{}
			h.Set("Content-Type", "application/json")
			if res := rc.send(c.method, c.path, body, h); res.err != nil || res.status >= 500 {
				t.Fatalf("%s %s: %v", c.method, c.path, res)
			}
			// Unknown ids are refused, and logged all the same.
			if err := c.goCall(sim); err != nil && !strings.Contains(c.path+c.body, "none") {
				t.Fatalf("%s: %v", c.name, err)
			}
			_, last := simulator.RecordedInputs(sim, 2)
			want := []string{"call call " + c.name, "call call " + c.name}
			if diff := cmp.Diff(want, last); diff != "" {
				t.Errorf("inputs logged by %s and by %s (-want +got):\n%s", c.route, c.name, diff)
			}
			calls := recordedCalls(t, sim)
			if len(calls) < 2 {
				t.Fatalf("%d calls recorded", len(calls))
			}
			var routes []any
			for _, in := range calls[len(calls)-2:] {
				routes = append(routes, in["route"])
			}
			if diff := cmp.Diff([]any{c.route, nil}, routes); diff != "" {
				t.Errorf("routes the calls entered through (-want +got):\n%s", diff)
			}
			sameState(t, sim, replayOf(t, sim))
		})
	}
}

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
	for route := range simulator.RouteCalls() {
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
		"POST /_sim/webhooks/endpoints/{id}/enable", "POST /_sim/{rest...}",
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
