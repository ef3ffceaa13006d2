package simulator_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/mwallet/mwallet-go/simulator"
)

// fieldSet lists the documented fields of a resource.
func fieldSet(s string) []string {
	f := strings.Fields(s)
	sort.Strings(f)
	return f
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func obj(t *testing.T, v any, what string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is %T (%v), want an object", what, v, v)
	}
	return m
}

func objs(t *testing.T, v any, what string) []map[string]any {
	t.Helper()
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		t.Fatalf("%s is %v, want a non-empty array", what, v)
	}
	out := make([]map[string]any, 0, len(list))
	for i, it := range list {
		out = append(out, obj(t, it, what+"["+string(rune('0'+i%10))+"]"))
	}
	return out
}

// Documented field lists, as the contract's resource section gives them.
var (
	assetFields           = fieldSet("code name ledger_scale display_scale networks")
	networkFields         = "network network_name deposit_enabled deposit_unavailable_reason min_deposit confirmations_required memo_required deposit_eta_minutes withdraw_enabled withdraw_unavailable_reason"
	networkWithdrawFields = networkFields + " min_withdraw max_withdraw withdraw_fee_mode withdraw_fee_fixed withdraw_fee_bps withdraw_cooling_hours withdraw_eta_minutes withdraw_require_kyc_level"
	depositFields         = fieldSet("id reference external_member_id asset amount ledger_scale status network txid from_address to_address replayed")
	qrQuoteFields         = "payee acquirer_currency acquirer_amount expires_at chosen options blocked_reason"
	qrItemFields          = "asset ledger_scale display_scale customer_total fee sufficient"
	qrOrderFields         = "id status asset customer_total fee payee acquirer_currency acquirer_amount"
	merchantFeeFields     = " fee_asset fee_amount fee_ledger_scale"
	qrDecodeFields        = fieldSet("payee currency amount amount_editable min_amount max_amount required_payer_fields")
	cardProductFields     = fieldSet("id form_factor currency bin scheme limits_updatable card_types")
	invoiceFields         = "product_id form_factor fee_asset ledger_scale display_scale issue_fee min_first_topup shipping_fee can_apply reason"
	shippingRowFields     = fieldSet("address_id country is_default shipping_fee total deliverable reason")
	cardAppFields         = fieldSet("id status form_factor")
	cardTxFields          = "id kind status direction amount currency scale original_amount original_currency bank_fee zinfra_fee fee_currency fee_scale merchant_name mcc auth_code occurred_at"
	remitOrderFields      = fieldSet("id line status status_version source_asset ledger_scale locked_amount settled_amount fee payout_currency payout_amount rate rate_is_dealt purpose_code reference failure_code payout_date payee created_at updated_at")
	remitPayeeFields      = fieldSet("summary holder")
	remitCreateFields     = fieldSet("id status quote duplicated")
	remitQuoteFields      = fieldSet("source_asset customer_total fee locked_amount indicative_rate applied_rate")
	redeliverFields       = fieldSet("id queued")
	kycTicketFields       = fieldSet("id hosted_url expires_at")
	vpItemFields          = fieldSet("query member_id external_member_id application stage")
	vpErrorItemFields     = fieldSet("query error application")
	vpApplicationFields   = fieldSet("id status reviewed_at created_at")
	tokenFields           = fieldSet("auth_token expired_at token_type scopes")
	envelopeFields        = "type code message request_id"
	eventFields           = fieldSet("event_id event_type created_at merchant_id livemode data")
	eventDataFields       = "object id external_member_id status status_version"
)

// fieldCheck is one object read over HTTP and the fields it must carry.
type fieldCheck struct {
	what string
	got  map[string]any
	want []string
}

// resourceCase reads one resource over HTTP and returns every object to
// check, each with its documented field list.
type resourceCase struct {
	name string
	read func(t *testing.T, e *scopeEnv) []fieldCheck
}

func each(what string, list []map[string]any, want []string) []fieldCheck {
	out := make([]fieldCheck, 0, len(list))
	for _, m := range list {
		out = append(out, fieldCheck{what, m, want})
	}
	return out
}

// errorOf sends rq with the fixture Key and wants the error code.
func (e *scopeEnv) errorOf(rq scopeReq, code string) map[string]any {
	e.t.Helper()
	r := send(e.c, e.tok, rq)
	if r.code() != code {
		e.t.Fatalf("%s %s: want %s, got %v", rq.method, rq.target, code, r)
	}
	return r.body
}

var resourceCases = []resourceCase{
	{"Asset and Network item (GET /v1/assets)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		r := e.must(scopeReq{method: "GET", target: "/v1/assets"})
		var out []fieldCheck
		withdraw, noWithdraw := 0, 0
		for _, a := range objs(t, r.body["assets"], "assets") {
			out = append(out, fieldCheck{"asset " + a["code"].(string), a, assetFields})
			for _, n := range objs(t, a["networks"], "networks") {
				want := fieldSet(networkFields)
				if n["withdraw_enabled"] == true {
					want = fieldSet(networkWithdrawFields)
					withdraw++
				} else {
					noWithdraw++
				}
				out = append(out, fieldCheck{"network " + a["code"].(string) + "/" + n["network"].(string), n, want})
			}
		}
		if withdraw == 0 || noWithdraw == 0 {
			t.Errorf("the fixture lacks a network with (%d) or without (%d) withdrawal", withdraw, noWithdraw)
		}
		return out
	}},
	{"Deposit (POST /v1/deposits, first and replayed)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		body := jsonBody(map[string]any{"asset": "USDT", "amount": "5", "reference": "fields-1", "network": "TRON", "txid": "0xabc"})
		first := e.must(scopeReq{method: "POST", target: "/v1/deposits", member: member1, body: body, idem: true})
		again := e.must(scopeReq{method: "POST", target: "/v1/deposits", member: member1, body: body, idem: true})
		bare := e.must(scopeReq{method: "POST", target: "/v1/deposits", member: member1, body: depositBody("fields-2", "1"), idem: true})
		return []fieldCheck{{"first posting", first.body, depositFields}, {"replayed", again.body, depositFields}, {"without provenance", bare.body, depositFields}}
	}},
	{"QR decode result", func(t *testing.T, e *scopeEnv) []fieldCheck {
		var out []fieldCheck
		for _, code := range []string{qrCode(), customAmountCode()} {
			r := e.must(scopeReq{method: "POST", target: "/v1/qrpay/decode", member: member1, body: jsonBody(map[string]any{"code_value": code})})
			out = append(out, fieldCheck{"decode", r.body, qrDecodeFields})
		}
		return out
	}},
	{"QR quote, item and payment order (member-funded)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		r := e.must(scopeReq{method: "POST", target: "/v1/qrpay/quotes", member: member1, body: jsonBody(map[string]any{"code_value": qrCode()})})
		out := []fieldCheck{{"quote", r.body, fieldSet(qrQuoteFields)}, {"chosen", obj(t, r.body["chosen"], "chosen"), fieldSet(qrItemFields)}}
		out = append(out, each("option", objs(t, r.body["options"], "options"), fieldSet(qrItemFields))...)
		id := e.qrOrder()
		got := e.must(scopeReq{method: "GET", target: "/v1/qrpay/orders/" + id, member: member1})
		return append(out, fieldCheck{"GET order", got.body, fieldSet(qrOrderFields)})
	}},
	{"QR quote, item and payment order (merchant-funded)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		if err := e.sim.Merchant.Set(simulator.MerchantSettings{Model: simulator.MerchantHosted}); err != nil {
			t.Fatal(err)
		}
		if err := e.sim.QRPay.SetMerchantFeeRate(50); err != nil {
			t.Fatal(err)
		}
		body := jsonBody(map[string]any{"code_value": qrCode(), "funding_source": "merchant"})
		r := e.must(scopeReq{method: "POST", target: "/v1/qrpay/quotes", member: member1, body: body})
		// The position of the fee trio is not shown: the simulator puts it
		// on the response and on every item.
		out := []fieldCheck{{"quote", r.body, fieldSet(qrQuoteFields + merchantFeeFields)}, {"chosen", obj(t, r.body["chosen"], "chosen"), fieldSet(qrItemFields + merchantFeeFields)}}
		out = append(out, each("option", objs(t, r.body["options"], "options"), fieldSet(qrItemFields+merchantFeeFields))...)
		key := uuid.NewString()
		pay := func(stepUp string) result {
			h := authed(e.tok)
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", key)
			if stepUp != "" {
				h.Set("X-Step-Up", stepUp)
			}
			return e.c.send("POST", "/v1/qrpay/payments", body, e.c.signed(h, "POST", "/v1/qrpay/payments", body))
		}
		ch := str(pay(""), "challenge_id")
		if err := e.sim.StepUp.Complete(ch); err != nil {
			t.Fatal(err)
		}
		p := pay(ch)
		if p.status != http.StatusCreated {
			t.Fatalf("payment: %v", p)
		}
		got := e.must(scopeReq{method: "GET", target: "/v1/qrpay/orders/" + str(p, "id"), member: member1})
		return append(out, fieldCheck{"payment order", p.body, fieldSet(qrOrderFields + merchantFeeFields)},
			fieldCheck{"GET order", got.body, fieldSet(qrOrderFields + merchantFeeFields)})
	}},
	{"QR payment order (POST /v1/qrpay/payments)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		body := jsonBody(map[string]any{"code_value": qrCode()})
		key := uuid.NewString()
		pay := func(stepUp string) result {
			h := authed(e.tok)
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", key)
			if stepUp != "" {
				h.Set("X-Step-Up", stepUp)
			}
			return e.c.send("POST", "/v1/qrpay/payments", body, e.c.signed(h, "POST", "/v1/qrpay/payments", body))
		}
		ch := str(pay(""), "challenge_id")
		if err := e.sim.StepUp.Complete(ch); err != nil {
			t.Fatal(err)
		}
		p := pay(ch)
		replay := pay(ch)
		if p.status != http.StatusCreated || replay.header.Get("X-Idempotent-Replay") != "true" {
			t.Fatalf("payment %v, replay %v", p, replay)
		}
		return []fieldCheck{{"payment order", p.body, fieldSet(qrOrderFields)}, {"replayed", replay.body, fieldSet(qrOrderFields)}}
	}},
	{"Card product and invoice", func(t *testing.T, e *scopeEnv) []fieldCheck {
		r := e.must(scopeReq{method: "GET", target: "/v1/cards/products"})
		out := each("product", objs(t, r.body["data"], "products"), cardProductFields)
		v := e.must(scopeReq{method: "GET", target: "/v1/cards/products/cpd_virtual_std/quote", member: member1})
		p := e.must(scopeReq{method: "GET", target: "/v1/cards/products/cpd_physical_std/quote", member: member1})
		out = append(out, fieldCheck{"virtual invoice", v.body, fieldSet(invoiceFields)},
			fieldCheck{"physical invoice", p.body, fieldSet(invoiceFields + " shipping_by_address")})
		return append(out, each("shipping row", objs(t, p.body["shipping_by_address"], "shipping_by_address"), shippingRowFields)...)
	}},
	{"Card application (POST /v1/cards/applications, created and by client_key)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		body := []byte(`{"source_asset":"USDT","product_id":"cpd_virtual_std","client_key":"fields-key"}`)
		first := e.must(scopeReq{method: "POST", target: "/v1/cards/applications", member: member1, body: body, idem: true})
		again := e.must(scopeReq{method: "POST", target: "/v1/cards/applications", member: member1, body: body, idem: true})
		if first.status != http.StatusCreated || again.status != http.StatusOK {
			t.Fatalf("statuses %d and %d, want 201 and 200", first.status, again.status)
		}
		return []fieldCheck{{"created", first.body, cardAppFields}, {"existing client_key", again.body, cardAppFields}}
	}},
	{"Card transaction (list item, with and without bill_amount)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		card := e.card("cpd_virtual_std")
		for _, tx := range []simulator.CardTransaction{
			{Kind: "auth", Status: "pending", Direction: "debit", Amount: "500", BillAmount: "500", MerchantName: "Shop", MCC: "5411", AuthCode: "A1"},
			{Kind: "refund", Status: "succeed", Direction: "none", Amount: "0"},
		} {
			if _, err := e.sim.Cards.AddTransaction(card, tx); err != nil {
				t.Fatal(err)
			}
		}
		r := e.must(scopeReq{method: "GET", target: "/v1/cards/" + card + "/transactions", member: member1})
		var out []fieldCheck
		for _, it := range objs(t, r.body["data"], "transactions") {
			want := cardTxFields
			if it["kind"] == "auth" {
				want += " bill_amount" // omitted when unknown
			}
			out = append(out, fieldCheck{"transaction " + it["kind"].(string), it, fieldSet(want)})
		}
		return out
	}},
	{"Card action answers (activate, PIN, lost, close, top-up)", func(t *testing.T, e *scopeEnv) []fieldCheck {
		withStepUp := func(rq scopeReq) result {
			key := uuid.NewString()
			do := func(stepUp string) result {
				h := authed(e.tok)
				h.Set("X-On-Behalf-Of", member1)
				h.Set("X-Idempotency-Key", key)
				if stepUp != "" {
					h.Set("X-Step-Up", stepUp)
				}
				return e.c.send(rq.method, rq.target, rq.body, e.c.signed(h, rq.method, rq.target, rq.body))
			}
			ch := str(do(""), "challenge_id")
			if err := e.sim.StepUp.Complete(ch); err != nil {
				t.Fatal(err)
			}
			r := do(ch)
			if r.status != http.StatusOK {
				t.Fatalf("%s: %v", rq.target, r)
			}
			return r
		}
		phys := e.shippedPhysical()
		pl, err := e.sim.Cards.Plastic(phys)
		if err != nil {
			t.Fatal(err)
		}
		act := e.must(scopeReq{method: "POST", target: "/v1/cards/" + phys + "/activate", member: member1, idem: true,
			body: jsonBody(map[string]any{"expiry": pl.Expiry, "pin": "135790"})})
		pin := withStepUp(scopeReq{method: "POST", target: "/v1/cards/" + phys + "/pin", body: jsonBody(map[string]any{"new_pin": "246801", "current_pin": "135790"})})
		lost := withStepUp(scopeReq{method: "POST", target: "/v1/cards/" + phys + "/lost", body: []byte(`{"kind":"stolen"}`)})
		virt := e.card("cpd_virtual_std")
		top := e.must(scopeReq{method: "POST", target: "/v1/cards/" + virt + "/topups", member: member1, idem: true, body: []byte(`{"amount":"10"}`)})
		other := e.card("cpd_virtual_std")
		closed := e.must(scopeReq{method: "POST", target: "/v1/cards/" + other + "/close", member: member1, idem: true, body: []byte(`{}`)})
		return []fieldCheck{
			{"activate", act.body, fieldSet("id status")}, {"PIN", pin.body, fieldSet("id updated")},
			{"lost", lost.body, fieldSet("id status kind")}, {"top-up", top.body, fieldSet("id status")},
			{"close", closed.body, fieldSet("id status")},
		}
	}},
	{"Remittance create result and order", func(t *testing.T, e *scopeEnv) []fieldCheck {
		body := e.remitBody()
		key := uuid.NewString()
		create := func() result {
			h := authed(e.tok)
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", key)
			return e.c.send("POST", "/v1/remittances", body, e.c.signed(h, "POST", "/v1/remittances", body))
		}
		first, replay := create(), create()
		if first.status != http.StatusCreated || replay.body["duplicated"] != true || replay.body["quote"] != nil {
			t.Fatalf("create %v, replay %v", first, replay)
		}
		list := e.must(scopeReq{method: "GET", target: "/v1/remittances", member: member1})
		one := e.must(scopeReq{method: "GET", target: "/v1/remittances/" + str(first, "id"), member: member1})
		out := []fieldCheck{
			{"create result", first.body, remitCreateFields}, {"quote", obj(t, first.body["quote"], "quote"), remitQuoteFields},
			{"replay", replay.body, remitCreateFields}, {"GET order", one.body, remitOrderFields},
			{"GET order payee", obj(t, one.body["payee"], "payee"), remitPayeeFields},
		}
		for _, o := range objs(t, list.body["data"], "orders") {
			out = append(out, fieldCheck{"list item", o, remitOrderFields}, fieldCheck{"list item payee", obj(t, o["payee"], "payee"), remitPayeeFields})
		}
		return out
	}},
	{"Webhook delivery redeliver result", func(t *testing.T, e *scopeEnv) []fieldCheck {
		id := e.redeliverable()
		r := e.must(scopeReq{method: "POST", target: "/v1/webhooks/deliveries/" + id + "/redeliver", idem: true})
		return []fieldCheck{{"redeliver", r.body, redeliverFields}}
	}},
	{"Hosted KYC ticket", func(t *testing.T, e *scopeEnv) []fieldCheck {
		r := e.must(scopeReq{method: "POST", target: "/v1/kyc/profile-sessions", member: member1, idem: true})
		return []fieldCheck{{"ticket", r.body, kycTicketFields}}
	}},
	{"VP application query item", func(t *testing.T, e *scopeEnv) []fieldCheck {
		r := e.must(scopeReq{method: "POST", target: "/v1/remit/vp/applications/query", body: []byte(`{"members":["member-1","nobody"]}`)})
		items := objs(t, r.body["items"], "items")
		if len(items) != 2 {
			t.Fatalf("items %v", items)
		}
		return []fieldCheck{{"member", items[0], vpItemFields}, {"application", obj(t, items[0]["application"], "application"), vpApplicationFields},
			{"unknown member", items[1], vpErrorItemFields}}
	}},
	{"Token response", func(t *testing.T, e *scopeEnv) []fieldCheck {
		r := e.c.exchangeToken(e.c.creds.ClientID, e.c.creds.APIKey)
		return []fieldCheck{{"token", r.body, tokenFields}}
	}},
	{"Error envelope and its extras", func(t *testing.T, e *scopeEnv) []fieldCheck {
		out := []fieldCheck{{"not_found", e.errorOf(scopeReq{method: "GET", target: "/v1/cards/crd_nope", member: member1}, "not_found"), fieldSet(envelopeFields)}}
		lim := e.errorOf(scopeReq{method: "POST", target: "/v1/deposits", member: member1, idem: true, body: depositBody("fields-big", "100000.000001")}, "limit_exceeded")
		out = append(out, fieldCheck{"limit_exceeded", lim, fieldSet(envelopeFields + " limit_type limit_scope")})
		su := e.errorOf(scopeReq{method: "POST", target: "/v1/qrpay/payments", member: member1, idem: true, body: jsonBody(map[string]any{"code_value": qrCode()})}, "step_up_required")
		out = append(out, fieldCheck{"step_up_required", su, fieldSet(envelopeFields + " challenge_id hosted_url expires_at")})
		card := e.card("cpd_virtual_std")
		f := e.errorOf(scopeReq{method: "GET", target: "/v1/cards/" + card + "/transactions?direction=sideways", member: member1}, "invalid_fields")
		out = append(out, fieldCheck{"invalid_fields", f, fieldSet(envelopeFields + " fields")})
		out = append(out, each("invalid_fields item", objs(t, f["fields"], "fields"), fieldSet("key"))...)
		pf := e.errorOf(scopeReq{method: "POST", target: "/v1/remit/payees", member: member1, idem: true, body: []byte(`{"country":"GB"}`)}, "invalid_fields")
		out = append(out, each("invalid_fields item of POST /v1/remit/payees", objs(t, pf["fields"], "fields"), fieldSet("key reason"))...)
		var rl map[string]any
		for i := 0; i < 25 && rl == nil; i++ {
			if r := e.c.exchangeToken(e.c.creds.ClientID, e.c.creds.APIKey); r.code() == "rate_limited" {
				rl = r.body
			}
		}
		if rl == nil {
			t.Fatal("the token exchange never answered rate_limited")
		}
		out = append(out, fieldCheck{"rate_limited", rl, fieldSet(envelopeFields + " retry_after")})
		phys := e.shippedPhysical()
		var locked map[string]any
		for i := 0; i < 4; i++ {
			rq := scopeReq{method: "POST", target: "/v1/cards/" + phys + "/activate", member: member1, idem: true, body: []byte(`{"expiry":"01/20","pin":"135790"}`)}
			if r := send(e.c, e.tok, rq); r.code() == "state_invalid" {
				locked = r.body
			}
		}
		if locked == nil {
			t.Fatal("three failed activations did not lock the card")
		}
		return append(out, fieldCheck{"state_invalid of a locked card (activate)", locked, fieldSet(envelopeFields + " locked_until")})
	}},
	{"Event body", func(t *testing.T, e *scopeEnv) []fieldCheck {
		var mu sync.Mutex
		var bodies [][]byte
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			bodies = append(bodies, b)
			mu.Unlock()
		}))
		t.Cleanup(srv.Close)
		if _, _, err := e.sim.Webhooks.AddEndpoint(srv.URL); err != nil {
			t.Fatal(err)
		}
		e.card("cpd_virtual_std") // card.application.submitted, approved
		qb := e.must(scopeReq{method: "POST", target: "/v1/kyc/quick", member: member1, idem: true, body: []byte(`{}`)})
		if err := e.sim.KYC.CompensateQuickBinding(str(qb, "id"), "admin", "cap_123"); err != nil {
			t.Fatal(err)
		}
		if _, err := e.sim.Webhooks.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		var out []fieldCheck
		types := map[string]bool{}
		for _, b := range bodies {
			var ev map[string]any
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatal(err)
			}
			typ := ev["event_type"].(string)
			types[typ] = true
			data := eventDataFields
			if typ == "kyc.quick.compensated" {
				data += " compensation_source application_id" // the contract lists them for this event
			}
			out = append(out, fieldCheck{typ, ev, eventFields}, fieldCheck{typ + " data", obj(t, ev["data"], "data"), fieldSet(data)})
		}
		for _, typ := range []string{"card.application.submitted", "card.application.approved", "kyc.quick.compensated"} {
			if !types[typ] {
				t.Errorf("no %s delivered (got %v)", typ, types)
			}
		}
		return out
	}},
}

// TestResourcesCarryTheDocumentedFields reads every resource the contract
// lists fields for over HTTP and compares each object's keys with the list:
// no field missing, none added (the one extra allowed is where the contract
// says "not shown": the position of the merchant-funded QR fee trio).
func TestResourcesCarryTheDocumentedFields(t *testing.T) {
	t.Parallel()
	for _, rc := range resourceCases {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			e := newScopeEnv(t)
			checks := rc.read(t, e)
			if len(checks) == 0 {
				t.Fatal("nothing read")
			}
			for _, c := range checks {
				if diff := cmp.Diff(c.want, keysOf(c.got)); diff != "" {
					t.Errorf("%s: fields differ from the contract's list (-documented +answered):\n%s", c.what, diff)
				}
			}
		})
	}
}
