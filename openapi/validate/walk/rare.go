package walk

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mwallet/mwallet-go/openapi/validate/tour"
)

// The operator's less frequent control calls: Keys, the KYC provider's and
// the issuer's hosted screens, card and QR upstream settings, signing and
// in-progress idempotency records, the journal and the recording stepper.
//
// Not walked, on purpose: GET /_sim/openapi.yaml and /_sim/openapi-sim.yaml
// (the documents, not behaviour: every edit of them would be a
// difference), GET /_sim/ui, /_sim/ui/ and /_sim/ui/{file} (the
// dashboard's static files), GET /_sim/recording (it carries the
// idempotency body key each process draws from crypto/rand, and the base
// URL) and POST /_sim/webhooks/auto (its background flush runs when the
// emitting request has returned, so what a later answer shows depends on
// timing). NotWalked lists them.
var NotWalked = []string{
	"GET /_sim/openapi.yaml", "GET /_sim/openapi-sim.yaml", "GET /_sim/ui", "GET /_sim/ui/", "GET /_sim/ui/{file}",
	"GET /_sim/recording", "POST /_sim/webhooks/auto",
}

// walkKey is the Key the walk adds (secrets given, so every simulator
// holds the same ones).
const walkKey = "walk_key"

func (w *walker) rareStep() {
	m := url.PathEscape(w.member())
	on := !w.one(3)
	switch w.rng.IntN(19) {
	case 0:
		w.ctl("POST /_sim/keys", "/_sim/keys", map[string]any{"client_id": walkKey, "api_key": "walk_api_key_0123456789",
			"signing_key": "walk_signing_key_0123456789", "scopes": []string{"members:read", "merchant:read"}})
	case 1:
		w.ctl("GET /_sim/keys/{client_id}", "/_sim/keys/"+[]string{walkKey, w.m.clientID, "nobody"}[w.rng.IntN(3)], nil)
	case 2:
		body := map[string]any{"disabled": !on}
		if w.one(2) {
			body = map[string]any{"scopes": []string{"members:read", "merchant:read", "cards:read"}}
		}
		w.ctl("POST /_sim/keys/{client_id}", "/_sim/keys/"+walkKey, body)
	case 3:
		// A business call with the walk's Key: its own token, its scopes.
		a := w.exchange(walkKey, "walk_api_key_0123456789")
		if tok := a.str("auth_token"); tok != "" {
			saved := w.m.token
			w.m.token = tok
			w.biz("GET /v1/deposits", nil, nil, bizOpt{noBreak: true})
			w.m.token = saved
		}
	case 4:
		w.ctl("DELETE /_sim/requests", "/_sim/requests", nil)
	case 5:
		w.ctl("GET /_sim/recipes", "/_sim/recipes", nil)
	case 6:
		w.ctl("POST /_sim/kyc/sessions/{id}/complete", "/_sim/kyc/sessions/"+url.PathEscape(w.someID(w.m.sessions, "kyt_"))+"/complete", nil)
	case 7:
		w.ctl("POST /_sim/kyc/quick/{id}/compensate", "/_sim/kyc/quick/"+url.PathEscape(w.someID(w.m.quick, "kqb_"))+"/compensate",
			map[string]any{"compensation_source": []string{"admin", "auto"}[w.rng.IntN(2)]})
	case 8:
		w.ctl("GET /_sim/cards/secure-sessions/{id}", "/_sim/cards/secure-sessions/"+url.PathEscape(w.someID(w.m.secure, "css_")), nil)
	case 9:
		bins := []string{}
		if !on {
			bins = []string{"411111"}
		}
		w.ctl("POST /_sim/cards/bin_authorizations", "/_sim/cards/bin_authorizations", map[string]any{"bins": bins})
		w.restoreLater("POST /_sim/cards/bin_authorizations", "/_sim/cards/bin_authorizations", map[string]any{"bins": []string{}})
	case 10:
		p, _ := pick(w, products)
		w.toggle("POST /_sim/cards/products/{id}/enabled", "/_sim/cards/products/"+p+"/enabled", "enabled", on)
	case 11:
		w.ctl("POST /_sim/members/{id}/kyc_country", "/_sim/members/"+m+"/kyc_country", map[string]any{"country": []string{"SG", "SG", "US", "KP"}[w.rng.IntN(4)]})
		w.restoreLater("POST /_sim/members/{id}/kyc_country", "/_sim/members/"+m+"/kyc_country", map[string]any{"country": "SG"})
	case 12:
		w.ctl("POST /_sim/members/{id}/shipping_addresses", "/_sim/members/"+m+"/shipping_addresses", map[string]any{"country": []string{"SG", "GB", "KP"}[w.rng.IntN(3)], "default": w.one(2)})
	case 13:
		w.ctl("POST /_sim/merchant/prepaid/withdraw", "/_sim/merchant/prepaid/withdraw", map[string]any{"asset": "USDC", "amount": w.amount()})
	case 14:
		w.ctl("POST /_sim/merchant/pobo_subaccount", "/_sim/merchant/pobo_subaccount", map[string]any{"active": on})
	case 15:
		sc := []string{}
		if !on {
			sc = []string{[]string{"payer_fields", "blocked", "corridor", "range", "upstream_error", "reject", "timeout"}[w.rng.IntN(7)]}
		}
		w.ctl("POST /_sim/qrpay/scenarios", "/_sim/qrpay/scenarios", map[string]any{"code_value": tour.QRCode, "scenarios": sc})
		w.restoreLater("POST /_sim/qrpay/scenarios", "/_sim/qrpay/scenarios", map[string]any{"code_value": tour.QRCode, "scenarios": []string{}})
	case 16:
		w.ctl("POST /_sim/qrpay/fiat_rates", "/_sim/qrpay/fiat_rates", map[string]any{"currency": "THB", "usd_per_unit": []string{"0.028", "0.03", "0"}[w.rng.IntN(3)]})
	case 17:
		body := map[string]any{"method": "POST", "path": "/v1/deposits", "body": "{}"}
		if w.one(2) {
			body["nonce"] = w.uuid()
		}
		w.ctl("POST /_sim/keys/{client_id}/sign", "/_sim/keys/"+url.PathEscape(w.m.clientID)+"/sign", body)
	default:
		// A first request still running under a key: the same request
		// meets idempotency_in_progress, another body idempotency_key_reused.
		key := w.uuid()
		body := fmt.Sprintf(`{"amount":"5","asset":"USDT","reference":"%s"}`, w.ref())
		w.ctl("POST /_sim/requests/in_progress", "/_sim/requests/in_progress", map[string]any{"method": "POST", "path": "/v1/deposits",
			"idempotency_key": key, "body": body, "seconds": 60})
		var v map[string]any
		if w.one(2) {
			body = strings.Replace(body, `"5"`, `"6"`, 1)
		}
		_ = json.Unmarshal([]byte(body), &v)
		w.biz("POST /v1/deposits", nil, v, bizOpt{member: w.member(), keyed: true, key: key, noBreak: true})
	}
	if w.one(6) {
		a := w.ctl("GET /_sim/recording/steps", fmt.Sprintf("/_sim/recording/steps?limit=5&after=%d", w.rng.IntN(w.res.Requests+1)), nil)
		data, _ := a.json["data"].([]any) // the control list envelope
		if steps, ok := a.json["steps"].([]any); ok {
			data = steps // builds before it
		}
		if len(data) > 0 {
			if s, ok := data[0].(map[string]any); ok {
				if seq, ok := s["seq"].(float64); ok {
					w.ctl("GET /_sim/recording/steps/{seq}", fmt.Sprintf("/_sim/recording/steps/%d", int(seq)), nil)
				}
			}
		}
	}
}
