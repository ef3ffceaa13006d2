package validate

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mwallet/mwallet-go/openapi/validate/tour"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

var (
	docsOnce sync.Once
	docs     *Documents
	docsErr  error
)

func loadDocs(t *testing.T) *Documents {
	t.Helper()
	docsOnce.Do(func() { docs, docsErr = Load(context.Background()) })
	if docsErr != nil {
		t.Fatal(docsErr)
	}
	return docs
}

func newChecker(t *testing.T) *Checker {
	t.Helper()
	c, err := NewChecker(loadDocs(t))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func msg(method, target string, header http.Header, body string) simulator.LoggedMessage {
	if header == nil {
		header = http.Header{}
	}
	return simulator.LoggedMessage{Method: method, Target: target, Header: header, Body: body}
}

func answer(status int, body string, header ...string) *simulator.LoggedMessage {
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return &simulator.LoggedMessage{Status: status, Header: h, Body: body}
}

func authed(extra ...string) http.Header {
	h := http.Header{"X-Auth-Token": {"Bearer tok"}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

const notFound = `{"type":"not_found","code":"not_found","message":"x","request_id":"req_1"}`

const memberBody = `{"id":"mem_3f782963-1da0-4787-a4b5-77a4d41bdf07","external_member_id":"member-1","status":"active","kyc_level":1,"created_at":"2026-01-01T00:00:00Z"}`

// TestCheckerFindsPlantedViolations plants one violation of each kind the
// checker guards and checks it is reported, next to the same exchange
// without the violation.
func TestCheckerFindsPlantedViolations(t *testing.T) {
	memberGet := msg("GET", "/v1/members/mem_3f782963-1da0-4787-a4b5-77a4d41bdf07", authed(), "")
	sig := "t=1767225600,v1=GZ9jJDvUsu8xyT/ljejWNUFmb+nJ6ZgWL+PmKyytEVQ="
	event := `{"event_id":"evt_1","event_type":"qrpay.order.completed","created_at":"2026-01-01T00:00:00Z","merchant_id":"mch_1","livemode":false,` +
		`"data":{"object":"qrpay_order","id":"0b6f6a52","external_member_id":"member-1","status":"completed","status_version":3}}`
	hook := func(body, eventType string) simulator.Exchange {
		h := http.Header{"Content-Type": {"application/json"}, "Z-Signature": {sig}, "Z-Event-Id": {"evt_1"}, "Z-Event-Type": {eventType}}
		return simulator.Exchange{Kind: "webhook", Request: simulator.LoggedMessage{Method: "POST", Target: "http://127.0.0.1:1/hook", Header: h, Body: body},
			Response: &simulator.LoggedMessage{Status: 200}}
	}
	tests := []struct {
		name string
		x    simulator.Exchange
		want string // a substring of the violation; "" for none
	}{
		{"valid answer", simulator.Exchange{Request: memberGet, Response: answer(200, memberBody)}, ""},
		{"field the document lacks", simulator.Exchange{Request: memberGet,
			Response: answer(200, strings.Replace(memberBody, `"kyc_level":1`, `"kyc_level":1,"nickname":"x"`, 1))}, "nickname"},
		{"required field missing", simulator.Exchange{Request: memberGet,
			Response: answer(200, strings.Replace(memberBody, `,"kyc_level":1`, "", 1))}, "kyc_level"},
		{"unknown value of an open enumeration", simulator.Exchange{Request: memberGet,
			Response: answer(200, strings.Replace(memberBody, `"active"`, `"sleeping"`, 1))}, "status"},
		{"amount not a decimal string", simulator.Exchange{Request: msg("GET", "/v1/cards/products/cpd_x/quote", authed("X-On-Behalf-Of", "member-1"), ""),
			Response: answer(200, `{"product_id":"cpd_x","form_factor":"virtual_card","fee_asset":"USDT","ledger_scale":6,"display_scale":2,"issue_fee":"5.0e0","min_first_topup":"0","shipping_fee":"0","can_apply":true,"reason":""}`)}, "issue_fee"},
		{"no X-Request-Id", simulator.Exchange{Request: memberGet,
			Response: &simulator.LoggedMessage{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: memberBody}}, "X-Request-Id"},
		{"status the operation does not document", simulator.Exchange{Request: memberGet,
			Response: answer(409, `{"type":"idempotency_error","code":"idempotency_key_reused","message":"x","request_id":"req_1"}`)}, "status is not supported"},
		{"code of another status", simulator.Exchange{Request: memberGet,
			Response: answer(404, `{"type":"not_found","code":"invalid_token","message":"x","request_id":"req_1"}`)}, "code"},
		{"type of another status", simulator.Exchange{Request: memberGet,
			Response: answer(404, `{"type":"invalid_request_error","code":"not_found","message":"x","request_id":"req_1"}`)}, "type"},
		{"extra field of another code", simulator.Exchange{Request: memberGet,
			Response: answer(404, `{"type":"not_found","code":"not_found","message":"x","request_id":"req_1","retry_after":3}`)}, "retry_after"},
		{"step_up_required without its extras", simulator.Exchange{
			Request:  msg("POST", "/v1/cards/crd_1/lost", authed("X-On-Behalf-Of", "member-1", "X-Idempotency-Key", "00000000-0000-4000-8000-000000000001", "Content-Type", "application/json"), `{}`),
			Response: answer(400, `{"type":"invalid_request_error","code":"step_up_required","message":"x","request_id":"req_1"}`)}, "challenge_id"},
		{"429 without Retry-After", simulator.Exchange{Request: memberGet,
			Response: answer(429, `{"type":"rate_limit_error","code":"rate_limited","message":"x","request_id":"req_1","retry_after":1}`)}, "Retry-After"},
		{"JSON body without Content-Type accepted", simulator.Exchange{
			Request:  msg("POST", "/v1/cards/crd_1/lost", authed("X-On-Behalf-Of", "member-1", "X-Idempotency-Key", "00000000-0000-4000-8000-000000000001"), `{}`),
			Response: answer(400, `{"type":"invalid_request_error","code":"invalid_request","message":"x","request_id":"req_1"}`)}, ""},
		{"JSON body without Content-Type executed", simulator.Exchange{
			Request:  msg("POST", "/v1/cards/crd_1/lost", authed("X-On-Behalf-Of", "member-1", "X-Idempotency-Key", "00000000-0000-4000-8000-000000000001"), `{}`),
			Response: answer(200, `{"id":"crd_1","status":"lost","kind":"lost"}`)}, "without Content-Type was accepted"},
		{"invalid request refused", simulator.Exchange{Request: msg("GET", "/v1/members/mem_nope", authed(), ""),
			Response: answer(404, `{"type":"not_found","code":"not_found","message":"x","request_id":"req_1"}`)}, ""},
		{"invalid request accepted", simulator.Exchange{Request: msg("GET", "/v1/members/mem_nope", authed(), ""),
			Response: answer(200, memberBody)}, "accepted a request the document forbids"},
		{"missing token accepted", simulator.Exchange{Request: msg("GET", "/v1/members/mem_3f782963-1da0-4787-a4b5-77a4d41bdf07", nil, ""),
			Response: answer(200, memberBody)}, "security"},
		{"undocumented control path refused by the guard (token)", simulator.Exchange{Request: msg("GET", "/_sim/nothing", nil, ""),
			Response: answer(401, `{"type":"authentication_error","code":"invalid_token","message":"x","request_id":"req_c1"}`)}, ""},
		{"undocumented control path refused by the guard (Host)", simulator.Exchange{Request: msg("GET", "/_sim/nothing", nil, ""),
			Response: answer(400, `{"type":"invalid_request_error","code":"invalid_request","message":"x","request_id":"req_c1"}`)}, ""},
		{"undocumented business path answered 401", simulator.Exchange{Request: msg("GET", "/v1/nope", nil, ""),
			Response: answer(401, `{"type":"authentication_error","code":"invalid_token","message":"x","request_id":"req_1"}`)}, "status 401"},
		{"undocumented route answered 404 envelope", simulator.Exchange{Request: msg("GET", "/v1/nope", nil, ""),
			Response: answer(404, `{"type":"not_found","code":"not_found","message":"x","request_id":"req_1"}`)}, ""},
		{"undocumented method answered 404 with Allow", simulator.Exchange{Request: msg("DELETE", "/v1/assets", nil, ""),
			Response: answer(404, notFound, "Allow", "GET, HEAD")}, ""},
		{"undocumented method answered 405", simulator.Exchange{Request: msg("DELETE", "/v1/assets", nil, ""),
			Response: answer(405, `{"type":"invalid_request_error","code":"invalid_request","message":"x","request_id":"req_1"}`, "Allow", "GET, HEAD")}, "status 405"},
		{"undocumented method answered without Allow", simulator.Exchange{Request: msg("DELETE", "/v1/assets", nil, ""),
			Response: answer(404, notFound)}, "Allow"},
		{"Allow naming a method the document lacks", simulator.Exchange{Request: msg("GET", "/v1/cards/crd_1/pin", nil, ""),
			Response: answer(404, notFound, "Allow", "POST, PUT")}, "Allow"},
		{"action outside the documented enumeration answered without Allow", simulator.Exchange{Request: msg("GET", "/_sim/qrpay/orders/x/nope", nil, ""),
			Response: answer(404, notFound)}, ""},
		{"documented action answered without Allow", simulator.Exchange{Request: msg("GET", "/_sim/qrpay/orders/x/complete", nil, ""),
			Response: answer(404, notFound)}, "Allow"},
		{"HEAD answered as the GET", simulator.Exchange{Request: msg("HEAD", memberGet.Target, authed(), ""),
			Response: answer(200, memberBody)}, ""},
		{"HEAD answered as the GET, without the body", simulator.Exchange{Request: msg("HEAD", memberGet.Target, authed(), ""),
			Response: answer(200, "")}, ""},
		{"HEAD with a GET answer missing a field", simulator.Exchange{Request: msg("HEAD", memberGet.Target, authed(), ""),
			Response: answer(200, strings.Replace(memberBody, `,"kyc_level":1`, "", 1))}, "kyc_level"},
		{"HEAD with a status the GET does not document", simulator.Exchange{Request: msg("HEAD", memberGet.Target, authed(), ""),
			Response: answer(409, "")}, "status is not supported"},
		{"HEAD with a media type the GET does not document", simulator.Exchange{Request: msg("HEAD", memberGet.Target, authed(), ""),
			Response: answer(200, "", "Content-Type", "text/html")}, "Content-Type"},
		{"HEAD on a path without GET", simulator.Exchange{Request: msg("HEAD", "/v1/cards/crd_1/pin", nil, ""),
			Response: answer(404, notFound, "Allow", "POST")}, ""},
		{"invalid_fields with a reason", simulator.Exchange{
			Request:  msg("POST", "/v1/kyc/quick", authed("X-On-Behalf-Of", "member-1", "X-Idempotency-Key", "00000000-0000-4000-8000-000000000001", "Content-Type", "application/json"), `{}`),
			Response: answer(400, `{"type":"invalid_request_error","code":"invalid_fields","message":"x","request_id":"req_1","fields":[{"key":"email","reason":"x"}]}`)}, "reason"},
		{"invalid_fields with a reason on payees", simulator.Exchange{
			Request:  msg("POST", "/v1/remit/payees", authed("X-On-Behalf-Of", "member-1", "X-Idempotency-Key", "00000000-0000-4000-8000-000000000001", "Content-Type", "application/json"), `{}`),
			Response: answer(400, `{"type":"invalid_request_error","code":"invalid_fields","message":"x","request_id":"req_1","fields":[{"key":"iban","reason":"x"}]}`)}, ""},
		{"scope outside the catalogue", simulator.Exchange{Request: msg("POST", "/v1/connect/token", http.Header{"X-Client-Id": {"c"}, "X-Api-Key": {"k"}}, ""),
			Response: answer(200, `{"auth_token":"t","expired_at":1767225600,"token_type":"Bearer","scopes":["kyc:read","cards:admin"]}`)}, "/scopes/1"},
		{"undocumented route answered 404 with an extra field", simulator.Exchange{Request: msg("GET", "/v1/nope", nil, ""),
			Response: answer(404, `{"type":"not_found","code":"not_found","message":"x","request_id":"req_1","path":"/v1/nope"}`)}, "path"},
		{"undocumented route answered 200", simulator.Exchange{Request: msg("GET", "/v1/nope", nil, ""),
			Response: answer(200, `{}`)}, "undocumented route"},
		{"undocumented route answered by an injected error_after fault", simulator.Exchange{Fault: "error_after", Request: msg("GET", "/v1/nothing-here", nil, ""),
			Response: answer(504, `{"type":"api_error","code":"upstream_timeout","message":"x","request_id":"req_1"}`)}, ""},
		{"undocumented route answered by an injected error fault", simulator.Exchange{Fault: "error", Request: msg("POST", "/v1/exchange/orders", nil, "{}"),
			Response: answer(400, `{"type":"invalid_request_error","code":"quote_lock_unsupported","message":"x","request_id":"req_1"}`)}, ""},
		{"injected fault answered without the envelope", simulator.Exchange{Fault: "error", Request: msg("GET", "/v1/nothing-here", nil, ""),
			Response: answer(504, `{}`)}, "not the error envelope"},
		{"injected fault answered with another request id", simulator.Exchange{Fault: "error", Request: msg("GET", "/v1/nothing-here", nil, ""),
			Response: answer(504, `{"type":"api_error","code":"upstream_timeout","message":"x","request_id":"req_2"}`)}, "not the error envelope"},
		{"delay fault on an undocumented route still answered 200", simulator.Exchange{Fault: "delay", Request: msg("GET", "/v1/nope", nil, ""),
			Response: answer(200, `{}`)}, "undocumented route"},
		{"undocumented route answered in HTML", simulator.Exchange{Request: msg("GET", "//v1/assets", nil, ""),
			Response: &simulator.LoggedMessage{Status: 404, Header: http.Header{"Content-Type": {"text/html"}, "X-Request-Id": {"r"}}, Body: "<a>"}}, "envelope"},
		{"valid webhook", hook(event, "qrpay.order.completed"), ""},
		{"webhook header differs from the body", hook(event, "qrpay.order.failed"), "z-event-type"},
		{"webhook data.object of another event", hook(strings.Replace(event, `"qrpay_order"`, `"card"`, 1), "qrpay.order.completed"), "object"},
		{"webhook body with an amount", hook(strings.Replace(event, `"status_version":3`, `"status_version":3,"amount":"1.00"`, 1), "qrpay.order.completed"), "amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newChecker(t)
			c.Check(context.Background(), &tt.x, tt.name)
			vs := c.Violations()
			if tt.want == "" {
				if len(vs) != 0 {
					t.Fatalf("violations %v, want none", vs)
				}
				return
			}
			if len(vs) == 0 {
				t.Fatalf("no violation, want one mentioning %q", tt.want)
			}
			found := false
			for _, v := range vs {
				found = found || strings.Contains(v.Detail, tt.want)
			}
			if !found {
				t.Errorf("violations %v, want one mentioning %q", vs, tt.want)
			}
		})
	}
}

func TestKnownList(t *testing.T) {
	k, err := ParseKnown(strings.NewReader("# why\nGET /v1/x 200 | lacks\n\n# why not\nPOST /v1/y 201 | never\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !k.Match(Violation{Key: "GET /v1/x 200", Detail: "it lacks a field"}) {
		t.Error("a listed violation did not match")
	}
	if k.Match(Violation{Key: "GET /v1/x 201", Detail: "it lacks a field"}) {
		t.Error("a violation of another key matched")
	}
	if got := k.Unused(); len(got) != 1 || !strings.Contains(got[0], "POST /v1/y 201") {
		t.Errorf("Unused() = %v, want the POST entry", got)
	}
	if _, err := ParseKnown(strings.NewReader("GET /v1/x 200 lacks\n")); err == nil {
		t.Error("an entry without ' | ' parsed")
	}
}

// TestTourOverTheSimulator runs the tour against a simulator whose exchange
// log is on, then validates the log: every business operation and every
// webhook event type of mwallet.yaml is exercised, and nothing disagrees
// with the documents.
func TestTourOverTheSimulator(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(simulator.EnvExchangeLog, dir)
	sim := simtest.Start(t)
	res, err := tour.Run(context.Background(), tour.Config{API: sim.URL(), Control: sim.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != len(tour.EventTypes) {
		t.Errorf("%d event types delivered, want %d", len(res.Events), len(tour.EventTypes))
	}
	resp, err := http.Get(sim.URL() + "/_sim/ledger")
	if err != nil {
		t.Fatal(err)
	}
	var ledger struct {
		Balanced bool   `json:"balanced"`
		Error    string `json:"error"`
	}
	err = json.NewDecoder(resp.Body).Decode(&ledger)
	resp.Body.Close()
	if err != nil || !ledger.Balanced {
		t.Errorf("ledger after the tour: balanced %v %s %v", ledger.Balanced, ledger.Error, err)
	}

	c := newChecker(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if len(files) == 0 {
		t.Fatal("no exchange log")
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for n := 1; sc.Scan(); n++ {
			var x simulator.Exchange
			if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
				t.Fatal(err)
			}
			c.Check(context.Background(), &x, filepath.Base(name)+":"+strconv.Itoa(n))
		}
		f.Close()
	}
	for _, v := range c.Violations() {
		t.Error(v)
	}
	for _, op := range c.BusinessOperations() {
		if c.Counts.PerOperation[op] == 0 {
			t.Errorf("%s: never exercised by the tour", op)
		}
	}
	t.Logf("tour: %d exchanges, %d requests, %d responses, %d webhooks validated", c.Counts.Exchanges, c.Counts.Requests, c.Counts.Responses, c.Counts.Webhooks)
}
