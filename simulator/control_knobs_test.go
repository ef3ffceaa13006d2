package simulator_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// knobEnv is what a knob row works with: the raw client, a token and a
// counter for idempotency keys.
type knobEnv struct {
	t   *testing.T
	sim *simulator.Simulator
	c   *raw
	tok string
	n   int

	scratch map[string]string
}

func (e *knobEnv) key() string { e.n++; return uuidN(1000 + e.n) }

func (e *knobEnv) post(target, member string, body any) result {
	e.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.c.write(e.tok, "POST", target, member, e.key(), b)
}

func (e *knobEnv) postUnkeyed(target, member string, body any) result {
	e.t.Helper()
	b, _ := json.Marshal(body)
	return e.c.write(e.tok, "POST", target, member, "", b)
}

// card issues a virtual card to member-1 over HTTP and returns its id.
func (e *knobEnv) card() string {
	e.t.Helper()
	r := e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT"})
	wantStatus(e.t, r, 201)
	a := e.c.mustControl("POST", "/_sim/cards/applications/"+r.body["id"].(string)+"/approve", nil)
	return a.body["card_id"].(string)
}

// payee returns member-1's payee in country.
func (e *knobEnv) payee(country string) string {
	e.t.Helper()
	r := e.c.get(e.tok, "/v1/remit/payees?limit=100", member1)
	for _, p := range r.body["data"].([]any) {
		if m := p.(map[string]any); m["country"] == country {
			return m["id"].(string)
		}
	}
	e.t.Fatalf("no %s payee: %v", country, r)
	return ""
}

var qrBody = map[string]any{"code_value": thbCode()}

// TestControlKnobsOverHTTP: every condition of a documented error that was
// reachable only from Go has a control route, and the route brings the
// documented answer of the business API, with nothing moved.
func TestControlKnobsOverHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       []simulator.Option
		control    func(e *knobEnv) (path string, body any)
		call       func(e *knobEnv) result
		wantStatus int
		wantCode   string
	}{
		{"QR line off", nil,
			func(*knobEnv) (string, any) { return "/_sim/qrpay/line", map[string]any{"enabled": false} },
			func(e *knobEnv) result { return e.postUnkeyed("/v1/qrpay/decode", member1, qrBody) },
			400, "service_unavailable"},
		{"QR upstream unreachable for a code", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/qrpay/scenarios", map[string]any{"code_value": thbCode(), "scenarios": []string{"upstream_error"}}
			},
			func(e *knobEnv) result { return e.postUnkeyed("/v1/qrpay/quotes", member1, qrBody) },
			502, "upstream_error"},
		{"quick KYC off", nil,
			func(*knobEnv) (string, any) { return "/_sim/kyc/quick", map[string]any{"enabled": false} },
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", "member-l0", map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT", "quick_kyc_email": "l0@example.com"})
			},
			400, "quick_kyc_disabled"},
		{"quick KYC pool empty", nil,
			func(*knobEnv) (string, any) { return "/_sim/kyc/quick", map[string]any{"pool": 0} },
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", "member-l0", map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT", "quick_kyc_email": "l0@example.com"})
			},
			400, "quick_kyc_exhausted"},
		{"product disabled", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/cards/products/virtual_std/enabled", map[string]any{"enabled": false}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT"})
			},
			400, "product_not_available"},
		{"BIN not authorised", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/cards/bin_authorizations", map[string]any{"bins": []string{"999999"}}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT"})
			},
			400, "product_not_available"},
		{"card limit reached", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/cards/limits", map[string]any{"form_factor": "virtual", "limit": 0}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT"})
			},
			500, "api_error"},
		{"outstanding penalties", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/members/member-1/card_penalty", map[string]any{"outstanding": true}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT"})
			},
			500, "api_error"},
		{"KYC country refused by the product", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/members/member-1/kyc_country", map[string]any{"country": "us"}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_virtual_review", "source_asset": "USDT", "first_topup": "20"})
			},
			400, "product_not_available"},
		{"shipping country not served", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/members/member-1/shipping_addresses", map[string]any{"country": "FR", "default": true}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_physical_std", "source_asset": "USDT"})
			},
			500, "api_error"},
		{"pobo subaccount missing", nil,
			func(*knobEnv) (string, any) { return "/_sim/merchant/pobo_subaccount", map[string]any{"active": false} },
			func(e *knobEnv) result {
				return e.post("/v1/remittances", member1, map[string]any{"payee_id": e.payee("GB"), "payout_amount": "100.00",
					"slippage_bps": 50, "purpose_code": "GOODS_PURCHASED", "line": "pobo"})
			},
			400, "product_not_available"},
		{"funds protection", nil,
			func(e *knobEnv) (string, any) {
				e.ids()["card"] = e.card()
				return "/_sim/members/member-1/funds_protection", map[string]any{"enabled": true}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/"+e.ids()["card"]+"/topups", member1, map[string]any{"amount": "20"})
			},
			400, "product_not_available"},
		{"close refused by the issuer", nil,
			func(e *knobEnv) (string, any) {
				e.ids()["card"] = e.card()
				return "/_sim/cards/" + e.ids()["card"] + "/refuse_close", map[string]any{"refuse": true}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/"+e.ids()["card"]+"/close", member1, map[string]any{})
			},
			400, "state_invalid"},
		{"top-up issuer timeout", nil,
			func(e *knobEnv) (string, any) {
				e.ids()["card"] = e.card()
				return "/_sim/cards/topups/upstream_timeout", map[string]any{"count": 1}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/"+e.ids()["card"]+"/topups", member1, map[string]any{"amount": "20"})
			},
			504, "upstream_timeout"},
		{"merchant write quota", nil,
			func(*knobEnv) (string, any) { return "/_sim/merchant/write_quota", map[string]any{"per_minute": 1} },
			func(e *knobEnv) result {
				wantStatus(e.t, e.postUnkeyed("/v1/qrpay/decode", member1, qrBody), 200)
				return e.postUnkeyed("/v1/qrpay/decode", member1, qrBody)
			},
			429, "rate_limited"},
		{"merchant prepaid emptied", []simulator.Option{simulator.WithModel(simulator.MerchantHosted)},
			func(*knobEnv) (string, any) {
				return "/_sim/merchant/prepaid/withdraw", map[string]any{"asset": "USDT"}
			},
			func(e *knobEnv) result {
				return e.post("/v1/cards/applications", member1, map[string]any{"product_id": "cpd_virtual_std", "source_asset": "USDT", "funding_source": "merchant"})
			},
			400, "service_unavailable"},
		{"a first request in progress", nil,
			func(*knobEnv) (string, any) {
				return "/_sim/requests/in_progress", map[string]any{"method": "POST", "path": "/v1/kyc/profile-sessions", "idempotency_key": uuidN(1)}
			},
			func(e *knobEnv) result {
				return e.c.write(e.tok, "POST", "/v1/kyc/profile-sessions", member1, uuidN(1), nil)
			},
			409, "idempotency_in_progress"},
		{"the same signed request twice", nil,
			func(e *knobEnv) (string, any) {
				return "/_sim/keys/" + e.c.creds.ClientID + "/sign", map[string]any{"method": "POST", "path": "/v1/kyc/profile-sessions", "nonce": "fixed-nonce-1"}
			},
			func(e *knobEnv) result {
				sig := e.ids()
				send := func(key string) result {
					h := authed(e.tok)
					h.Set("X-On-Behalf-Of", member1)
					h.Set("X-Idempotency-Key", key)
					h.Set("X-Timestamp", sig["timestamp"])
					h.Set("X-Nonce", sig["nonce"])
					h.Set("X-Signature", sig["signature"])
					return e.c.send("POST", "/v1/kyc/profile-sessions", nil, h)
				}
				wantStatus(e.t, send(uuidN(2)), 201)
				return send(uuidN(3))
			},
			401, "nonce_reused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := append([]simulator.Option{simulator.WithMember(simulator.MemberSeed{ExternalID: "member-l0", KYCLevel: 0,
				Balances: map[string]string{"USDT": "100"}})}, tt.opts...)
			sim, c := newRaw(t, opts...)
			e := &knobEnv{t: t, sim: sim, c: c, tok: c.token()}
			path, body := tt.control(e)
			r := c.mustControl("POST", path, body)
			if r.header.Get("X-Request-Id") == "" {
				t.Errorf("control answer without X-Request-Id")
			}
			for k, v := range r.body {
				e.ids()[k] = fmt.Sprint(v)
			}
			entries := len(sim.LedgerEntries())
			got := tt.call(e)
			wantCode(t, got, tt.wantStatus, tt.wantCode)
			moved := len(sim.LedgerEntries()) - entries
			if tt.wantCode == "upstream_timeout" {
				moved-- // the hold of the timed-out order
			}
			if moved != 0 {
				t.Errorf("%d ledger entries for a refused request", moved)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Error(err)
			}
		})
	}
}

// ids is per-row scratch space (card ids, saved answers).
func (e *knobEnv) ids() map[string]string {
	if e.scratch == nil {
		e.scratch = map[string]string{}
	}
	return e.scratch
}

// TestControlKnobsRefuseBadBodies: the new control routes refuse a missing
// or malformed setting with invalid_request and an unknown object with
// not_found, changing nothing.
func TestControlKnobsRefuseBadBodies(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	for _, tt := range []struct {
		path string
		body any
		code string
	}{
		{"/_sim/qrpay/line", map[string]any{}, "invalid_request"},
		{"/_sim/qrpay/line", map[string]any{"enabled": "no"}, "invalid_request"},
		{"/_sim/qrpay/line", map[string]any{"enable": false}, "invalid_request"},
		{"/_sim/qrpay/scenarios", map[string]any{"code_value": thbCode(), "scenarios": []string{"explode"}}, "invalid_request"},
		{"/_sim/qrpay/fiat_rates", map[string]any{"currency": "THB", "usd_per_unit": "-1"}, "invalid_request"},
		{"/_sim/cards/limits", map[string]any{"form_factor": "plastic", "limit": 1}, "invalid_request"},
		{"/_sim/cards/limits", map[string]any{"form_factor": "virtual", "limit": -1}, "invalid_request"},
		{"/_sim/cards/products/cpd_nothing/enabled", map[string]any{"enabled": false}, "not_found"},
		{"/_sim/members/nobody/card_penalty", map[string]any{"outstanding": true}, "not_found"},
		{"/_sim/members/nobody/funds_protection", map[string]any{"enabled": true}, "not_found"},
		{"/_sim/members/member-1/kyc_country", map[string]any{"country": "USA"}, "invalid_request"},
		{"/_sim/cards/crd_nothing/refuse_close", map[string]any{"refuse": true}, "not_found"},
		{"/_sim/cards/topups/upstream_timeout", map[string]any{"count": -1}, "invalid_request"},
		{"/_sim/merchant/write_quota", map[string]any{}, "invalid_request"},
		{"/_sim/merchant/write_quota", map[string]any{"per_minute": -2}, "invalid_request"},
		{"/_sim/merchant/pobo_subaccount", map[string]any{}, "invalid_request"},
		{"/_sim/kyc/quick", map[string]any{"pool": -1}, "invalid_request"},
		{"/_sim/keys/nobody/sign", map[string]any{"method": "POST", "path": "/v1/deposits"}, "not_found"},
		{"/_sim/requests/in_progress", map[string]any{"method": "GET", "path": "/v1/assets", "idempotency_key": uuidN(1)}, "invalid_request"},
		{"/_sim/requests/in_progress", map[string]any{"method": "POST", "path": "/v1/deposits", "idempotency_key": uuidN(1), "seconds": 0}, "invalid_request"},
	} {
		r := c.control("POST", tt.path, tt.body)
		if r.code() != tt.code || r.header.Get("X-Request-Id") == "" {
			t.Errorf("POST %s %v: %v, want %s with X-Request-Id", tt.path, tt.body, r, tt.code)
		}
	}
	// Nothing changed: the QR line is on, the quota off.
	tok := c.token()
	decode := []byte(`{"code_value":"` + thbCode() + `"}`)
	for i := 0; i < 3; i++ {
		wantStatus(t, c.write(tok, "POST", "/v1/qrpay/decode", member1, "", decode), 200)
	}
	_ = sim
}

// TestControlReads: the read routes mirror their Go methods.
func TestControlReads(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	e := &knobEnv{t: t, sim: sim, c: c, tok: c.token()}
	card := e.card()
	c.mustControl("POST", "/_sim/cards/"+card+"/refuse_close", map[string]any{"refuse": true})
	wantCode(t, e.post("/v1/cards/"+card+"/close", member1, map[string]any{}), 400, "state_invalid")
	r := c.mustControl("GET", "/_sim/cards/"+card, nil)
	n, _ := sim.Cards.UpstreamCloseRequests(card)
	if r.body["upstream_close_requests"] != float64(n) || n != 1 || r.body["upstream_refuses_close"] != true || r.body["status"] != "active" {
		t.Errorf("GET /_sim/cards/{id} = %v (Go: %d close requests)", r, n)
	}
	tp := e.post("/v1/cards/"+card+"/topups", member1, map[string]any{"amount": "20"})
	wantStatus(t, tp, 201)
	id := tp.body["id"].(string)
	r = c.mustControl("GET", "/_sim/cards/topups/"+id, nil)
	if st, _ := sim.Cards.TopUpStatus(id); r.body["status"] != st || st != "processing" {
		t.Errorf("GET /_sim/cards/topups/{id} = %v, Go status %s", r, st)
	}
	wantStatus(t, e.postUnkeyed("/v1/qrpay/quotes", member1, qrBody), 200)
	r = c.mustControl("GET", "/_sim/qrpay/upstream", nil)
	if up := sim.QRPay.UpstreamCalls(); r.body["quotes"] != float64(up.Quotes) || up.Quotes != 1 {
		t.Errorf("GET /_sim/qrpay/upstream = %v, Go %+v", r, up)
	}
	wantCode(t, c.control("GET", "/_sim/qrpay/orders/qrp_nothing/trace", nil), 404, "not_found")
	wantCode(t, c.control("GET", "/_sim/cards/topups/ctp_nothing", nil), 404, "not_found")
	if got := strconv.Itoa(len(sim.State().Cards)); got != "1" {
		t.Errorf("cards = %s", got)
	}
}
