package simulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// controlBody is one control endpoint that takes a body (or none).
type controlBody struct {
	method, path string
	base, field  string
}

// TestControlWireFormat sends every malformation, plus an unknown field
// (the control API refuses what it does not know), to every control
// endpoint and object action that takes a body or none: each answers 400
// invalid_request with the envelope and X-Request-Id, and changes nothing.
func TestControlWireFormat(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	c := w.c
	order := w.post("/v1/remittances", member1, `{"payee_id":"`+w.payeeID+`","payout_amount":"10.00","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"}`)
	wantStatus(t, order, http.StatusCreated)
	orderID, _ := order.body["id"].(string)
	binding := w.post("/v1/kyc/quick", member1, `{"email":"ctl@example.com"}`)
	wantStatus(t, binding, http.StatusCreated)
	bindingID, _ := binding.body["id"].(string)

	eps := []controlBody{
		{"POST", "/_sim/clock", `{"advance":"0s"}`, "advance"},
		{"POST", "/_sim/members", `{"external_member_id":"wire-m","kyc_level":1}`, "external_member_id"},
		{"POST", "/_sim/merchant", `{"status":"active"}`, "status"},
		{"POST", "/_sim/keys", `{"client_id":"wire-key"}`, "client_id"},
		{"POST", "/_sim/keys/sim_client_1", `{"environment":"sandbox"}`, "environment"},
		{"POST", "/_sim/faults", `{"path":"/v1/none","kind":"error","code":"api_error"}`, "path"},
		{"POST", "/_sim/outcomes", `{"collection":"qrpay/orders","mode":"manual"}`, "mode"},
		{"POST", "/_sim/step-up/00000000-0000-4000-8000-000000000000/complete", `{}`, ""},
		{"POST", "/_sim/webhooks/endpoints", `{"url":"http://127.0.0.1:9/hook"}`, "url"},
		{"POST", "/_sim/webhooks/endpoints/whe_none/disable", `{}`, ""},
		{"POST", "/_sim/webhooks/endpoints/whe_none/enable", `{}`, ""},
		{"POST", "/_sim/webhooks/events", `{"event_type":"member.created","object":"member","id":"x","external_member_id":"member-1","status":"created","status_version":0}`, "event_type"},
		{"POST", "/_sim/webhooks/auto", `{"enabled":false}`, "enabled"},
		{"POST", "/_sim/webhooks/flush", `{}`, ""},
		{"POST", "/_sim/webhooks/deliveries/" + w.delivery + "/redeliver", `{}`, ""},
		{"DELETE", "/_sim/faults", `{}`, ""},
		{"DELETE", "/_sim/requests", `{}`, ""},
		{"DELETE", "/_sim/webhooks/endpoints/whe_none", `{}`, ""},
	}
	eps = append(eps, knobBodies(member1, w.cardID)...)
	// Every object action, on a real object where the action reads a body.
	actionBodies := map[string][2]string{
		"cards/transactions":     {`{"kind":"auth","status":"succeed","direction":"none","amount":"0","currency":"USD"}`, "kind"},
		"cards/set_status":       {`{"status":"frozen"}`, "status"},
		"cards/upstream_balance": {`{"readable":true}`, "readable"},
		"kyc/approve":            {`{"level":1}`, "level"},
		"kyc/quick/compensate":   {`{"compensation_source":"admin"}`, "compensation_source"},
		"members/status":         {`{"status":"active"}`, "status"},
		"merchant/prepaid/topup": {`{"asset":"USDT","amount":"1"}`, "asset"},
		"remittances/fail":       {`{"failure_code":"payout_rejected"}`, "failure_code"},
		"remittances/complete":   {`{"settled_amount":""}`, "settled_amount"},
	}
	ids := map[string]string{
		"cards": w.cardID, "kyc": member1, "kyc/quick": bindingID, "members": member1, "remittances": orderID,
	}
	for _, key := range w.sim.Actions() {
		i := strings.LastIndex(key, "/")
		coll, action := key[:i], key[i+1:]
		path := "/_sim/" + coll + "/" + ids[coll] + "/" + action
		if ids[coll] == "" {
			path = "/_sim/" + coll + "/none/" + action
		}
		if key == "merchant/prepaid/topup" {
			path = "/_sim/" + key
		}
		base, field := `{}`, ""
		if b, ok := actionBodies[key]; ok {
			base, field = b[0], b[1]
		}
		eps = append(eps, controlBody{"POST", path, base, field})
	}

	// The business table runs every malformation through the one decoder;
	// here each control endpoint gets one of each kind of refusal.
	ms := []malformation{{name: "unknown field", make: func(b, _ string) string { return withMember(b, `"no_such_field":1`) }}}
	for _, m := range malformations {
		switch m.name {
		case "trailing brace", "second object", "array at top level", "truncated", "duplicate key",
			"upper-case key", "unicode look-alike key", "invalid UTF-8", "number for a string", "object for a string":
			ms = append(ms, m)
		}
	}
	n := 0
	before := controlFingerprint(t, w)
	for _, ep := range eps {
		for _, m := range ms {
			if m.typeError && ep.field == "" || m.name == "number for a string" && numericField(ep.base, ep.field) {
				continue
			}
			body := m.make(ep.base, ep.field)
			r := c.send(ep.method, ep.path, []byte(body), http.Header{"Content-Type": {"application/json"}})
			if r.status != http.StatusBadRequest || r.code() != "invalid_request" || !wireRefusal(r) {
				t.Errorf("%s %s, %s: %q: want 400 invalid_request, got %v", ep.method, ep.path, m.name, body, r)
			} else {
				checkEnvelope(t, r)
			}
			if after := controlFingerprint(t, w); after != before {
				t.Errorf("%s %s, %s: the request changed the simulator", ep.method, ep.path, m.name)
				before = after
			}
			n++
		}
		r := c.send(ep.method, ep.path, []byte(ep.base), http.Header{"Content-Type": {"application/json"}})
		if r.err != nil || wireRefusal(r) {
			t.Errorf("%s %s with the valid body %s: %v", ep.method, ep.path, ep.base, r)
		}
		before = controlFingerprint(t, w)
	}
	t.Logf("%d malformed control requests over %d control endpoints and actions", n, len(eps))

	// The table is the class: every control route that takes a body is in it.
	// The flush has its own handler (it answers while deliveries run).
	for _, route := range append(simulator.ControlRoutes(w.sim), "POST /_sim/webhooks/flush") {
		method, pattern, _ := strings.Cut(route, " ")
		if method == "GET" || pattern == "" {
			continue // a read, or the router's not_found under /_sim
		}
		covered := false
		for _, ep := range eps {
			covered = covered || ep.method == method && routeMatches(pattern, ep.path)
		}
		if !covered {
			t.Errorf("control route %s is not in the wire-format table", route)
		}
	}
}

// knobBodies are the control routes that call the Go control API
// (controlGo), each with a valid body and the field the type-error
// malformations replace, for member and card.
func knobBodies(member, card string) []controlBody {
	return []controlBody{
		{"POST", "/_sim/cards/limits", `{"form_factor":"virtual","limit":3}`, "form_factor"},
		{"POST", "/_sim/cards/bin_authorizations", `{"bins":["411111"]}`, "bins"},
		{"POST", "/_sim/cards/products/none/enabled", `{"enabled":true}`, "enabled"},
		{"POST", "/_sim/members/" + member + "/card_penalty", `{"outstanding":false}`, "outstanding"},
		{"POST", "/_sim/members/" + member + "/kyc_country", `{"country":"TH"}`, "country"},
		{"POST", "/_sim/members/" + member + "/shipping_addresses", `{"country":"TH","default":false}`, "country"},
		{"POST", "/_sim/cards/" + card + "/refuse_close", `{"refuse":false}`, "refuse"},
		{"POST", "/_sim/cards/topups/upstream_timeout", `{"count":0}`, "count"},
		{"POST", "/_sim/kyc/quick", `{"enabled":true}`, "enabled"},
		{"POST", "/_sim/members/" + member + "/funds_protection", `{"enabled":false}`, "enabled"},
		{"POST", "/_sim/merchant/prepaid/withdraw", `{"asset":"USDT","amount":"0.000001"}`, "asset"},
		{"POST", "/_sim/merchant/pobo_subaccount", `{"active":true}`, "active"},
		{"POST", "/_sim/qrpay/line", `{"enabled":true}`, "enabled"},
		{"POST", "/_sim/qrpay/scenarios", `{"code_value":"none","scenarios":[]}`, "code_value"},
		{"POST", "/_sim/qrpay/fiat_rates", `{"currency":"THB","usd_per_unit":"0.028"}`, "currency"},
		{"POST", "/_sim/merchant/write_quota", `{"per_minute":1000}`, "per_minute"},
		{"POST", "/_sim/keys/sim_client_1/sign", `{"method":"GET","path":"/v1/assets"}`, "method"},
		{"POST", "/_sim/requests/in_progress", `{"method":"POST","path":"/v1/deposits","idempotency_key":"00000000-0000-4000-8000-0000000000aa","body":"{}","seconds":1}`, "method"},
	}
}

// routeMatches reports whether path fits the ServeMux pattern ("{x}" is
// one segment, "{x...}" the rest).
func routeMatches(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i, p := range ps {
		if strings.HasSuffix(p, "...}") {
			return len(xs) >= i
		}
		if i >= len(xs) || !strings.HasPrefix(p, "{") && p != xs[i] {
			return false
		}
	}
	return len(ps) == len(xs)
}

// controlFingerprint is fingerprint plus the Keys, which only the control
// API shows.
func controlFingerprint(t *testing.T, w *world) string {
	t.Helper()
	keys := w.c.send("GET", "/_sim/keys", nil, nil)
	return fingerprint(t, w.sim) + string(keys.raw)
}

// numericField reports whether field holds a number in base.
func numericField(base, field string) bool {
	i := strings.Index(base, `"`+field+`":`)
	if i < 0 {
		return false
	}
	v := base[i+len(field)+3:]
	return v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}
