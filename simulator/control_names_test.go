package simulator_test

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/openapi"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// The control-name table: every control Go method and every control route
// that takes a name (an outcome collection, event type, fault kind, form
// factor, status, scenario, asset, action) or the id of an object (a
// member, card, order, product, endpoint, delivery, challenge, Key) has a
// row giving it a name or id the simulator does not know; every other one
// is listed, with what it takes, in the takes-no-name tables. The two
// together are held to the methods of the grouped fields of Simulator, the
// control routes and actions the simulator registers and the operations of
// the control OpenAPI document: a new control method or route that is in
// neither fails the test.

// goNameRow is a Go control method given an unknown name or id.
type goNameRow struct {
	method   string // "Group.Method", or "Action" for Simulator.Action
	kind     string // the NameError's Kind
	notFound bool   // an unknown id (NotFound) rather than a bad name
	call     func(sim *simulator.Simulator) error
}

// absentRow is a Go read that answers an unknown id as absent (a bool or a
// nil result) rather than with an error.
type absentRow struct {
	method string
	absent func(sim *simulator.Simulator) bool
}

// httpNameRow is a control route given an unknown name or id.
type httpNameRow struct {
	route  string // the operation: "METHOD /_sim/..." as registered or documented
	method string
	path   string
	body   any
	status int    // 400 or 404
	code   string // the envelope code
}

const unknownID = "nonsense-0000"

func goNameRows() []goNameRow {
	// A member that does not exist, and the fixture member for the rows
	// whose unknown name is another argument.
	const nobody, m1 = "nobody-0000", member1
	return []goNameRow{
		{"Outcomes.Set", "outcome collection", false, func(s *simulator.Simulator) error { return s.Outcomes.Set("remittance", simulator.Immediate()) }},
		{"Outcomes.SetObject", "object of an outcome collection", true, func(s *simulator.Simulator) error {
			return s.Outcomes.SetObject("qrp_"+unknownID, simulator.Immediate())
		}},
		{"Events.Emit", "event type", false, func(s *simulator.Simulator) error {
			_, err := s.Events.Emit("card.status.update", "card", "crd_1", m1, "active", 1)
			return err
		}},
		{"Events.EmitExtra", "event type", false, func(s *simulator.Simulator) error {
			_, err := s.Events.EmitExtra("kyc.quick.compensate", "kyc", "kyc_1", m1, "compensated", 1, map[string]any{"compensation_source": "auto"})
			return err
		}},
		{"Faults.Inject", "fault kind", false, func(s *simulator.Simulator) error {
			return s.Faults.Inject(simulator.Fault{Kind: "drop", Path: "/v1/members"})
		}},
		{"Faults.Inject", "fault method", false, func(s *simulator.Simulator) error {
			return s.Faults.Inject(simulator.Fault{Kind: simulator.FaultError, Method: "PSOT", Path: "/v1/members"})
		}},
		{"Members.Create", "member status", false, func(s *simulator.Simulator) error {
			_, err := s.Members.Create(simulator.MemberSeed{ExternalID: "names-new", Status: "activ"})
			return err
		}},
		{"Members.SetStatus", "member", true, func(s *simulator.Simulator) error { return s.Members.SetStatus(nobody, "active") }},
		{"Members.Balance", "member", true, func(s *simulator.Simulator) error { _, _, err := s.Members.Balance(nobody, "USDT"); return err }},
		{"Members.SetStatus", "member status", false, func(s *simulator.Simulator) error { return s.Members.SetStatus(m1, "disabled") }},
		{"Members.SetFundsProtection", "member", true, func(s *simulator.Simulator) error { return s.Members.SetFundsProtection(nobody, true) }},
		{"Merchant.Set", "merchant status", false, func(s *simulator.Simulator) error {
			return s.Merchant.Set(simulator.MerchantSettings{Status: "paused"})
		}},
		{"Merchant.TopUpPrepaid", "asset", false, func(s *simulator.Simulator) error { return s.Merchant.TopUpPrepaid("USDX", "1") }},
		{"Merchant.WithdrawPrepaid", "asset", false, func(s *simulator.Simulator) error { return s.Merchant.WithdrawPrepaid("USDX", "1") }},
		{"Keys.Add", "environment", false, func(s *simulator.Simulator) error {
			_, err := s.Keys.Add("", "", "", simulator.KeySettings{Environment: "staging"})
			return err
		}},
		{"Keys.Set", "key", true, func(s *simulator.Simulator) error { return s.Keys.Set(unknownID, simulator.KeySettings{}) }},
		{"Keys.Sign", "key", true, func(s *simulator.Simulator) error {
			_, err := s.Keys.Sign(unknownID, "POST", "/v1/members", "", nil)
			return err
		}},
		{"StepUp.Complete", "step-up challenge", true, func(s *simulator.Simulator) error { return s.StepUp.Complete(unknownID) }},
		{"QRPay.Complete", "QR payment order", true, func(s *simulator.Simulator) error { return s.QRPay.Complete("qrp_" + unknownID) }},
		{"QRPay.Fail", "QR payment order", true, func(s *simulator.Simulator) error { return s.QRPay.Fail("qrp_" + unknownID) }},
		{"QRPay.Refund", "QR payment order", true, func(s *simulator.Simulator) error { return s.QRPay.Refund("qrp_" + unknownID) }},
		{"QRPay.Timeout", "QR payment order", true, func(s *simulator.Simulator) error { return s.QRPay.Timeout("qrp_" + unknownID) }},
		{"QRPay.SetScenario", "QR scenario", false, func(s *simulator.Simulator) error { return s.QRPay.SetScenario("code-1", "blocked", "timeout_") }},
		{"Cards.ApproveApplication", "card application", true, func(s *simulator.Simulator) error { return s.Cards.ApproveApplication("cap_" + unknownID) }},
		{"Cards.RejectApplication", "card application", true, func(s *simulator.Simulator) error { return s.Cards.RejectApplication("cap_" + unknownID) }},
		{"Cards.Ship", "card", true, func(s *simulator.Simulator) error { return s.Cards.Ship("crd_" + unknownID) }},
		{"Cards.AddTransaction", "card", true, func(s *simulator.Simulator) error {
			_, err := s.Cards.AddTransaction("crd_"+unknownID, simulator.CardTransaction{})
			return err
		}},
		{"Cards.CompleteClose", "card", true, func(s *simulator.Simulator) error { return s.Cards.CompleteClose("crd_" + unknownID) }},
		{"Cards.SetStatus", "card", true, func(s *simulator.Simulator) error { return s.Cards.SetStatus("crd_"+unknownID, "active") }},
		{"Cards.SetUpstreamBalanceReadable", "card", true, func(s *simulator.Simulator) error {
			return s.Cards.SetUpstreamBalanceReadable("crd_"+unknownID, true)
		}},
		{"Cards.UnlockActivation", "card", true, func(s *simulator.Simulator) error { return s.Cards.UnlockActivation("crd_" + unknownID) }},
		{"Cards.Plastic", "card", true, func(s *simulator.Simulator) error {
			_, err := s.Cards.Plastic("crd_" + unknownID)
			return err
		}},
		{"Cards.UpstreamCloseRequests", "card", true, func(s *simulator.Simulator) error {
			_, err := s.Cards.UpstreamCloseRequests("crd_" + unknownID)
			return err
		}},
		{"Cards.CreditTopUp", "card top-up", true, func(s *simulator.Simulator) error { return s.Cards.CreditTopUp("ctp_" + unknownID) }},
		{"Cards.RejectTopUp", "card top-up", true, func(s *simulator.Simulator) error { return s.Cards.RejectTopUp("ctp_" + unknownID) }},
		{"Cards.TimeoutTopUp", "card top-up", true, func(s *simulator.Simulator) error { return s.Cards.TimeoutTopUp("ctp_" + unknownID) }},
		{"Cards.TopUpStatus", "card top-up", true, func(s *simulator.Simulator) error {
			_, err := s.Cards.TopUpStatus("ctp_" + unknownID)
			return err
		}},
		{"Cards.SetLimit", "form factor", false, func(s *simulator.Simulator) error { return s.Cards.SetLimit("virtaul", 3) }},
		{"Cards.SetPenalty", "member", true, func(s *simulator.Simulator) error { return s.Cards.SetPenalty(nobody, true) }},
		{"Cards.SetKYCCountry", "member", true, func(s *simulator.Simulator) error { return s.Cards.SetKYCCountry(nobody, "SG") }},
		{"Cards.AddShippingAddress", "member", true, func(s *simulator.Simulator) error {
			_, err := s.Cards.AddShippingAddress(nobody, "SG", false)
			return err
		}},
		{"Cards.SetProductEnabled", "card product", true, func(s *simulator.Simulator) error {
			return s.Cards.SetProductEnabled("cpd_"+unknownID, true)
		}},
		{"Cards.Funds", "member", true, func(s *simulator.Simulator) error {
			_, _, err := s.Cards.Funds(nobody, "USDT")
			return err
		}},
		{"Cards.SetCloseRefused", "card", true, func(s *simulator.Simulator) error { return s.Cards.SetCloseRefused("crd_"+unknownID, true) }},
		{"Remittances.Dispatch", "remittance", true, func(s *simulator.Simulator) error { return s.Remittances.Dispatch("rmt_" + unknownID) }},
		{"Remittances.Complete", "remittance", true, func(s *simulator.Simulator) error { return s.Remittances.Complete("rmt_"+unknownID, "") }},
		{"Remittances.Fail", "remittance", true, func(s *simulator.Simulator) error { return s.Remittances.Fail("rmt_"+unknownID, "") }},
		{"Remittances.Refund", "remittance", true, func(s *simulator.Simulator) error { return s.Remittances.Refund("rmt_" + unknownID) }},
		{"Remittances.NeedsReconfirm", "remittance", true, func(s *simulator.Simulator) error {
			return s.Remittances.NeedsReconfirm("rmt_" + unknownID)
		}},
		{"Remittances.Advance", "remittance", true, func(s *simulator.Simulator) error {
			_, err := s.Remittances.Advance("rmt_" + unknownID)
			return err
		}},
		{"KYC.Update", "member", true, func(s *simulator.Simulator) error { return s.KYC.Update(nobody) }},
		{"KYC.Approve", "member", true, func(s *simulator.Simulator) error { return s.KYC.Approve(nobody, 1) }},
		{"KYC.Reject", "member", true, func(s *simulator.Simulator) error { return s.KYC.Reject(nobody) }},
		{"KYC.CompleteSession", "KYC session", true, func(s *simulator.Simulator) error { return s.KYC.CompleteSession("kyc_" + unknownID) }},
		{"KYC.CompensateQuickBinding", "quick KYC binding", true, func(s *simulator.Simulator) error {
			return s.KYC.CompensateQuickBinding(unknownID, "", "")
		}},
		{"Webhooks.AddEndpoint", "event type", false, func(s *simulator.Simulator) error {
			_, _, err := s.Webhooks.AddEndpoint("http://127.0.0.1:9/hook", "qrpay.order.completed", "qrpay.order.complete")
			return err
		}},
		{"Webhooks.AddEndpointConfig", "event type", false, func(s *simulator.Simulator) error {
			_, _, err := s.Webhooks.AddEndpointConfig(simulator.WebhookEndpointConfig{URL: "http://127.0.0.1:9/hook", Events: []string{"card.created"}})
			return err
		}},
		{"Webhooks.RemoveEndpoint", "webhook endpoint", true, func(s *simulator.Simulator) error { return s.Webhooks.RemoveEndpoint("whe_" + unknownID) }},
		{"Webhooks.DisableEndpoint", "webhook endpoint", true, func(s *simulator.Simulator) error { return s.Webhooks.DisableEndpoint("whe_" + unknownID) }},
		{"Webhooks.EnableEndpoint", "webhook endpoint", true, func(s *simulator.Simulator) error { return s.Webhooks.EnableEndpoint("whe_" + unknownID) }},
		{"Webhooks.Redeliver", "webhook delivery", true, func(s *simulator.Simulator) error { return s.Webhooks.Redeliver("whd_" + unknownID) }},
		{"Requests.StartInProgress", "method", false, func(s *simulator.Simulator) error {
			return s.Requests.StartInProgress("FETCH", "/v1/members", "00000000-0000-4000-8000-000000000001", nil, time.Minute)
		}},
		{"Requests.StartInProgress", "business endpoint", false, func(s *simulator.Simulator) error {
			return s.Requests.StartInProgress("POST", "/v1/depostis", "00000000-0000-4000-8000-000000000001", nil, time.Minute)
		}},
		{"Action", "control action", false, func(s *simulator.Simulator) error {
			_, err := s.Action("cards/shipp", "crd_1", nil)
			return err
		}},
		{"Action", "object", true, func(s *simulator.Simulator) error {
			_, err := s.Action("cards/ship", "crd_"+unknownID, nil)
			return err
		}},
	}
}

// absentRows are the Go reads that answer an unknown id as absent.
var absentRows = []absentRow{
	{"Members.Get", func(s *simulator.Simulator) bool { _, ok := s.Members.Get("nobody-0000"); return !ok }},
	{"QRPay.Trace", func(s *simulator.Simulator) bool { return s.QRPay.Trace("qrp_"+unknownID) == nil }},
}

// goTakesNoName are the Go control methods that take no name or id, or
// take one the service itself accepts unchecked, each with why.
var goTakesNoName = map[string]string{
	"Clock.Advance":                   "a duration",
	"Clock.Now":                       "nothing",
	"Clock.Sleep":                     "a duration",
	"Clock.SleepFunc":                 "a duration",
	"Events.List":                     "nothing",
	"Faults.Clear":                    "nothing",
	"Faults.List":                     "nothing",
	"Requests.List":                   "nothing",
	"Requests.Reset":                  "nothing",
	"Merchant.PrepaidBalance":         "an asset, read: an asset without a prepaid balance is zero",
	"Merchant.SetPOBOSubaccount":      "a bool",
	"Merchant.SetWriteQuota":          "a number",
	"QRPay.SetEnabled":                "a bool",
	"QRPay.SetMerchantFeeRate":        "a number",
	"QRPay.SetFiatRate":               "a currency code: any ISO 4217 code gets a rate (a new acquiring currency)",
	"QRPay.UpstreamCalls":             "nothing",
	"Cards.SetBINAuthorizations":      "BINs: a BIN no product has hides every product, as the service's filter does",
	"Cards.TimeoutNextTopUps":         "a number",
	"KYC.SetQuick":                    "a bool and a number",
	"Webhooks.Deliveries":             "nothing",
	"Webhooks.Endpoints":              "nothing",
	"Webhooks.Flush":                  "a context",
	"Webhooks.FlushExpectingFailures": "a context",
	"Webhooks.Handler":                "a handler function",
	"Webhooks.SetAutoDeliver":         "a bool",
	"Actions":                         "nothing",
}

func httpNameRows() []httpNameRow {
	const nobody = "nobody-0000"
	post := http.MethodPost
	rows := []httpNameRow{
		{"GET /_sim/members/{id}", "GET", "/_sim/members/" + nobody, nil, 404, "not_found"},
		{"POST /_sim/members", post, "/_sim/members", map[string]any{"external_member_id": "names-new", "status": "activ"}, 400, "invalid_request"},
		{"POST /_sim/merchant", post, "/_sim/merchant", map[string]any{"status": "paused"}, 400, "invalid_request"},
		{"POST /_sim/keys", post, "/_sim/keys", map[string]any{"environment": "staging"}, 400, "invalid_request"},
		{"GET /_sim/keys/{client_id}", "GET", "/_sim/keys/" + unknownID, nil, 404, "not_found"},
		{"POST /_sim/keys/{client_id}", post, "/_sim/keys/" + unknownID, map[string]any{}, 404, "not_found"},
		{"POST /_sim/keys/{client_id}/sign", post, "/_sim/keys/" + unknownID + "/sign", map[string]any{"method": "POST", "path": "/v1/members"}, 404, "not_found"},
		{"POST /_sim/faults", post, "/_sim/faults", map[string]any{"kind": "drop", "path": "/v1/members"}, 400, "invalid_request"},
		{"POST /_sim/faults", post, "/_sim/faults", map[string]any{"kind": "error", "method": "PSOT", "path": "/v1/members"}, 400, "invalid_request"},
		{"POST /_sim/outcomes", post, "/_sim/outcomes", map[string]any{"collection": "nonsense/things", "mode": "immediate"}, 400, "invalid_request"},
		{"POST /_sim/outcomes", post, "/_sim/outcomes", map[string]any{"collection": "remittance", "mode": "immediate"}, 400, "invalid_request"},
		{"POST /_sim/outcomes", post, "/_sim/outcomes", map[string]any{"object_id": "qrp_" + unknownID, "mode": "immediate"}, 404, "not_found"},
		{"GET /_sim/step-up/{challenge_id}", "GET", "/_sim/step-up/" + unknownID, nil, 404, "not_found"},
		{"POST /_sim/step-up/{challenge_id}/complete", post, "/_sim/step-up/" + unknownID + "/complete", nil, 404, "not_found"},
		{"POST /_sim/cards/limits", post, "/_sim/cards/limits", map[string]any{"form_factor": "virtaul", "limit": 3}, 400, "invalid_request"},
		{"POST /_sim/cards/products/{id}/enabled", post, "/_sim/cards/products/cpd_" + unknownID + "/enabled", map[string]any{"enabled": true}, 404, "not_found"},
		{"POST /_sim/members/{id}/card_penalty", post, "/_sim/members/" + nobody + "/card_penalty", map[string]any{"outstanding": true}, 404, "not_found"},
		{"POST /_sim/members/{id}/kyc_country", post, "/_sim/members/" + nobody + "/kyc_country", map[string]any{"country": "SG"}, 404, "not_found"},
		{"POST /_sim/members/{id}/shipping_addresses", post, "/_sim/members/" + nobody + "/shipping_addresses", map[string]any{"country": "SG"}, 404, "not_found"},
		{"POST /_sim/members/{id}/funds_protection", post, "/_sim/members/" + nobody + "/funds_protection", map[string]any{"enabled": true}, 404, "not_found"},
		{"POST /_sim/cards/{id}/refuse_close", post, "/_sim/cards/crd_" + unknownID + "/refuse_close", map[string]any{"refuse": true}, 404, "not_found"},
		{"GET /_sim/cards/{id}", "GET", "/_sim/cards/crd_" + unknownID, nil, 404, "not_found"},
		{"GET /_sim/cards/topups/{id}", "GET", "/_sim/cards/topups/ctp_" + unknownID, nil, 404, "not_found"},
		{"GET /_sim/cards/secure-sessions/{id}", "GET", "/_sim/cards/secure-sessions/" + unknownID, nil, 404, "not_found"},
		{"POST /_sim/merchant/prepaid/withdraw", post, "/_sim/merchant/prepaid/withdraw", map[string]any{"asset": "USDX", "amount": "1"}, 400, "invalid_request"},
		{"POST /_sim/qrpay/scenarios", post, "/_sim/qrpay/scenarios", map[string]any{"code_value": "code-1", "scenarios": []string{"timeout_"}}, 400, "invalid_request"},
		{"GET /_sim/qrpay/orders/{id}/trace", "GET", "/_sim/qrpay/orders/qrp_" + unknownID + "/trace", nil, 404, "not_found"},
		{"POST /_sim/requests/in_progress", post, "/_sim/requests/in_progress", map[string]any{"method": "FETCH", "path": "/v1/members", "idempotency_key": "00000000-0000-4000-8000-000000000001"}, 400, "invalid_request"},
		{"POST /_sim/requests/in_progress", post, "/_sim/requests/in_progress", map[string]any{"method": "POST", "path": "/v1/depostis", "idempotency_key": "00000000-0000-4000-8000-000000000001"}, 400, "invalid_request"},
		{"POST /_sim/webhooks/endpoints", post, "/_sim/webhooks/endpoints", map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"card.created"}}, 400, "invalid_request"},
		{"DELETE /_sim/webhooks/endpoints/{id}", "DELETE", "/_sim/webhooks/endpoints/whe_" + unknownID, nil, 404, "not_found"},
		{"POST /_sim/webhooks/endpoints/{id}/disable", post, "/_sim/webhooks/endpoints/whe_" + unknownID + "/disable", nil, 404, "not_found"},
		{"POST /_sim/webhooks/endpoints/{id}/enable", post, "/_sim/webhooks/endpoints/whe_" + unknownID + "/enable", nil, 404, "not_found"},
		{"POST /_sim/webhooks/events", post, "/_sim/webhooks/events", map[string]any{"event_type": "card.status.update", "object": "card", "id": "crd_1", "external_member_id": member1, "status": "active", "status_version": 1}, 400, "invalid_request"},
		{"POST /_sim/webhooks/deliveries/{id}/redeliver", post, "/_sim/webhooks/deliveries/whd_" + unknownID + "/redeliver", nil, 404, "not_found"},
		{"GET /_sim/recording/steps/{seq}", "GET", "/_sim/recording/steps/999999", nil, 404, "not_found"},
		{"POST /_sim/{rest...}", post, "/_sim/cards/crd_1/shipp", nil, 404, "not_found"},
		{"GET /_sim/ui/{file}", "GET", "/_sim/ui/app.jss", nil, 404, "not_found"},
		{"POST /_sim/merchant/prepaid/topup", post, "/_sim/merchant/prepaid/topup", map[string]any{"asset": "USDX", "amount": "1"}, 400, "invalid_request"},
		{"POST /_sim/members/{id}/status", post, "/_sim/members/" + nobody + "/status", map[string]any{"status": "active"}, 404, "not_found"},
		{"POST /_sim/members/{id}/status", post, "/_sim/members/" + member1 + "/status", map[string]any{"status": "disabled"}, 400, "invalid_request"},
	}
	// Every object action, on an object that does not exist.
	actionBodies := map[string]any{
		"cards/transactions":     map[string]any{"kind": "auth", "status": "succeed", "direction": "debit", "amount": "1", "bill_amount": "1"},
		"cards/set_status":       map[string]any{"status": "active"},
		"cards/upstream_balance": map[string]any{"readable": true},
		"kyc/approve":            map[string]any{"level": 1},
	}
	prefixes := map[string]string{"cards/applications": "cap_", "cards/topups": "ctp_", "cards": "crd_", "qrpay/orders": "qrp_",
		"remittances": "rmt_", "kyc/sessions": "kyc_", "kyc": "", "kyc/quick": "", "members": ""}
	for _, key := range []string{
		"cards/applications/approve", "cards/applications/reject", "cards/close_complete", "cards/plastic", "cards/set_status",
		"cards/ship", "cards/topups/credit", "cards/topups/reject", "cards/topups/timeout", "cards/transactions", "cards/unlock",
		"cards/upstream_balance", "kyc/approve", "kyc/quick/compensate", "kyc/reject", "kyc/sessions/complete", "kyc/supplement",
		"kyc/update", "qrpay/orders/complete", "qrpay/orders/fail", "qrpay/orders/refund", "qrpay/orders/timeout",
		"remittances/advance", "remittances/complete", "remittances/dispatch", "remittances/fail", "remittances/needs_reconfirm",
		"remittances/refund",
	} {
		i := strings.LastIndex(key, "/")
		coll, verb := key[:i], key[i+1:]
		id := prefixes[coll] + "nobody-0000"
		rows = append(rows, httpNameRow{"POST /_sim/" + coll + "/{id}/" + verb, post, "/_sim/" + coll + "/" + id + "/" + verb, actionBodies[key], 404, "not_found"})
	}
	return rows
}

// httpTakesNoName are the control operations that take no name or id (or
// one accepted unchecked, with why).
var httpTakesNoName = map[string]string{
	"GET /_sim/credentials":                    "nothing",
	"GET /_sim/stats":                          "nothing",
	"GET /_sim/clock":                          "nothing",
	"POST /_sim/clock":                         "a duration",
	"GET /_sim/members":                        "nothing",
	"GET /_sim/merchant":                       "nothing",
	"GET /_sim/keys":                           "nothing",
	"GET /_sim/faults":                         "nothing",
	"DELETE /_sim/faults":                      "nothing",
	"GET /_sim/requests":                       "a number (limit)",
	"DELETE /_sim/requests":                    "nothing",
	"GET /_sim/events":                         "nothing",
	"GET /_sim/ledger":                         "nothing",
	"POST /_sim/cards/bin_authorizations":      "BINs: a BIN no product has hides every product",
	"POST /_sim/cards/topups/upstream_timeout": "a number",
	"POST /_sim/kyc/quick":                     "a bool and a number",
	"POST /_sim/merchant/pobo_subaccount":      "a bool",
	"POST /_sim/qrpay/line":                    "a bool",
	"POST /_sim/qrpay/fiat_rates":              "a currency code: any ISO 4217 code gets a rate",
	"GET /_sim/qrpay/upstream":                 "nothing",
	"POST /_sim/merchant/write_quota":          "a number",
	"GET /_sim/recipes":                        "nothing",
	"GET /_sim/invariants":                     "nothing",
	"GET /_sim/webhooks/endpoints":             "nothing",
	"GET /_sim/webhooks/deliveries":            "nothing",
	"POST /_sim/webhooks/auto":                 "a bool",
	"POST /_sim/webhooks/flush":                "nothing",
	"GET /_sim/state":                          "nothing",
	"GET /_sim/digest":                         "nothing",
	"GET /_sim/recording":                      "nothing",
	"GET /_sim/recording/steps":                "nothing",
	"GET /_sim/openapi.yaml":                   "nothing",
	"GET /_sim/openapi-sim.yaml":               "nothing",
	"GET /_sim/ui":                             "nothing (the dashboard)",
	"GET /_sim/ui/":                            "nothing (the dashboard)",
}

// TestControlNamesAreChecked runs every row of the control-name table on
// a simulator of its own: the Go method answers a *NameError of the row's
// kind, the route its status and envelope code with a message, and the
// state digest is what it was before.
func TestControlNamesAreChecked(t *testing.T) {
	t.Parallel()
	goRows, httpRows := goNameRows(), httpNameRows()
	for _, row := range goRows {
		t.Run("go "+row.method+" "+row.kind, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			before := mustDigest(t, sim)
			err := row.call(sim)
			var ne *simulator.NameError
			if !errors.As(err, &ne) {
				t.Fatalf("%s with an unknown %s: %T %v, want a *simulator.NameError", row.method, row.kind, err, err)
			}
			if ne.Kind != row.kind || ne.NotFound != row.notFound || ne.Name == "" {
				t.Errorf("%s: NameError{Kind: %q, Name: %q, NotFound: %v}, want kind %q, NotFound %v", row.method, ne.Kind, ne.Name, ne.NotFound, row.kind, row.notFound)
			}
			if !row.notFound && len(ne.Valid) == 0 {
				t.Errorf("%s: a bad %s names no valid choices: %v", row.method, row.kind, err)
			}
			if !strings.Contains(err.Error(), ne.Name) {
				t.Errorf("%s: the message %q does not name %q", row.method, err, ne.Name)
			}
			if after := mustDigest(t, sim); after != before {
				t.Errorf("%s with an unknown %s changed the state (digest %s -> %s)", row.method, row.kind, before, after)
			}
		})
	}
	for _, row := range absentRows {
		t.Run("go "+row.method+" absent", func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			before := mustDigest(t, sim)
			if !row.absent(sim) {
				t.Errorf("%s of an unknown id is not absent", row.method)
			}
			if after := mustDigest(t, sim); after != before {
				t.Errorf("%s changed the state", row.method)
			}
		})
	}
	for _, row := range httpRows {
		t.Run("http "+row.route, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			before := mustDigest(t, sim)
			r := c.control(row.method, row.path, row.body)
			wantCode(t, r, row.status, row.code)
			if after := mustDigest(t, sim); after != before {
				t.Errorf("%s %s changed the state (digest %s -> %s)", row.method, row.path, before, after)
			}
		})
	}
	t.Logf("control-name table: %d Go rows, %d absent-read rows, %d HTTP rows; takes no name: %d Go methods, %d routes",
		len(goRows), len(absentRows), len(httpRows), len(goTakesNoName), len(httpTakesNoName))
}

// TestNewNamesListTheirChoices: a bad name checked by this build (the
// unknown outcome collection of the issue, an event type, a form factor)
// answers a message with every valid choice, in Go and over HTTP.
func TestNewNamesListTheirChoices(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	err := sim.Outcomes.Set("nonsense/things", simulator.Immediate())
	var ne *simulator.NameError
	if !errors.As(err, &ne) {
		t.Fatalf("Outcomes.Set: %v", err)
	}
	want := []string{string(simulator.CollectionCardApplications), string(simulator.CollectionCardClosures),
		string(simulator.CollectionCardTopups), string(simulator.CollectionQROrders), string(simulator.CollectionRemittances)}
	if diff := cmp.Diff(want, ne.Valid); diff != "" {
		t.Errorf("valid collections (-want +got):\n%s", diff)
	}
	r := c.control("POST", "/_sim/outcomes", map[string]any{"collection": "nonsense/things", "mode": "immediate"})
	wantCode(t, r, 400, "invalid_request")
	for _, v := range want {
		if msg, _ := r.body["message"].(string); !strings.Contains(msg, v) {
			t.Errorf("message %q does not name %s", msg, v)
		}
	}
	// The valid names keep working, with or without slashes over HTTP.
	for _, v := range want {
		if err := sim.Outcomes.Set(simulator.OutcomeCollection(v), simulator.Manual()); err != nil {
			t.Errorf("Outcomes.Set(%s): %v", v, err)
		}
		c.mustControl("POST", "/_sim/outcomes", map[string]any{"collection": "/" + v + "/", "mode": "manual"})
	}
	r = c.control("POST", "/_sim/webhooks/events", map[string]any{"event_type": "nonsense.type", "object": "card", "id": "crd_1"})
	wantCode(t, r, 400, "invalid_request")
	if msg, _ := r.body["message"].(string); !strings.Contains(msg, "card.status.updated") {
		t.Errorf("message %q does not list the event types", msg)
	}
	if err := sim.Cards.SetLimit("virtaul", 1); err == nil || !strings.Contains(err.Error(), "physical, virtual") {
		t.Errorf("Cards.SetLimit: %v", err)
	}
}

// TestControlNameTableIsComplete holds the two tables to the simulator:
// every method of every grouped field of Simulator (and the Simulator's
// own control methods Action and Actions), every control route and object
// action registered, and every operation of the control OpenAPI document is
// in exactly one of them.
func TestControlNameTableIsComplete(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)

	// Go methods.
	withName := map[string]bool{}
	for _, r := range goNameRows() {
		withName[r.method] = true
	}
	for _, r := range absentRows {
		withName[r.method] = true
	}
	var all []string
	st := reflect.TypeOf(sim).Elem()
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer {
			continue
		}
		for j := 0; j < f.Type.NumMethod(); j++ {
			all = append(all, f.Name+"."+f.Type.Method(j).Name)
		}
	}
	all = append(all, "Action", "Actions")
	seen := map[string]bool{}
	for _, m := range all {
		seen[m] = true
		switch {
		case withName[m] && goTakesNoName[m] != "":
			t.Errorf("sim.%s is in both tables", m)
		case !withName[m] && goTakesNoName[m] == "":
			t.Errorf("sim.%s is in neither table: give it a row with an unknown name, or list it as taking none", m)
		}
	}
	for m := range withName {
		if !seen[m] {
			t.Errorf("the table has a row for sim.%s, which does not exist", m)
		}
	}
	for m := range goTakesNoName {
		if !seen[m] {
			t.Errorf("goTakesNoName lists sim.%s, which does not exist", m)
		}
	}

	// Routes: registered patterns, object actions, documented operations.
	covered, noName := map[string]bool{}, map[string]bool{}
	for _, r := range httpNameRows() {
		covered[normalize(r.route)] = true
	}
	for op := range httpTakesNoName {
		noName[normalize(op)] = true
	}
	var ops []string
	ops = append(ops, simulator.ControlRoutes(sim)...)
	for _, key := range sim.Actions() {
		i := strings.LastIndex(key, "/")
		withID := "POST /_sim/" + key[:i] + "/{}/" + key[i+1:]
		if covered[withID] {
			ops = append(ops, withID)
		} else {
			ops = append(ops, "POST /_sim/"+key) // an action that takes no id
		}
	}
	ops = append(ops, documentedControlOperations(t)...)
	for _, op := range ops {
		n := normalize(op)
		if covered[n] && noName[n] {
			t.Errorf("%s is in both tables", op)
		}
		if !covered[n] && !noName[n] && !documentedAction(op) {
			t.Errorf("control operation %s is in neither table: give it a row with an unknown name or id, or list it as taking none", op)
		}
	}
	sort.Strings(ops)
	t.Logf("%d Go methods, %d control operations (routes, actions, documented operations) checked", len(all), len(ops))
}

// documentedAction reports a documented operation that is the generic
// form of object actions (each action has its own row).
func documentedAction(op string) bool {
	return regexp.MustCompile(`^POST /_sim/[a-z/]+/\{[a-z_]+\}/\{action\}$`).MatchString(op)
}

// documentedControlOperations lists the operations of the control OpenAPI
// document as "METHOD /_sim/...".
func documentedControlOperations(t *testing.T) []string {
	t.Helper()
	var out []string
	path := ""
	pathLine := regexp.MustCompile(`^  (/_sim[^:]*):\s*$`)
	opLine := regexp.MustCompile(`^    (get|post|delete|put|patch|head):\s*$`)
	for _, line := range strings.Split(string(openapi.Control()), "\n") {
		if m := pathLine.FindStringSubmatch(line); m != nil {
			path = m[1]
			continue
		}
		if m := opLine.FindStringSubmatch(line); m != nil && path != "" {
			out = append(out, strings.ToUpper(m[1])+" "+path)
		}
	}
	if len(out) < 40 {
		t.Fatalf("found %d operations in the control OpenAPI document", len(out))
	}
	return out
}

// TestControlDocumentListsTheNames holds the names the control OpenAPI
// document lists to the ones the simulator accepts: the event types of
// SimEventType, and the outcome collections of OutcomeRequest.
func TestControlDocumentListsTheNames(t *testing.T) {
	t.Parallel()
	doc := string(openapi.Control())
	start := strings.Index(doc, "\n    SimEventType:\n")
	end := strings.Index(doc, "\n    EmitEventRequest:\n")
	if start < 0 || end < start {
		t.Fatal("no SimEventType schema before EmitEventRequest in the control document")
	}
	var documented []string
	for _, line := range strings.Split(doc[start:end], "\n") {
		if v, ok := strings.CutPrefix(line, "        - "); ok {
			documented = append(documented, v)
		}
	}
	var want []string
	for _, e := range webhooks.EventTypes() {
		want = append(want, string(e))
	}
	sort.Strings(documented)
	sort.Strings(want)
	if diff := cmp.Diff(want, documented); diff != "" {
		t.Errorf("SimEventType enum (-event types +documented):\n%s", diff)
	}

	m := regexp.MustCompile(`pattern: \^/\*\(([a-z/|]+)\)/\*\$`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("no collection pattern in the control document")
	}
	got := strings.Split(m[1], "|")
	sort.Strings(got)
	err := simtest.Start(t).Outcomes.Set("", simulator.Manual())
	var ne *simulator.NameError
	if !errors.As(err, &ne) {
		t.Fatalf("Outcomes.Set(\"\"): %v", err)
	}
	if diff := cmp.Diff(ne.Valid, got); diff != "" {
		t.Errorf("collections (-simulator +document):\n%s", diff)
	}
}

// TestInProgressTakesEveryWriteEndpoint: the endpoint check of
// StartInProgress refuses only paths no endpoint serves: every write
// endpoint of the simulator (path parameters filled in) is accepted.
func TestInProgressTakesEveryWriteEndpoint(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	param := regexp.MustCompile(`\{[^}]*\}`)
	n := 0
	for i, e := range simulator.Endpoints(sim) {
		method, path := e.Method, e.Path
		if method == http.MethodGet || method == http.MethodHead {
			continue
		}
		path = strings.TrimSuffix(param.ReplaceAllString(path, "x1"), "x1...")
		key := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		if err := sim.Requests.StartInProgress(method, path, key, nil, time.Minute); err != nil {
			t.Errorf("StartInProgress(%s %s): %v", method, path, err)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("only %d write endpoints", n)
	}
	t.Logf("%d write endpoints accepted", n)
}

// TestControlNamesOnExistingObjects: a bad name given with an object that
// exists (a card status for a card, a compensation source for a quick KYC
// binding) is a *NameError of the name, over HTTP 400 invalid_request, and
// changes nothing.
func TestControlNamesOnExistingObjects(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	e := &knobEnv{t: t, sim: sim, c: c, tok: c.token()}
	card := e.card()
	r := e.post("/v1/kyc/quick", member1, map[string]any{})
	wantStatus(t, r, 201)
	binding := r.body["id"].(string)
	before := mustDigest(t, sim)

	for _, row := range []struct {
		kind string
		call func() error
	}{
		{"card status", func() error { return sim.Cards.SetStatus(card, "activated") }},
		{"compensation source", func() error { return sim.KYC.CompensateQuickBinding(binding, "operator", "") }},
	} {
		err := row.call()
		var ne *simulator.NameError
		if !errors.As(err, &ne) || ne.Kind != row.kind || ne.NotFound || len(ne.Valid) == 0 {
			t.Errorf("%s: %T %v, want a *NameError of kind %q with the valid choices", row.kind, err, err, row.kind)
		}
	}
	wantCode(t, c.control("POST", "/_sim/cards/"+card+"/set_status", map[string]any{"status": "activated"}), 400, "invalid_request")
	wantCode(t, c.control("POST", "/_sim/kyc/quick/"+binding+"/compensate", map[string]any{"compensation_source": "operator"}), 400, "invalid_request")
	if after := mustDigest(t, sim); after != before {
		t.Errorf("refused names changed the state (digest %s -> %s)", before, after)
	}
}
