// Package recipes is the simulator's catalogue of error recipes (GET
// /_sim/recipes) and the runner that plays them over HTTP. Running a
// recipe's steps in order against a fresh default simulator makes its last
// step answer the recipe's code with the code's documented HTTP status. A
// recipe is produced by the condition the simulator models for its code;
// only codes whose endpoint the contract does not show are injected, through
// POST /_sim/faults.
//
// The package knows the simulator only by its HTTP surface and by Host,
// which it declares: the public simulator package converts these types to
// its own exported ones (ErrorRecipe, RecipeRunner).
package recipes

import (
	"encoding/json"
	"sort"

	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// Recipe is one entry of GET /_sim/recipes (the simulator's ErrorRecipe,
// which documents each field).
type Recipe struct {
	Code     string
	Title    string
	Injected bool
	Steps    []Step
	Expect   Expect
	// Note says, for an injected recipe, why the contract shows no endpoint
	// for the code.
	Note string
}

// Step is one request of a recipe (the simulator's RecipeStep). Strings may
// hold {{VAR}} (a value saved by an earlier step) and {{new_uuid:NAME}} (a
// fresh UUID bound to NAME at its first use; {{NAME}} reuses it).
type Step struct {
	Call           string // "control" or "api"
	Method         string
	Path           string
	Body           json.RawMessage
	Member         string
	IdempotencyKey string
	Headers        map[string]string
	Save           map[string]string
	ExpectStatus   int
}

// Expect is the answer of a recipe's last step.
type Expect struct {
	Status int
	Code   string
}

// qrScenarioUpstreamError is the QR line's scenario of an acquirer that
// cannot be reached (the simulator's QRScenarioUpstreamError).
const qrScenarioUpstreamError = "upstream_error"

// The step builders keep the catalogue readable.

func ctlStep(method, path string, body any) Step {
	return Step{Call: "control", Method: method, Path: path, Body: recipeJSON(body)}
}

func apiStep(method, path, member, key string, body any) Step {
	return Step{Call: "api", Method: method, Path: path, Member: member, IdempotencyKey: key, Body: recipeJSON(body)}
}

func (st Step) want(status int) Step { st.ExpectStatus = status; return st }

func (st Step) save(kv ...string) Step {
	st.Save = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		st.Save[kv[i]] = kv[i+1]
	}
	return st
}

func (st Step) headers(kv ...string) Step {
	st.Headers = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		st.Headers[kv[i]] = kv[i+1]
	}
	return st
}

func recipeJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("recipes: recipe body: " + err.Error()) // only the literals below reach this
	}
	return b
}

type jsonObj = map[string]any

// recipeQRCode is a PromptPay code of 250.00 THB, as a phone camera reads it.
var recipeQRCode = emvqr.MustBuild(emvqr.Payload{
	PointOfInitiation: "12",
	MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
		Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "RECIPE1"}}}},
	MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
	MerchantName: "RECIPE KITCHEN", MerchantCity: "BANGKOK",
})

const fixtureMember = "member-1"

// Steps several recipes share.
var (
	getCredentials = ctlStep("GET", "/_sim/credentials", nil).save("CLIENT_ID", "client_id").want(200)
	takeToken      = apiStep("GET", "/v1/assets", "", "", nil).want(200)
	createPayeeGB  = apiStep("POST", "/v1/remit/payees", fixtureMember, "{{new_uuid:PAYEE_KEY}}",
		jsonObj{"country": "GB", "currency": "GBP", "holder_name": "Recipe Payee", "account_number": "GB00RECIPE0001", "bank_code": "RCPE"}).
		save("PAYEE", "id").want(201)
)

// memberStep creates member ext with a KYC level and balances.
func memberStep(ext string, level int, balances jsonObj) Step {
	return ctlStep("POST", "/_sim/members", jsonObj{"external_member_id": ext, "kyc_level": level, "balances": balances}).want(201)
}

// applyVirtualStep applies for a virtual card for member and saves APP.
func applyVirtualStep(member string, extra jsonObj) Step {
	body := jsonObj{"product_id": "cpd_virtual_std", "source_asset": "USDT"}
	for k, v := range extra {
		body[k] = v
	}
	return apiStep("POST", "/v1/cards/applications", member, "{{new_uuid:APPLY_KEY}}", body)
}

// issuedVirtualCard applies for a virtual card for the fixture member and
// has the issuer approve it: the card id is CARD.
var issuedVirtualCard = []Step{
	applyVirtualStep(fixtureMember, nil).save("APP", "id").want(201),
	ctlStep("POST", "/_sim/cards/applications/{{APP}}/approve", nil).save("CARD", "card_id").want(200),
}

func remitStep(payee, payout string) Step {
	return apiStep("POST", "/v1/remittances", fixtureMember, "{{new_uuid:REMIT_KEY}}",
		jsonObj{"payee_id": payee, "payout_amount": payout, "slippage_bps": 50, "purpose_code": "FAMILY_SUPPORT"})
}

func depositStep(key string, body jsonObj) Step {
	return apiStep("POST", "/v1/deposits", fixtureMember, key, body)
}

func stepList(parts ...any) []Step {
	var out []Step
	for _, p := range parts {
		switch v := p.(type) {
		case Step:
			out = append(out, v)
		case []Step:
			out = append(out, v...)
		}
	}
	return out
}

// injected builds the recipe of a code the contract shows no endpoint for:
// arm an error fault on the path the code belongs to, then call it.
func injectedRecipe(code, title, note, method, faultPath, path string, body any) Recipe {
	return Recipe{Code: code, Title: title, Injected: true, Note: note, Steps: []Step{
		ctlStep("POST", "/_sim/faults", jsonObj{"method": method, "path": faultPath, "kind": "error", "code": code}).want(201),
		apiStep(method, path, fixtureMember, "{{new_uuid:KEY}}", body),
	}}
}

// Catalogue returns the catalogue served at GET /_sim/recipes: one recipe
// per public error code of the contract except the two reserved ones
// (signature_required and member_suspended, which the service does not
// emit), sorted by code.
func Catalogue() []Recipe {
	rs := []Recipe{
		// Authentication and the gateway.
		{Code: "invalid_credentials", Title: "token exchange with an unknown client id and a wrong API key",
			Steps: stepList(ctlStep("POST", "/v1/connect/token", nil).headers("x-client-id", "recipe-unknown-client", "x-api-key", "recipe-wrong-api-key"))},
		{Code: "invalid_token", Title: "a business call whose x-auth-token holds a token the service never issued",
			Steps: stepList(apiStep("GET", "/v1/assets", "", "", nil).headers("x-auth-token", "Bearer tok_recipe_never_issued"))},
		{Code: "invalid_signature", Title: "a write whose x-signature was not made with the signing key",
			Steps: stepList(apiStep("POST", "/v1/qrpay/decode", fixtureMember, "", jsonObj{"code_value": recipeQRCode}).
				headers("x-signature", "bm90LW1hZGUtd2l0aC10aGUtc2lnbmluZy1rZXkhIQ=="))},
		{Code: "timestamp_out_of_range", Title: "a signed write whose x-timestamp is far from the server clock",
			Steps: stepList(apiStep("POST", "/v1/qrpay/decode", fixtureMember, "", jsonObj{"code_value": recipeQRCode}).
				headers("x-timestamp", "1000000000"))},
		{Code: "nonce_reused", Title: "the same signed request (same x-nonce) sent twice within 5 minutes, under two idempotency keys",
			Steps: stepList(getCredentials,
				ctlStep("POST", "/_sim/keys/{{CLIENT_ID}}/sign", jsonObj{"method": "POST", "path": "/v1/kyc/profile-sessions", "nonce": "{{new_uuid:NONCE}}"}).
					save("TS", "timestamp", "SIG", "signature").want(200),
				apiStep("POST", "/v1/kyc/profile-sessions", fixtureMember, "{{new_uuid:KEY1}}", nil).
					headers("x-timestamp", "{{TS}}", "x-nonce", "{{NONCE}}", "x-signature", "{{SIG}}").want(201),
				apiStep("POST", "/v1/kyc/profile-sessions", fixtureMember, "{{new_uuid:KEY2}}", nil).
					headers("x-timestamp", "{{TS}}", "x-nonce", "{{NONCE}}", "x-signature", "{{SIG}}"))},
		{Code: "environment_mismatch", Title: "a sandbox token used after the deployment became production",
			Steps: stepList(takeToken, ctlStep("POST", "/_sim/merchant", jsonObj{"environment": "production"}).want(200),
				apiStep("GET", "/v1/assets", "", "", nil))},
		{Code: "insufficient_scope", Title: "a Key holding only merchant:read lists the card products (cards:read)",
			Steps: stepList(getCredentials, ctlStep("POST", "/_sim/keys/{{CLIENT_ID}}", jsonObj{"scopes": []string{"merchant:read"}}).want(200),
				apiStep("GET", "/v1/cards/products", "", "", nil))},
		{Code: "ip_not_allowed", Title: "the Key's IP allowlist no longer holds the caller's address",
			Steps: stepList(takeToken, getCredentials, ctlStep("POST", "/_sim/keys/{{CLIENT_ID}}", jsonObj{"ip_allowlist": []string{"192.0.2.1"}}).want(200),
				apiStep("GET", "/v1/assets", "", "", nil))},
		{Code: "merchant_disabled", Title: "a write of a suspended merchant (reads still work)",
			Steps: stepList(ctlStep("POST", "/_sim/merchant", jsonObj{"status": "suspended"}).want(200),
				apiStep("POST", "/v1/qrpay/decode", fixtureMember, "", jsonObj{"code_value": recipeQRCode}))},

		// Idempotency and member context.
		{Code: "idempotency_key_required", Title: "a creating write without x-idempotency-key",
			Steps: stepList(apiStep("POST", "/v1/kyc/profile-sessions", fixtureMember, "", nil))},
		{Code: "idempotency_key_invalid", Title: "an x-idempotency-key that is not UUID-shaped",
			Steps: stepList(apiStep("POST", "/v1/kyc/profile-sessions", fixtureMember, "not-a-uuid", nil))},
		{Code: "idempotency_key_reused", Title: "the same idempotency key with another body",
			Steps: stepList(depositStep("{{new_uuid:KEY}}", jsonObj{"asset": "USDT", "amount": "10", "reference": "recipe-reused"}).want(201),
				depositStep("{{KEY}}", jsonObj{"asset": "USDT", "amount": "20", "reference": "recipe-reused"}))},
		{Code: "idempotency_in_progress", Title: "a request while the first one with the same key is still running",
			Steps: stepList(ctlStep("POST", "/_sim/requests/in_progress", jsonObj{"method": "POST", "path": "/v1/kyc/profile-sessions", "idempotency_key": "{{new_uuid:KEY}}"}).want(201),
				apiStep("POST", "/v1/kyc/profile-sessions", fixtureMember, "{{KEY}}", nil))},
		{Code: "member_not_found", Title: "x-on-behalf-of naming no member of the merchant",
			Steps: stepList(apiStep("POST", "/v1/qrpay/decode", "recipe-no-such-member", "", jsonObj{"code_value": recipeQRCode}))},
		{Code: "member_context_required", Title: "a member-scoped call without x-on-behalf-of",
			Steps: stepList(apiStep("POST", "/v1/qrpay/decode", "", "", jsonObj{"code_value": recipeQRCode}))},

		// KYC and quick KYC (allocated by a card application with quick_kyc_email).
		{Code: "quick_kyc_disabled", Title: "a card application that needs a quick KYC profile while quick KYC is off for the merchant",
			Steps: stepList(memberStep("recipe-l0", 0, jsonObj{"USDT": "100"}), ctlStep("POST", "/_sim/kyc/quick", jsonObj{"enabled": false}).want(200),
				applyVirtualStep("recipe-l0", jsonObj{"quick_kyc_email": "recipe-l0@example.com"}))},
		{Code: "quick_kyc_limit", Title: "a sixth quick KYC profile for one member",
			Steps: stepList(memberStep("recipe-l0", 0, jsonObj{"USDT": "1000"}), ctlStep("POST", "/_sim/cards/limits", jsonObj{"form_factor": "virtual", "limit": 10}).want(200),
				quickApplyStep(1), quickApplyStep(2), quickApplyStep(3), quickApplyStep(4), quickApplyStep(5),
				apiStep("POST", "/v1/cards/applications", "recipe-l0", "{{new_uuid:KEY6}}",
					jsonObj{"product_id": "cpd_virtual_std", "source_asset": "USDT", "quick_kyc_email": "recipe-6@example.com"}))},
		{Code: "quick_kyc_exhausted", Title: "a card application that needs a quick KYC profile when none is left unassigned",
			Steps: stepList(memberStep("recipe-l0", 0, jsonObj{"USDT": "100"}), ctlStep("POST", "/_sim/kyc/quick", jsonObj{"pool": 0}).want(200),
				applyVirtualStep("recipe-l0", jsonObj{"quick_kyc_email": "recipe-l0@example.com"}))},
		{Code: "quick_kyc_unpaid", Title: "a card application paid in USDC whose quick KYC usage fee (10 USDT) the member cannot cover",
			Steps: stepList(memberStep("recipe-l0", 0, jsonObj{"USDC": "100"}),
				applyVirtualStep("recipe-l0", jsonObj{"source_asset": "USDC", "quick_kyc_email": "recipe-l0@example.com"}))},
		{Code: "kyc_required", Title: "a QR quote for a member at KYC level 0 (the line needs 1)",
			Steps: stepList(memberStep("recipe-l0", 0, jsonObj{"USDT": "100"}),
				apiStep("POST", "/v1/qrpay/quotes", "recipe-l0", "", jsonObj{"code_value": recipeQRCode}))},

		// Funds, products and limits.
		{Code: "insufficient_balance", Title: "a QR quote for a member with no usable debit asset",
			Steps: stepList(memberStep("recipe-empty", 1, jsonObj{}),
				apiStep("POST", "/v1/qrpay/quotes", "recipe-empty", "", jsonObj{"code_value": recipeQRCode}))},
		{Code: "product_not_available", Title: "a card application for a product the operator disabled",
			Steps: stepList(ctlStep("POST", "/_sim/cards/products/cpd_virtual_std/enabled", jsonObj{"enabled": false}).want(200),
				applyVirtualStep(fixtureMember, nil))},
		{Code: "limit_exceeded", Title: "a remittance above the express line's per-order limit (5000 USDT)",
			Steps: stepList(createPayeeGB, remitStep("{{PAYEE}}", "5000.00"))},
		{Code: "amount_out_of_range", Title: "a remittance below the express line's minimum (10 USDT)",
			Steps: stepList(createPayeeGB, remitStep("{{PAYEE}}", "1.00"))},
		{Code: "request_rejected", Title: "a deposit for a banned member",
			Steps: stepList(ctlStep("POST", "/_sim/members/member-1/status", jsonObj{"status": "banned"}).want(200),
				depositStep("{{new_uuid:KEY}}", jsonObj{"asset": "USDT", "amount": "10", "reference": "recipe-banned"}))},
		{Code: "step_up_required", Title: "the first call of a QR payment (every payment needs strong authentication)",
			Steps: stepList(apiStep("POST", "/v1/qrpay/payments", fixtureMember, "{{new_uuid:KEY}}", jsonObj{"code_value": recipeQRCode}))},
		{Code: "asset_not_allowed", Title: "a deposit in an asset outside the catalogue",
			Steps: stepList(depositStep("{{new_uuid:KEY}}", jsonObj{"asset": "DOGE", "amount": "10", "reference": "recipe-doge"}))},
		{Code: "invalid_request", Title: "a deposit amount with more decimals than the asset's ledger_scale",
			Steps: stepList(depositStep("{{new_uuid:KEY}}", jsonObj{"asset": "USDT", "amount": "10.1234567", "reference": "recipe-scale"}))},
		{Code: "invalid_fields", Title: "a deposit with a txid but no network",
			Steps: stepList(depositStep("{{new_uuid:KEY}}", jsonObj{"asset": "USDT", "amount": "10", "reference": "recipe-txid", "txid": "0xabc"}))},

		// Cards.
		{Code: "card_pin_invalid", Title: "a PIN reset with a PIN of the wrong length",
			Steps: stepList(issuedVirtualCard, apiStep("POST", "/v1/cards/{{CARD}}/pin", fixtureMember, "{{new_uuid:KEY}}", jsonObj{"new_pin": "12", "cvv": "123"}))},
		{Code: "card_pin_rejected", Title: "a PIN reset with a PIN of one repeated digit",
			Steps: stepList(issuedVirtualCard, apiStep("POST", "/v1/cards/{{CARD}}/pin", fixtureMember, "{{new_uuid:KEY}}", jsonObj{"new_pin": "111111", "cvv": "123"}))},
		{Code: "card_activate_failed", Title: "activating a shipped physical card with the wrong expiry",
			Steps: stepList(apiStep("POST", "/v1/cards/applications", fixtureMember, "{{new_uuid:APPLY_KEY}}", jsonObj{"product_id": "cpd_physical_std", "source_asset": "USDT"}).
				save("APP", "id").want(201),
				ctlStep("POST", "/_sim/cards/applications/{{APP}}/approve", nil).save("CARD", "card_id").want(200),
				ctlStep("POST", "/_sim/cards/{{CARD}}/ship", nil).want(200),
				apiStep("POST", "/v1/cards/{{CARD}}/activate", fixtureMember, "{{new_uuid:KEY}}", jsonObj{"expiry": "01/20", "pin": "135790"}))},
		{Code: "upstream_timeout", Title: "a card top-up whose issuer call times out after the hold (the order exists and stays processing; the retry with the same key replays it)",
			Steps: stepList(issuedVirtualCard, ctlStep("POST", "/_sim/cards/topups/upstream_timeout", jsonObj{"count": 1}).want(200),
				apiStep("POST", "/v1/cards/{{CARD}}/topups", fixtureMember, "{{new_uuid:KEY}}", jsonObj{"amount": "20"}))},
		{Code: "api_error", Title: "a card application from a member with outstanding penalties (a business failure the contract answers 500)",
			Steps: stepList(ctlStep("POST", "/_sim/members/member-1/card_penalty", jsonObj{"outstanding": true}).want(200),
				applyVirtualStep(fixtureMember, nil))},

		// Remittances.
		{Code: "corridor_not_supported", Title: "a remittance to a payee in a corridor the line does not serve (NG-NGN)",
			Steps: stepList(apiStep("POST", "/v1/remit/payees", fixtureMember, "{{new_uuid:PAYEE_KEY}}",
				jsonObj{"country": "NG", "currency": "NGN", "holder_name": "Recipe Payee", "account_number": "NG00RECIPE0001"}).save("PAYEE", "id").want(201),
				remitStep("{{PAYEE}}", "1000.00"))},
		{Code: "resource_not_found", Title: "a remittance to a payee that is not the member's",
			Steps: stepList(remitStep("pye_999999999", "100.00"))},
		{Code: "duplicate_resource", Title: "the same payee (account and currency) saved twice",
			Steps: stepList(createPayeeGB, apiStep("POST", "/v1/remit/payees", fixtureMember, "{{new_uuid:PAYEE_KEY2}}",
				jsonObj{"country": "GB", "currency": "GBP", "holder_name": "Recipe Payee", "account_number": "GB00RECIPE0001", "bank_code": "RCPE"}))},

		// QR payments and the rest.
		{Code: "qr_code_invalid", Title: "decoding text that is not an EMVCo QR payload",
			Steps: stepList(apiStep("POST", "/v1/qrpay/decode", fixtureMember, "", jsonObj{"code_value": "not a QR code"}))},
		{Code: "upstream_error", Title: "a QR quote while the acquirer cannot be reached for the code",
			Steps: stepList(ctlStep("POST", "/_sim/qrpay/scenarios", jsonObj{"code_value": recipeQRCode, "scenarios": []string{qrScenarioUpstreamError}}).want(200),
				apiStep("POST", "/v1/qrpay/quotes", fixtureMember, "", jsonObj{"code_value": recipeQRCode}))},
		{Code: "service_unavailable", Title: "decoding a QR code while the QR line is switched off",
			Steps: stepList(ctlStep("POST", "/_sim/qrpay/line", jsonObj{"enabled": false}).want(200),
				apiStep("POST", "/v1/qrpay/decode", fixtureMember, "", jsonObj{"code_value": recipeQRCode}))},
		{Code: "rate_limited", Title: "a second write within a minute under a merchant-level write quota of 1 per minute",
			Steps: stepList(ctlStep("POST", "/_sim/merchant/write_quota", jsonObj{"per_minute": 1}).want(200),
				apiStep("POST", "/v1/qrpay/quotes", fixtureMember, "", jsonObj{"code_value": recipeQRCode}).want(200),
				apiStep("POST", "/v1/qrpay/quotes", fixtureMember, "", jsonObj{"code_value": recipeQRCode}))},
		{Code: "state_invalid", Title: "redelivering a webhook delivery while no endpoint subscribes",
			Steps: stepList(apiStep("GET", "/v1/webhooks/deliveries", "", "", nil).save("DELIVERY", "data.0.id").want(200),
				apiStep("POST", "/v1/webhooks/deliveries/{{DELIVERY}}/redeliver", "", "{{new_uuid:KEY}}", nil))},
		{Code: "not_found", Title: "reading a QR payment order that does not exist",
			Steps: stepList(apiStep("GET", "/v1/qrpay/orders/qrp_{{new_uuid:ORDER}}", fixtureMember, "", nil))},

		// Codes whose endpoint the contract does not show: injected.
		injectedRecipe("quote_lock_unsupported", "a quote id sent to merchant self-conversion, which prices at execution",
			"merchant self-conversion (/v1/exchange/*) is named but not shown", "POST", "/v1/exchange/orders", "/v1/exchange/orders",
			jsonObj{"quote_id": "{{new_uuid:QUOTE}}"}),
		injectedRecipe("merchant_insufficient_funds", "an operation funded from a merchant prepaid balance that is short",
			"no endpoint the contract shows lists it: short prepaid answers service_unavailable on QR payments, card applications and top-ups and pobo remittances, and queues express remittances",
			"POST", "/v1/exchange/orders", "/v1/exchange/orders", jsonObj{"from_asset": "USDT", "to_asset": "USDC", "amount": "100"}),
		injectedRecipe("merchant_custody_shortfall", "confirming a withdrawal that would make the merchant custody declaration negative",
			"withdrawals (/v1/withdrawals*) are named but not shown", "POST", "/v1/withdrawals/*", "/v1/withdrawals/{{new_uuid:WITHDRAWAL}}/confirm", nil),
		injectedRecipe("address_not_allowed", "saving a withdrawal address that is the service's own deposit address",
			"withdrawal addresses (/v1/withdraw-addresses) are named but not shown", "POST", "/v1/withdraw-addresses", "/v1/withdraw-addresses",
			jsonObj{"network": "TRON", "address": "TRecipeServiceDepositAddress000000"}),
		injectedRecipe("order_not_cancellable", "cancelling an order past its cancellable point",
			"the contract shows no cancel endpoint (QR payments have none; remittance and withdrawal cancellation are not shown)",
			"POST", "/v1/withdrawals/*", "/v1/withdrawals/{{new_uuid:WITHDRAWAL}}/cancel", nil),
		injectedRecipe("kyc_upload_invalid", "uploading a KYC document of an unsupported file type",
			"KYC uploads (/v1/kyc/sessions) are named but not shown; the hosted screen takes the documents", "POST", "/v1/kyc/sessions", "/v1/kyc/sessions",
			jsonObj{"document_type": "passport", "file_name": "passport.exe"}),
		injectedRecipe("kyc_upload_too_large", "uploading a KYC document over the per-file size limit",
			"KYC uploads (/v1/kyc/sessions) are named but not shown; the hosted screen takes the documents", "POST", "/v1/kyc/sessions", "/v1/kyc/sessions",
			jsonObj{"document_type": "passport", "file_name": "passport.png"}),
		injectedRecipe("card_operation_not_supported", "a card operation the card's product does not support (a limit change on a product whose limits_updatable is false)",
			"no card endpoint the contract shows lists it (lost on a virtual card is state_invalid); card limit changes are not shown",
			"POST", "/v1/cards/*", "/v1/cards/crd_{{new_uuid:CARD}}/limits", jsonObj{"daily_limit": "100.00"}),
	}
	for i := range rs {
		rs[i].Expect = Expect{Status: api.NewErr(rs[i].Code, "").Status, Code: rs[i].Code}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Code < rs[j].Code })
	return rs
}

// quickApplyStep is the nth card application of member recipe-l0 that
// allocates a quick KYC profile (e-mail recipe-<n>@example.com).
func quickApplyStep(n int) Step {
	d := string(rune('0' + n))
	return apiStep("POST", "/v1/cards/applications", "recipe-l0", "{{new_uuid:KEY"+d+"}}",
		jsonObj{"product_id": "cpd_virtual_std", "source_asset": "USDT", "quick_kyc_email": "recipe-" + d + "@example.com"}).want(201)
}
