package tour

import (
	"net/url"
	"strconv"
	"time"
)

func (t *tour) assetsAndMembers() {
	t.api("GET /v1/assets", call{method: "GET", path: "/v1/assets"}, 200, "")
	t.api("GET /v1/assets", call{method: "GET", path: "/v1/assets", bearer: true}, 200, "")
	t.api("GET /v1/assets", call{method: "GET", path: "/v1/assets", token: "not-a-token"}, 401, "invalid_token")
	t.fault("GET", "/v1/assets", 502, "upstream_error")
	t.api("GET /v1/assets", call{method: "GET", path: "/v1/assets"}, 502, "upstream_error")
	t.fault("GET", "/v1/assets", 500, "api_error")
	t.api("GET /v1/assets", call{method: "GET", path: "/v1/assets"}, 500, "api_error")
	t.fault("GET", "/v1/assets", 504, "upstream_timeout")
	t.api("GET /v1/assets", call{method: "GET", path: "/v1/assets"}, 504, "upstream_timeout")
	t.fault("GET", "/v1/assets", 429, "rate_limited")
	if a := t.api("GET /v1/assets", call{method: "GET", path: "/v1/assets"}, 429, "rate_limited"); a.header.Get("Retry-After") == "" {
		t.fail("429 without Retry-After")
	}

	t.api("GET /v1/members/{id}", call{method: "GET", path: "/v1/members/" + t.memberID}, 200, "")
	t.api("GET /v1/members/{id}", call{method: "GET", path: "/v1/members/mem_" + newUUID()}, 404, "not_found")
}

// pay pays QRCode with step-up and returns the order id.
func (t *tour) pay(preferred string) string {
	body := map[string]any{"code_value": QRCode, "preferred_asset": preferred}
	key := newUUID()
	a := t.api("POST /v1/qrpay/payments", call{method: "POST", path: "/v1/qrpay/payments", member: t.member, body: body, keyed: true, key: key}, 400, "step_up_required")
	ch := a.str("challenge_id")
	if ch == "" {
		return ""
	}
	t.ctlOK("POST", "/_sim/step-up/"+url.PathEscape(ch)+"/complete", nil)
	a = t.api("POST /v1/qrpay/payments", call{method: "POST", path: "/v1/qrpay/payments", member: t.member, body: body, keyed: true, key: key, stepUp: ch}, 201, "")
	id := a.str("id")
	// The same key and body replays the order.
	r := t.api("POST /v1/qrpay/payments", call{method: "POST", path: "/v1/qrpay/payments", member: t.member, body: body, keyed: true, key: key, stepUp: ch}, 201, "")
	if r.header.Get("X-Idempotent-Replay") != "true" || r.str("id") != id {
		t.fail("payment replay: X-Idempotent-Replay %q, id %q want %q", r.header.Get("X-Idempotent-Replay"), r.str("id"), id)
	}
	// The key of a stored payment with another body (step_up_required is
	// not stored: the resend above had to execute).
	other := map[string]any{"code_value": QRCode, "preferred_asset": preferred, "amount": "250.00"}
	t.api("POST /v1/qrpay/payments", call{method: "POST", path: "/v1/qrpay/payments", member: t.member, body: other, keyed: true, key: key, stepUp: ch}, 409, "idempotency_key_reused")
	return id
}

func (t *tour) qrPayments() {
	t.api("GET /v1/qrpay/schemes", call{method: "GET", path: "/v1/qrpay/schemes"}, 200, "")
	t.api("POST /v1/qrpay/decode", call{method: "POST", path: "/v1/qrpay/decode", member: t.member, body: map[string]any{"code_value": QRCode}}, 200, "")
	t.api("POST /v1/qrpay/decode", call{method: "POST", path: "/v1/qrpay/decode", member: t.member, body: map[string]any{"code_value": "not a QR code"}}, 400, "qr_code_invalid")
	q := t.api("POST /v1/qrpay/quotes", call{method: "POST", path: "/v1/qrpay/quotes", member: t.member, body: map[string]any{"code_value": QRCode}}, 200, "")
	t.api("POST /v1/qrpay/quotes", call{method: "POST", path: "/v1/qrpay/quotes", member: t.member, body: map[string]any{"code_value": "not a QR code"}}, 400, "qr_code_invalid")
	asset := "USDT"
	if ch, ok := q.json["chosen"].(map[string]any); ok {
		if s, ok := ch["asset"].(string); ok {
			asset = s
		}
	}
	completed := t.pay(asset)

	t.api("GET /v1/qrpay/orders/{id}", call{method: "GET", path: "/v1/qrpay/orders/" + completed, member: t.member}, 200, "")
	t.api("GET /v1/qrpay/orders/{id}", call{method: "GET", path: "/v1/qrpay/orders/qrp_" + newUUID(), member: t.member}, 404, "")
	t.ctlOK("POST", "/_sim/qrpay/orders/"+completed+"/complete", nil)
	t.ctlOK("POST", "/_sim/qrpay/orders/"+completed+"/refund", nil)
	failed := t.pay(asset)
	t.ctlOK("POST", "/_sim/qrpay/orders/"+failed+"/fail", nil)
}

func (t *tour) deposits() {
	ref := "tour-" + newUUID()[:8]
	body := map[string]any{"asset": "USDT", "amount": "25.000000", "reference": ref, "network": "TRON", "txid": "0xtour"}
	t.api("POST /v1/deposits", call{method: "POST", path: "/v1/deposits", member: t.member, body: body, keyed: true}, 201, "")
	t.api("POST /v1/deposits", call{method: "POST", path: "/v1/deposits", member: t.member, body: body, keyed: true}, 200, "")
	t.api("POST /v1/deposits", call{method: "POST", path: "/v1/deposits", member: t.member, body: map[string]any{"asset": "DOGE", "amount": "1", "reference": ref + "-x"}, keyed: true}, 400, "asset_not_allowed")
	t.api("GET /v1/deposits", call{method: "GET", path: "/v1/deposits", query: url.Values{"limit": {"5"}}}, 200, "")
	t.api("GET /v1/deposits", call{method: "GET", path: "/v1/deposits", query: url.Values{"reference": {ref}}}, 200, "")
	t.api("GET /v1/deposits/{id}", call{method: "GET", path: "/v1/deposits/dep_" + ref}, 200, "")
	t.api("GET /v1/deposits/{id}", call{method: "GET", path: "/v1/deposits/dep_no-such-reference"}, 404, "not_found")
}

// apply applies for a card and returns the application id.
func (t *tour) apply(product string) string {
	a := t.api("POST /v1/cards/applications", call{method: "POST", path: "/v1/cards/applications", member: t.member, keyed: true,
		body: map[string]any{"source_asset": "USDT", "product_id": product, "client_key": newUUID()}}, 201, "")
	return a.str("id")
}

// issue applies for a card, approves it and returns the card id.
func (t *tour) issue(product string) string {
	app := t.apply(product)
	t.ctlOK("POST", "/_sim/cards/applications/"+app+"/approve", nil)
	a := t.api("GET /v1/cards/applications/{id}", call{method: "GET", path: "/v1/cards/applications/" + app, member: t.member}, 200, "")
	return a.str("card_id")
}

// stepped sends a keyed call that needs step-up: the first answer is
// step_up_required, the resend after the hosted screen succeeds.
func (t *tour) stepped(op string, k call, status int) *answer {
	k.keyed, k.key = true, newUUID()
	a := t.api(op, k, 400, "step_up_required")
	ch := a.str("challenge_id")
	if ch == "" {
		return a
	}
	t.ctlOK("POST", "/_sim/step-up/"+url.PathEscape(ch)+"/complete", nil)
	k.stepUp = ch
	return t.api(op, k, status, "")
}

func (t *tour) cards() {
	t.api("GET /v1/cards/products", call{method: "GET", path: "/v1/cards/products"}, 200, "")
	t.api("GET /v1/cards/products/{id}/quote", call{method: "GET", path: "/v1/cards/products/cpd_virtual_std/quote", member: t.member}, 200, "")
	t.api("GET /v1/cards/products/{id}/quote", call{method: "GET", path: "/v1/cards/products/cpd_physical_std/quote", member: t.member}, 200, "")
	t.api("GET /v1/cards/products/{id}/quote", call{method: "GET", path: "/v1/cards/products/cpd_no_such_product/quote", member: t.member}, 404, "not_found")
	t.api("POST /v1/cards/applications", call{method: "POST", path: "/v1/cards/applications", member: t.member, keyed: true,
		body: map[string]any{"source_asset": "USDT", "product_id": "cpd_no_such_product", "client_key": newUUID()}}, 400, "product_not_available")
	t.api("GET /v1/cards/applications/{id}", call{method: "GET", path: "/v1/cards/applications/cap_" + newUUID(), member: t.member}, 404, "")

	// A virtual card: top-up, transactions, freeze, secure session, close.
	card := t.issue("cpd_virtual_std")
	path := "/v1/cards/" + card
	t.api("GET /v1/cards", call{method: "GET", path: "/v1/cards", member: t.member, query: url.Values{"limit": {"2"}}}, 200, "")
	t.api("GET /v1/cards/{id}", call{method: "GET", path: path, member: t.member}, 200, "")
	t.api("GET /v1/cards/{id}", call{method: "GET", path: "/v1/cards/crd_" + newUUID(), member: t.member}, 404, "")
	t.api("GET /v1/cards/{id}/topups/estimate", call{method: "GET", path: path + "/topups/estimate", member: t.member, query: url.Values{"amount": {"20"}}}, 200, "")
	top := t.api("POST /v1/cards/{id}/topups", call{method: "POST", path: path + "/topups", member: t.member, keyed: true, body: map[string]any{"amount": "20.000000", "source_asset": "USDT"}}, 201, "")
	t.ctlOK("POST", "/_sim/cards/topups/"+top.str("id")+"/credit", nil)
	t.ctlOK("POST", "/_sim/cards/"+card+"/transactions", map[string]any{"kind": "auth", "status": "succeed", "direction": "debit",
		"amount": "1250", "bill_amount": "1250", "merchant_name": "TOUR CAFE", "mcc": "5814", "auth_code": "TOUR01"})
	t.api("GET /v1/cards/{id}/transactions", call{method: "GET", path: path + "/transactions", member: t.member}, 200, "")
	t.api("GET /v1/cards/{id}/transactions", call{method: "GET", path: path + "/transactions", member: t.member, query: url.Values{"direction": {"debit"}, "auth_code": {"TOUR01"}}}, 200, "")
	t.api("GET /v1/cards/{id}/transactions", call{method: "GET", path: "/v1/cards/crd_" + newUUID() + "/transactions", member: t.member}, 404, "")
	t.api("GET /v1/cards/{id}/close-check", call{method: "GET", path: path + "/close-check", member: t.member}, 200, "")
	t.api("POST /v1/cards/{id}/freeze", call{method: "POST", path: path + "/freeze", member: t.member, body: map[string]any{}}, 200, "")
	t.api("POST /v1/cards/{id}/unfreeze", call{method: "POST", path: path + "/unfreeze", member: t.member, body: map[string]any{}}, 200, "")
	t.api("POST /v1/cards/{id}/secure-session", call{method: "POST", path: path + "/secure-session", member: t.member, body: map[string]any{}}, 201, "")
	t.api("POST /v1/cards/{id}/activate", call{method: "POST", path: path + "/activate", member: t.member, keyed: true, body: map[string]any{"expiry": "01/30", "pin": "135790"}}, 400, "state_invalid")

	empty := t.issue("cpd_virtual_std")
	t.api("POST /v1/cards/{id}/close", call{method: "POST", path: "/v1/cards/" + empty + "/close", member: t.member, keyed: true, body: map[string]any{"reason": "tour"}}, 200, "")
	t.ctlOK("POST", "/_sim/cards/"+empty+"/close_complete", nil)
	t.api("POST /v1/cards/{id}/freeze", call{method: "POST", path: "/v1/cards/" + empty + "/freeze", member: t.member, body: map[string]any{}}, 400, "state_invalid")

	rejected := t.apply("cpd_virtual_std")
	t.ctlOK("POST", "/_sim/cards/applications/"+rejected+"/reject", nil)

	// A physical card: ship, activate (a wrong expiry first), PIN, lost,
	// replacement.
	phys := t.issue("cpd_physical_std")
	ppath := "/v1/cards/" + phys
	t.ctlOK("POST", "/_sim/cards/"+phys+"/ship", nil)
	t.api("POST /v1/cards/{id}/activate", call{method: "POST", path: ppath + "/activate", member: t.member, keyed: true, body: map[string]any{"expiry": "12/99", "pin": "135790"}}, 400, "card_activate_failed")
	plastic := t.ctlOK("POST", "/_sim/cards/"+phys+"/plastic", nil)
	t.api("POST /v1/cards/{id}/activate", call{method: "POST", path: ppath + "/activate", member: t.member, keyed: true, body: map[string]any{"expiry": plastic.str("expiry"), "pin": "135790"}}, 200, "")
	t.stepped("POST /v1/cards/{id}/pin", call{method: "POST", path: ppath + "/pin", member: t.member, body: map[string]any{"new_pin": "246809", "current_pin": "135790"}}, 200)
	t.stepped("POST /v1/cards/{id}/lost", call{method: "POST", path: ppath + "/lost", member: t.member, body: map[string]any{"kind": "stolen"}}, 200)
	t.api("POST /v1/cards/{id}/lost", call{method: "POST", path: ppath + "/lost", member: t.member, keyed: true, body: map[string]any{"kind": "lost"}}, 400, "state_invalid")
	t.api("POST /v1/cards/{id}/replacements", call{method: "POST", path: ppath + "/replacements", member: t.member, keyed: true, body: map[string]any{"reason": "stolen"}}, 201, "")
	t.api("POST /v1/cards/{id}/topups", call{method: "POST", path: ppath + "/topups", member: t.member, keyed: true, body: map[string]any{"amount": "5.000000"}}, 400, "state_invalid")
}

func (t *tour) remittances() {
	t.api("GET /v1/remit/products", call{method: "GET", path: "/v1/remit/products"}, 200, "")
	t.api("GET /v1/remit/conversion-dates", call{method: "GET", path: "/v1/remit/conversion-dates", query: url.Values{"payout_currency": {"GBP"}}}, 200, "")
	payees := t.api("GET /v1/remit/payees", call{method: "GET", path: "/v1/remit/payees", member: t.member}, 200, "")
	payee := ""
	if data, ok := payees.json["data"].([]any); ok {
		for _, d := range data {
			if p, ok := d.(map[string]any); ok && p["currency"] == "GBP" {
				payee, _ = p["id"].(string)
				break
			}
		}
	}
	if payee == "" {
		t.fail("no GBP payee for member-1")
		return
	}
	nb := map[string]any{"country": "GB", "currency": "GBP", "holder_name": "Tour Payee", "account_number": "GB33BUKB2020155555" + strconv.Itoa(int(time.Now().UnixNano()%9000+1000))}
	t.api("POST /v1/remit/payees", call{method: "POST", path: "/v1/remit/payees", member: t.member, keyed: true, body: nb}, 201, "")
	t.api("POST /v1/remit/payees", call{method: "POST", path: "/v1/remit/payees", member: t.member, keyed: true, body: nb}, 409, "duplicate_resource")
	t.api("GET /v1/remit/quotes", call{method: "GET", path: "/v1/remit/quotes", member: t.member, query: url.Values{"payee_id": {payee}, "payout_amount": {"10.00"}, "slippage_bps": {"100"}}}, 200, "")

	create := func() string {
		a := t.api("POST /v1/remittances", call{method: "POST", path: "/v1/remittances", member: t.member, keyed: true, body: map[string]any{
			"payee_id": payee, "payout_amount": "10.00", "slippage_bps": 100, "purpose_code": "FAMILY_SUPPORT", "reference": "tour"}}, 201, "")
		return a.str("id")
	}
	done := create()
	t.api("GET /v1/remittances", call{method: "GET", path: "/v1/remittances", member: t.member, query: url.Values{"limit": {"3"}}}, 200, "")
	t.api("GET /v1/remittances/{id}", call{method: "GET", path: "/v1/remittances/" + done, member: t.member}, 200, "")
	t.api("GET /v1/remittances/{id}", call{method: "GET", path: "/v1/remittances/rmt_" + newUUID(), member: t.member}, 404, "")
	t.api("POST /v1/remittances", call{method: "POST", path: "/v1/remittances", member: t.member, keyed: true, body: map[string]any{
		"payee_id": "pye_999999", "payout_amount": "10.00", "slippage_bps": 100, "purpose_code": "FAMILY_SUPPORT"}}, 404, "resource_not_found")
	for _, a := range []string{"dispatch", "complete", "refund"} {
		t.ctlOK("POST", "/_sim/remittances/"+done+"/"+a, nil)
	}
	t.ctlOK("POST", "/_sim/remittances/"+create()+"/fail", nil)
	t.ctlOK("POST", "/_sim/remittances/"+create()+"/needs_reconfirm", nil)

	t.api("POST /v1/remit/vp/applications/query", call{method: "POST", path: "/v1/remit/vp/applications/query", body: map[string]any{"members": []string{t.member, t.memberID, "nobody-here"}}}, 200, "")
}

func (t *tour) kyc() {
	t.api("GET /v1/kyc", call{method: "GET", path: "/v1/kyc", member: t.member}, 200, "")
	t.api("POST /v1/kyc/quick", call{method: "POST", path: "/v1/kyc/quick", member: t.member, keyed: true, body: map[string]any{}}, 201, "")
	q := t.api("GET /v1/kyc/quick", call{method: "GET", path: "/v1/kyc/quick", member: t.member}, 200, "")
	if data, ok := q.json["data"].([]any); ok && len(data) > 0 {
		if b, ok := data[0].(map[string]any); ok {
			id, _ := b["id"].(string)
			t.ctlOK("POST", "/_sim/kyc/quick/"+id+"/compensate", map[string]any{"compensation_source": "admin"})
		}
	}
	t.api("POST /v1/kyc/profile-sessions", call{method: "POST", path: "/v1/kyc/profile-sessions", member: t.member, keyed: true}, 201, "")
	t.ctlOK("POST", "/_sim/kyc/"+t.member+"/approve", map[string]any{"level": 1})

	// A member without a KYC profile (created now: member.created), then
	// suspended (member.suspended).
	other := "tour-" + newUUID()[:8]
	t.ctlOK("POST", "/_sim/members", map[string]any{"external_member_id": other, "kyc_level": 0, "balances": map[string]string{"USDT": "10"}})
	t.api("POST /v1/kyc/profile-sessions", call{method: "POST", path: "/v1/kyc/profile-sessions", member: other, keyed: true}, 404, "not_found")
	t.ctlOK("POST", "/_sim/members/"+other+"/status", map[string]any{"status": "suspended"})
	t.api("GET /v1/kyc", call{method: "GET", path: "/v1/kyc", member: other}, 404, "member_not_found")
}

// moreErrors gives the operations whose other steps only succeed an error
// answer too: member-scoped ones for a member the merchant does not have,
// card ones for a card that does not exist, merchant-level reads through an
// injected upstream failure.
func (t *tour) moreErrors() {
	nobody := "nobody-" + newUUID()[:8]
	for _, k := range []struct {
		op string
		c  call
	}{
		{"GET /v1/cards", call{method: "GET", path: "/v1/cards"}},
		{"GET /v1/kyc/quick", call{method: "GET", path: "/v1/kyc/quick"}},
		{"POST /v1/kyc/quick", call{method: "POST", path: "/v1/kyc/quick", keyed: true, body: map[string]any{}}},
		{"GET /v1/remit/payees", call{method: "GET", path: "/v1/remit/payees"}},
		{"GET /v1/remittances", call{method: "GET", path: "/v1/remittances"}},
		{"GET /v1/remit/quotes", call{method: "GET", path: "/v1/remit/quotes", query: url.Values{"payee_id": {"pye_100001"}, "payout_amount": {"10.00"}}}},
	} {
		k.c.member = nobody
		t.api(k.op, k.c, 404, "member_not_found")
	}
	card := "/v1/cards/crd_" + newUUID()
	for _, k := range []struct {
		op string
		c  call
	}{
		{"GET /v1/cards/{id}/close-check", call{method: "GET", path: card + "/close-check"}},
		{"GET /v1/cards/{id}/topups/estimate", call{method: "GET", path: card + "/topups/estimate", query: url.Values{"amount": {"10"}}}},
		{"POST /v1/cards/{id}/close", call{method: "POST", path: card + "/close", keyed: true, body: map[string]any{}}},
		{"POST /v1/cards/{id}/replacements", call{method: "POST", path: card + "/replacements", keyed: true, body: map[string]any{}}},
		{"POST /v1/cards/{id}/secure-session", call{method: "POST", path: card + "/secure-session", body: map[string]any{}}},
		{"POST /v1/cards/{id}/unfreeze", call{method: "POST", path: card + "/unfreeze", body: map[string]any{}}},
		{"POST /v1/cards/{id}/pin", call{method: "POST", path: card + "/pin", keyed: true, body: map[string]any{"new_pin": "246809", "current_pin": "135790"}}},
	} {
		k.c.member = t.member
		t.api(k.op, k.c, 404, "")
	}
	for _, k := range []struct {
		op, path string
		c        call
	}{
		{"GET /v1/qrpay/schemes", "/v1/qrpay/schemes", call{method: "GET", path: "/v1/qrpay/schemes"}},
		{"GET /v1/cards/products", "/v1/cards/products", call{method: "GET", path: "/v1/cards/products"}},
		{"GET /v1/deposits", "/v1/deposits", call{method: "GET", path: "/v1/deposits"}},
		{"GET /v1/remit/products", "/v1/remit/products", call{method: "GET", path: "/v1/remit/products"}},
		{"GET /v1/remit/conversion-dates", "/v1/remit/conversion-dates", call{method: "GET", path: "/v1/remit/conversion-dates", query: url.Values{"payout_currency": {"GBP"}}}},
		{"GET /v1/webhooks/deliveries", "/v1/webhooks/deliveries", call{method: "GET", path: "/v1/webhooks/deliveries"}},
		{"POST /v1/remit/vp/applications/query", "/v1/remit/vp/applications/query", call{method: "POST", path: "/v1/remit/vp/applications/query", body: map[string]any{"members": []string{t.member}}}},
	} {
		t.fault(k.c.method, k.path, 502, "upstream_error")
		t.api(k.op, k.c, 502, "upstream_error")
	}
}

// syntheticEvents records the events the simulator has no product flow for.
func (t *tour) syntheticEvents() {
	for _, e := range []struct {
		typ, object, status string
		version             int
		member              bool
	}{
		{"withdrawal.order.locked", "withdrawal", "locked", 1, true},
		{"withdrawal.order.completed", "withdrawal", "completed", 2, true},
		{"withdrawal.order.failed", "withdrawal", "failed", 2, true},
		{"card.3ds.received", "card", "received", 1, true},
		{"card.withdraw.completed", "card_withdrawal", "completed", 1, true},
		{"merchant.balance.waterline", "merchant_balance", "updated", 1, false},
		{"earn.order.settled", "earn_order", "settled", 1, true},
		{"exchange.order.executed", "exchange_order", "executed", 0, true},
	} {
		ext := ""
		if e.member {
			ext = t.member
		}
		t.ctlOK("POST", "/_sim/webhooks/events", map[string]any{"event_type": e.typ, "object": e.object, "id": newUUID(),
			"external_member_id": ext, "status": e.status, "status_version": e.version})
	}
}

func (t *tour) webhookDeliveries() {
	// Deliver what is due, so that sent rows exist.
	t.ctlOK("POST", "/_sim/webhooks/flush", nil)
	var noSub, sent string
	q := url.Values{"limit": {"50"}}
	for page := 0; page < 40 && (noSub == "" || sent == ""); page++ {
		list := t.api("GET /v1/webhooks/deliveries", call{method: "GET", path: "/v1/webhooks/deliveries", query: q}, 200, "")
		data, _ := list.json["data"].([]any)
		for _, d := range data {
			row, _ := d.(map[string]any)
			id, _ := row["id"].(string)
			switch row["status"] {
			case "no_subscriber":
				noSub = id
			case "sent":
				sent = id
			}
		}
		next, _ := list.json["next_cursor"].(string)
		if more, _ := list.json["has_more"].(bool); !more || next == "" {
			break
		}
		q = url.Values{"limit": {"50"}, "cursor": {next}}
	}
	if noSub == "" || sent == "" {
		t.fail("deliveries: no no_subscriber row (%q) or no sent row (%q)", noSub, sent)
		return
	}
	t.api("POST /v1/webhooks/deliveries/{id}/redeliver", call{method: "POST", path: "/v1/webhooks/deliveries/" + noSub + "/redeliver", keyed: true}, 200, "")
	t.api("POST /v1/webhooks/deliveries/{id}/redeliver", call{method: "POST", path: "/v1/webhooks/deliveries/" + sent + "/redeliver", keyed: true}, 400, "state_invalid")
}
