package simulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// malformation turns a valid body into one off the wire format. field is a
// field the endpoint reads ("" for endpoints that take no body).
type malformation struct {
	name string
	make func(base, field string) string
	// typeError marks a wrong JSON type for field (invalid_fields on the
	// endpoints that answer field problems so); needs a field.
	typeError bool
}

// withMember adds "key": value as the first member of the object base.
func withMember(base, kv string) string {
	if base == "{}" {
		return "{" + kv + "}"
	}
	return "{" + kv + "," + base[1:]
}

// renameField renames field in base, or, without a field, adds the key.
func renameField(base, field, to string) string {
	if field == "" {
		return withMember(base, `"`+to+`":1`)
	}
	return strings.Replace(base, `"`+field+`":`, `"`+to+`":`, 1)
}

// setField replaces the value of field (the first value after its key, up
// to the next comma or closing brace at depth 0: enough for the flat bodies
// of the table) with v.
func setField(base, field, v string) string {
	i := strings.Index(base, `"`+field+`":`)
	start := i + len(field) + 3
	depth, inStr := 0, false
	end := start
	for ; end < len(base); end++ {
		ch := base[end]
		switch {
		case inStr && ch == '\\':
			end++
		case ch == '"':
			inStr = !inStr
		case inStr:
		case ch == '[' || ch == '{':
			depth++
		case (ch == ']' || ch == '}') && depth > 0:
			depth--
		case (ch == ',' || ch == '}') && depth == 0:
			return base[:start] + v + base[end:]
		}
	}
	return base[:start] + v
}

var malformations = []malformation{
	{name: "trailing brace", make: func(b, _ string) string { return b + "}" }},
	{name: "trailing bracket", make: func(b, _ string) string { return b + "]" }},
	{name: "second object", make: func(b, _ string) string { return b + b }},
	{name: "trailing text", make: func(b, _ string) string { return b + " x" }},
	{name: "trailing NUL", make: func(b, _ string) string { return b + "\x00" }},
	{name: "trailing comma inside", make: func(b, _ string) string { return b[:len(b)-1] + ",}" }},
	{name: "truncated", make: func(b, _ string) string { return b[:len(b)-1] }},
	{name: "array at top level", make: func(b, _ string) string { return "[" + b + "]" }},
	{name: "string at top level", make: func(string, string) string { return `"x"` }},
	{name: "number at top level", make: func(string, string) string { return `1` }},
	{name: "null at top level", make: func(string, string) string { return `null` }},
	{name: "true at top level", make: func(string, string) string { return `true` }},
	{name: "byte order mark", make: func(b, _ string) string { return "\xef\xbb\xbf" + b }},
	{name: "comment", make: func(b, _ string) string { return "/* c */" + b }},
	{name: "single quotes", make: func(string, string) string { return `{'a':'b'}` }},
	{name: "duplicate key", make: func(b, f string) string {
		if f == "" {
			return `{"a":1,"a":1}`
		}
		return withMember(b, `"`+f+`":null`)
	}},
	{name: "upper-case key", make: func(b, f string) string { return renameField(b, f, strings.ToUpper(f + "x")[:max(len(f), 1)]) }},
	{name: "title-case key", make: func(b, f string) string {
		if f == "" {
			return renameField(b, f, "Reason")
		}
		return renameField(b, f, strings.ToUpper(f[:1])+f[1:])
	}},
	{name: "hyphenated unknown key", make: func(b, _ string) string { return withMember(b, `"extra-field":1`) }},
	{name: "unicode look-alike key", make: func(b, f string) string {
		// encoding/json matches U+017F LATIN SMALL LETTER LONG S to s and
		// U+212A KELVIN SIGN to k; the wire format does not.
		if f == "" || !strings.ContainsAny(f, "sk") {
			return withMember(b, `"ſ":1`)
		}
		return renameField(b, f, strings.NewReplacer("s", "ſ", "k", "\u212a").Replace(f))
	}},
	{name: "invalid UTF-8", make: func(b, _ string) string { return withMember(b, "\"zz\":\"\xff\xfe\"") }},
	{name: "lone surrogate escape", make: func(b, _ string) string { return withMember(b, `"zz":"\ud800"`) }},
	{name: "raw control character", make: func(b, _ string) string { return withMember(b, "\"zz\":\"a\nb\"") }},
	{name: "invalid escape", make: func(b, _ string) string { return withMember(b, `"zz":"\x41"`) }},
	{name: "leading zero number", make: func(b, _ string) string { return withMember(b, `"zz":01`) }},
	{name: "NaN", make: func(b, _ string) string { return withMember(b, `"zz":NaN`) }},
	{name: "nesting too deep", make: func(b, _ string) string {
		return withMember(b, `"zz":`+strings.Repeat("[", 40)+strings.Repeat("]", 40))
	}},
	{name: "number for a string", typeError: true, make: func(b, f string) string { return setField(b, f, `12`) }},
	{name: "object for a string", typeError: true, make: func(b, f string) string { return setField(b, f, `{}`) }},
}

// bodyEndpoint is one business write endpoint with a valid body.
type bodyEndpoint struct {
	path   string
	member bool
	base   string
	field  string // a field the endpoint reads; "" when it takes no body
	// fieldCode is the code of a wrong JSON type for field (default
	// invalid_request).
	fieldCode string
}

func bodyEndpoints(w *world) []bodyEndpoint {
	card := "/v1/cards/" + w.cardID
	return []bodyEndpoint{
		{path: "/v1/qrpay/decode", member: true, base: `{"code_value":"` + w.qr + `"}`, field: "code_value"},
		{path: "/v1/qrpay/quotes", member: true, base: `{"code_value":"` + w.qr + `"}`, field: "code_value"},
		{path: "/v1/qrpay/payments", member: true, base: `{"code_value":"` + w.qr + `","preferred_asset":"USDT"}`, field: "preferred_asset"},
		{path: "/v1/deposits", member: true, base: `{"asset":"USDT","amount":"10","reference":"wire-1"}`, field: "amount"},
		{path: "/v1/cards/applications", member: true, base: `{"product_id":"cpd_virtual_std","source_asset":"USDT"}`, field: "source_asset"},
		{path: card + "/activate", member: true, base: `{"expiry":"01/30","pin":"135790"}`, field: "pin"},
		{path: card + "/pin", member: true, base: `{"new_pin":"135790","current_pin":"246802"}`, field: "new_pin", fieldCode: "invalid_fields"},
		{path: card + "/lost", member: true, base: `{"kind":"stolen"}`, field: "kind"},
		{path: card + "/freeze", member: true, base: `{}`},
		{path: card + "/unfreeze", member: true, base: `{}`},
		{path: card + "/close", member: true, base: `{"reason":"moving"}`, field: "reason"},
		{path: card + "/replacements", member: true, base: `{"reason":"worn"}`, field: "reason"},
		{path: card + "/secure-session", member: true, base: `{}`},
		{path: card + "/topups", member: true, base: `{"amount":"10","source_asset":"USDT"}`, field: "source_asset"},
		{path: "/v1/remittances", member: true, base: `{"payee_id":"` + w.payeeID + `","payout_amount":"10.00","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"}`, field: "payout_amount"},
		{path: "/v1/remit/payees", member: true, base: `{"country":"GB","currency":"GBP","holder_name":"Ada Lovelace","account_number":"12345678","bank_code":"400000"}`, field: "holder_name"},
		{path: "/v1/remit/vp/applications/query", base: `{"members":["member-1"]}`, field: "members"},
		{path: "/v1/kyc/profile-sessions", member: true, base: `{}`},
		{path: "/v1/kyc/quick", member: true, base: `{"email":"wire@example.com"}`, field: "email"},
		{path: "/v1/webhooks/deliveries/" + w.delivery + "/redeliver", base: `{}`},
	}
}

// TestWireFormatEveryEndpoint sends every malformation to every business
// endpoint that takes a body (or none): each answers invalid_request (or the
// endpoint's own invalid_fields for a field of the wrong JSON type) and
// changes nothing. The valid body is sent last and is not refused as
// malformed, so the refusals are the malformations'.
func TestWireFormatEveryEndpoint(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	eps := bodyEndpoints(w)
	if got := len(eps); got != postEndpoints(t, w.sim) {
		t.Fatalf("the table lists %d POST endpoints, the simulator serves %d", got, postEndpoints(t, w.sim))
	}
	n := 0
	before := fingerprint(t, w.sim)
	for _, ep := range eps {
		member := ""
		if ep.member {
			member = member1
		}
		for _, m := range malformations {
			if m.typeError && ep.field == "" {
				continue
			}
			body := m.make(ep.base, ep.field)
			r := w.post(ep.path, member, body)
			want := "invalid_request"
			if m.typeError && ep.fieldCode != "" {
				want = ep.fieldCode
			}
			if r.status != http.StatusBadRequest || r.code() != want || !wireRefusal(r) {
				t.Errorf("POST %s, %s: %q: want 400 %s, got %v", ep.path, m.name, body, want, r)
			} else {
				checkEnvelope(t, r)
			}
			if after := fingerprint(t, w.sim); after != before {
				t.Errorf("POST %s, %s: the request changed the simulator:\n%s", ep.path, m.name, cmp.Diff(before, after))
				before = after
			}
			n++
		}
		r := w.post(ep.path, member, ep.base)
		if r.err != nil || wireRefusal(r) {
			t.Errorf("POST %s with the valid body %s: %v", ep.path, ep.base, r)
		}
		before = fingerprint(t, w.sim)
	}
	t.Logf("%d malformed requests over %d endpoints", n, len(eps))
}

// TestWireFormatInstances pins the two confirmed instances: a deposit
// followed by } or ] credited nothing, and "AMOUNT" is not amount.
func TestWireFormatInstances(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, body := range []string{
		`{"asset":"USDT","amount":"10","reference":"inst-1"}}`,
		`{"asset":"USDT","amount":"10","reference":"inst-1"}]`,
		`{"asset":"USDT","AMOUNT":"10","reference":"inst-1"}`,
		`{"asset":"USDT","Amount":"10","amount":"1","reference":"inst-1"}`,
	} {
		r := w.post("/v1/deposits", member1, body)
		wantCode(t, r, 400, "invalid_request")
	}
	if got := balance(w.sim, member1, "USDT"); got != "995.000000" {
		t.Fatalf("USDT balance %s, want 995.000000 (1000 less the card's 5 USDT fee, nothing credited)", got)
	}
}

// TestWireFormatUnknownFieldsIgnored pins the business API's reading of
// fields it does not know: a well-named one is ignored (as the contract
// ignores a corridor sent to remittances), so the request executes as if it
// were absent.
func TestWireFormatUnknownFieldsIgnored(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.post("/v1/deposits", member1, `{"asset":"USDT","amount":"10","reference":"unk-1","memo_note":"x","metadata":{"a":[1,2]}}`)
	wantStatus(t, r, http.StatusCreated)
	if got := balance(w.sim, member1, "USDT"); got != "1005.000000" {
		t.Fatalf("USDT balance %s, want 1005.000000", got)
	}
	// source_amount is the one named field the contract refuses outright.
	r = w.post("/v1/remittances", member1, `{"payee_id":"`+w.payeeID+`","payout_amount":"10.00","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT","source_amount":"12"}`)
	wantCode(t, r, 400, "invalid_request")
}

// postEndpoints counts the POST endpoints of the business API other than
// the token exchange, from the simulator's OpenAPI-independent route list.
func postEndpoints(t *testing.T, sim *simulator.Simulator) int {
	t.Helper()
	n := 0
	for _, r := range simulator.Routes(sim) {
		if strings.HasPrefix(r, "POST /v1/") && r != "POST /v1/connect/token" {
			n++
		}
	}
	return n
}

// wireRefusal reports an answer refusing the body's wire format.
func wireRefusal(r result) bool {
	msg, _ := r.body["message"].(string)
	return (r.code() == "invalid_request" || r.code() == "invalid_fields") && strings.HasPrefix(msg, "request body: ")
}
