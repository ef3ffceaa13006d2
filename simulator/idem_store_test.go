package simulator_test

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// keyedSend sends a signed keyed POST as w.post does, then lets mod change
// the headers (and re-sign with the timestamp and nonce it sets, if any).
func (w *world) keyedSend(target, member, key, body string, mod func(h http.Header)) result {
	w.t.Helper()
	h := authed(w.tok)
	if member != "" {
		h.Set("X-On-Behalf-Of", member)
	}
	h.Set("X-Idempotency-Key", key)
	if body != "" {
		h.Set("Content-Type", "application/json")
	}
	w.c.signed(h, http.MethodPost, target, []byte(body))
	if mod != nil {
		mod(h)
	}
	return w.c.send(http.MethodPost, target, []byte(body), h)
}

// member creates a member with the given KYC level and USDT balance.
func (w *world) member(ext string, kyc int, usdt string) string {
	w.t.Helper()
	bal := map[string]string{}
	if usdt != "" {
		bal["USDT"] = usdt
	}
	if _, err := w.sim.Members.Create(simulator.MemberSeed{ExternalID: ext, KYCLevel: kyc, Balances: bal}); err != nil {
		w.t.Fatal(err)
	}
	return ext
}

// physicalCard applies for a physical card for member1, approves and ships
// it, and returns its id and printed expiry.
func (w *world) physicalCard() (id, expiry string) {
	w.t.Helper()
	app := w.post("/v1/cards/applications", member1, `{"product_id":"cpd_physical_std","source_asset":"USDT","form_factor":"physical"}`)
	wantStatus(w.t, app, http.StatusCreated)
	appID, _ := app.body["id"].(string)
	id, _ = w.c.mustControl("POST", "/_sim/cards/applications/"+appID+"/approve", nil).body["card_id"].(string)
	w.c.mustControl("POST", "/_sim/cards/"+id+"/ship", nil)
	expiry, _ = w.c.mustControl("POST", "/_sim/cards/"+id+"/plastic", nil).body["expiry"].(string)
	return id, expiry
}

// stepUp completes the step-up a step_up_required answer asks for and
// returns its challenge id.
func (w *world) stepUp(r result) string {
	w.t.Helper()
	wantCode(w.t, r, 400, "step_up_required")
	ch, _ := r.body["challenge_id"].(string)
	w.c.mustControl("POST", "/_sim/step-up/"+ch+"/complete", nil)
	return ch
}

func withStepUp(ch string) func(http.Header) { return func(h http.Header) { h.Set("X-Step-Up", ch) } }

// storeCase produces code on a keyed endpoint with key, then sends the same
// key and body again (after fixing the cause, where there is one).
type storeCase struct {
	code     string
	status   int
	stored   bool
	endpoint string
	// run returns the first answer and the second one, same key and body.
	run func(t *testing.T, w *world, key string) (first, again result)
	// fresh, for codes not stored, checks the second answer came from a
	// new execution (its status).
	fresh int
}

const depBody = `{"asset":"USDT","amount":"10","reference":"store-1"}`

func storeCases() []storeCase {
	deposit := func(body string) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			return w.postKey("/v1/deposits", member1, key, body), w.postKey("/v1/deposits", member1, key, body)
		}
	}
	// fixedDeposit sends depBody refused by mod, then cleanly.
	fixedDeposit := func(mod func(w *world) func(http.Header)) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			first := w.keyedSend("/v1/deposits", member1, key, depBody, mod(w))
			return first, w.postKey("/v1/deposits", member1, key, depBody)
		}
	}
	// toggled sends depBody with the simulator changed by set, then after
	// undo.
	toggled := func(set, undo func(w *world) error) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			if err := set(w); err != nil {
				t.Fatal(err)
			}
			first := w.postKey("/v1/deposits", member1, key, depBody)
			if err := undo(w); err != nil {
				t.Fatal(err)
			}
			return first, w.postKey("/v1/deposits", member1, key, depBody)
		}
	}
	injected := func(code string) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			if err := w.sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultError, Code: code}); err != nil {
				t.Fatal(err)
			}
			return w.postKey("/v1/deposits", member1, key, depBody), w.postKey("/v1/deposits", member1, key, depBody)
		}
	}
	card := func(path, body string) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			p := "/v1/cards/" + w.cardID + path
			return w.postKey(p, member1, key, body), w.postKey(p, member1, key, body)
		}
	}
	remit := func(member func(w *world) string, payee func(t *testing.T, w *world) string, amount string) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			m := member(w)
			body := `{"payee_id":"` + payee(t, w) + `","payout_amount":"` + amount + `","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"}`
			return w.postKey("/v1/remittances", m, key, body), w.postKey("/v1/remittances", m, key, body)
		}
	}
	payeeOf := func(currency, member string) func(t *testing.T, w *world) string {
		return func(t *testing.T, w *world) string { return w.payee(member, currency) }
	}
	fixture := func(*world) string { return member1 }
	apply := func(member func(w *world) string, body string) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			m := member(w)
			return w.postKey("/v1/cards/applications", m, key, body), w.postKey("/v1/cards/applications", m, key, body)
		}
	}
	quick := func(prep func(w *world) string) func(t *testing.T, w *world, key string) (result, result) {
		return func(t *testing.T, w *world, key string) (result, result) {
			m := prep(w)
			return w.postKey("/v1/kyc/quick", m, key, `{}`), w.postKey("/v1/kyc/quick", m, key, `{}`)
		}
	}

	return []storeCase{
		// The gateway's own refusals: no record exists yet.
		{code: "invalid_token", status: 401, endpoint: "POST /v1/deposits", fresh: 201,
			run: fixedDeposit(func(*world) func(http.Header) { return func(h http.Header) { h.Set("X-Auth-Token", "Bearer nope") } })},
		{code: "ip_not_allowed", status: 403, endpoint: "POST /v1/deposits", fresh: 201, run: toggled(
			func(w *world) error {
				return w.sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{IPAllowlist: []string{"10.0.0.0/8"}})
			},
			func(w *world) error {
				return w.sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{IPAllowlist: []string{}})
			})},
		{code: "environment_mismatch", status: 400, endpoint: "POST /v1/deposits", fresh: 201, run: toggled(
			func(w *world) error {
				return w.sim.Merchant.Set(simulator.MerchantSettings{Environment: simulator.Production})
			},
			func(w *world) error {
				return w.sim.Merchant.Set(simulator.MerchantSettings{Environment: simulator.Sandbox})
			})},
		{code: "merchant_disabled", status: 403, endpoint: "POST /v1/deposits", fresh: 201, run: toggled(
			func(w *world) error {
				return w.sim.Merchant.Set(simulator.MerchantSettings{Status: simulator.MerchantSuspended})
			},
			func(w *world) error {
				return w.sim.Merchant.Set(simulator.MerchantSettings{Status: simulator.MerchantActive})
			})},
		{code: "insufficient_scope", status: 403, endpoint: "POST /v1/deposits", fresh: 201,
			run: func(t *testing.T, w *world, key string) (result, result) {
				creds, err := w.sim.Keys.Add("narrow", "narrow-secret", "", simulator.KeySettings{Scopes: []string{"members:read"}})
				if err != nil {
					t.Fatal(err)
				}
				tok, _ := w.c.exchangeToken(creds.ClientID, creds.APIKey).body["auth_token"].(string)
				first := w.keyedSend("/v1/deposits", member1, key, depBody, func(h http.Header) {
					h.Set("X-Auth-Token", "Bearer "+tok)
					ts, nonce := h.Get("X-Timestamp"), w.c.nextNonce()
					h.Set("X-Nonce", nonce)
					h.Set("X-Signature", sign(creds.SigningKey, "POST", "/v1/deposits", ts, nonce, []byte(depBody)))
				})
				return first, w.postKey("/v1/deposits", member1, key, depBody)
			}},
		{code: "insufficient_scope (deposits precheck, merchant_hosted)", status: 403, endpoint: "POST /v1/deposits", fresh: 201, run: toggled(
			func(w *world) error {
				return w.sim.Merchant.Set(simulator.MerchantSettings{Model: simulator.MerchantHosted})
			},
			func(w *world) error {
				return w.sim.Merchant.Set(simulator.MerchantSettings{Model: simulator.PlatformHosted})
			})},
		{code: "invalid_request (body over 1 MiB)", status: 400, endpoint: "POST /v1/deposits", fresh: 400,
			run: func(t *testing.T, w *world, key string) (result, result) {
				big := `{"asset":"USDT","amount":"10","reference":"store-1","pad":"` + strings.Repeat("x", 1<<20) + `"}`
				first := w.postKey("/v1/deposits", member1, key, big)
				// The same key with the same body is refused again, never
				// replayed: nothing is stored for it.
				return first, w.postKey("/v1/deposits", member1, key, big)
			}},
		{code: "invalid_signature", status: 401, endpoint: "POST /v1/deposits", fresh: 201,
			run: fixedDeposit(func(*world) func(http.Header) {
				return func(h http.Header) { h.Set("X-Signature", "AAAA") }
			})},
		{code: "timestamp_out_of_range", status: 401, endpoint: "POST /v1/deposits", fresh: 201,
			run: fixedDeposit(func(w *world) func(http.Header) {
				return func(h http.Header) { h.Set("X-Timestamp", strconv.FormatInt(w.sim.Clock.Now().Unix()-1000, 10)) }
			})},
		{code: "nonce_reused", status: 401, endpoint: "POST /v1/deposits", fresh: 201,
			run: func(t *testing.T, w *world, key string) (result, result) {
				used := w.keyedSend("/v1/kyc/profile-sessions", member1, w.key(), `{}`, nil)
				wantStatus(t, used, http.StatusCreated)
				nonce := "nonce-" + strconv.FormatInt(w.c.nonce.Load(), 10) // the profile session's
				first := w.keyedSend("/v1/deposits", member1, key, depBody, func(h http.Header) {
					ts := h.Get("X-Timestamp")
					h.Set("X-Nonce", nonce)
					h.Set("X-Signature", sign(w.c.creds.SigningKey, "POST", "/v1/deposits", ts, nonce, []byte(depBody)))
				})
				return first, w.postKey("/v1/deposits", member1, key, depBody)
			}},
		{code: "member_context_required", status: 400, endpoint: "POST /v1/deposits", fresh: 201,
			run: fixedDeposit(func(*world) func(http.Header) { return func(h http.Header) { h.Del("X-On-Behalf-Of") } })},
		{code: "member_not_found", status: 404, endpoint: "POST /v1/deposits", fresh: 201,
			run: fixedDeposit(func(*world) func(http.Header) { return func(h http.Header) { h.Set("X-On-Behalf-Of", "nobody") } })},
		{code: "idempotency_key_invalid", status: 400, endpoint: "POST /v1/deposits", fresh: 400,
			run: func(t *testing.T, w *world, key string) (result, result) {
				return w.postKey("/v1/deposits", member1, "not-a-uuid", depBody), w.postKey("/v1/deposits", member1, "not-a-uuid", depBody)
			}},
		{code: "idempotency_key_required", status: 400, endpoint: "POST /v1/deposits", fresh: 201,
			run: fixedDeposit(func(*world) func(http.Header) { return func(h http.Header) { h.Del("X-Idempotency-Key") } })},
		{code: "idempotency_key_reused", status: 409, endpoint: "POST /v1/deposits", fresh: 409,
			run: func(t *testing.T, w *world, key string) (result, result) {
				// The key keeps its first request (a 201); the reuse with
				// another body is refused and not stored over it.
				other := `{"asset":"USDT","amount":"11","reference":"store-2"}`
				wantStatus(t, w.postKey("/v1/deposits", member1, key, other), http.StatusCreated)
				first := w.postKey("/v1/deposits", member1, key, depBody)
				again := w.postKey("/v1/deposits", member1, key, depBody)
				return first, again
			}},
		{code: "idempotency_in_progress", status: 409, endpoint: "POST /v1/deposits", fresh: 201,
			run: func(t *testing.T, w *world, key string) (result, result) {
				hold, held := make(chan struct{}), make(chan string, 1)
				if err := w.sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDelay, Hold: hold, Held: held}); err != nil {
					t.Fatal(err)
				}
				done := make(chan result, 1)
				go func() { done <- w.postKey("/v1/deposits", member1, key, depBody) }()
				<-held
				first := w.postKey("/v1/deposits", member1, key, depBody)
				close(hold)
				return first, <-done
			}},
		{code: "service_unavailable (store full)", status: 400, endpoint: "POST /v1/deposits", fresh: 201,
			run: func(t *testing.T, w *world, key string) (result, result) {
				simulator.SetStoreCaps(w.sim, 0, w.sim.Stats().IdempotencyRecords, 0)
				first := w.postKey("/v1/deposits", member1, key, depBody)
				simulator.SetStoreCaps(w.sim, 0, 1000, 0)
				return first, w.postKey("/v1/deposits", member1, key, depBody)
			}},
		// Injected before the handler: nothing ran, nothing is stored.
		{code: "api_error (injected fault)", status: 500, endpoint: "POST /v1/deposits", fresh: 201, run: injected("api_error")},
		{code: "upstream_error (injected fault)", status: 502, endpoint: "POST /v1/deposits", fresh: 201, run: injected("upstream_error")},
		{code: "upstream_timeout (injected fault)", status: 504, endpoint: "POST /v1/deposits", fresh: 201, run: injected("upstream_timeout")},
		{code: "rate_limited (injected fault)", status: 429, endpoint: "POST /v1/deposits", fresh: 201, run: injected("rate_limited")},
		{code: "service_unavailable (injected fault)", status: 400, endpoint: "POST /v1/deposits", fresh: 201, run: injected("service_unavailable")},

		// Handler answers the retry rules send back with the same key.
		{code: "step_up_required", status: 400, endpoint: "POST /v1/cards/{id}/lost", fresh: 200,
			run: func(t *testing.T, w *world, key string) (result, result) {
				id, _ := w.physicalCard()
				p := "/v1/cards/" + id + "/lost"
				first := w.postKey(p, member1, key, `{}`)
				ch := w.stepUp(first)
				return first, w.keyedSend(p, member1, key, `{}`, withStepUp(ch))
			}},
		{code: "rate_limited", status: 429, endpoint: "POST /v1/cards/{id}/pin", fresh: 400,
			run: func(t *testing.T, w *world, key string) (result, result) {
				p := "/v1/cards/" + w.cardID + "/pin"
				cvv, _ := w.c.mustControl("POST", "/_sim/cards/"+w.cardID+"/plastic", nil).body["cvv"].(string)
				body := `{"new_pin":"135790","cvv":"` + cvv + `"}`
				for i := 0; i < 5; i++ {
					k := w.key()
					ch := w.stepUp(w.postKey(p, member1, k, body))
					wantStatus(t, w.keyedSend(p, member1, k, body, withStepUp(ch)), http.StatusOK)
				}
				first := w.postKey(p, member1, key, body)
				if first.header.Get("Retry-After") != "3600" {
					t.Errorf("Retry-After %q, want 3600", first.header.Get("Retry-After"))
				}
				w.sim.Clock.Advance(time.Hour)
				w.tok = w.c.token() // the old one expired meanwhile
				// The wait is over: the same key is served (step-up first).
				return first, w.postKey(p, member1, key, body)
			}},

		// Definite outcomes: replayed to the same key and body.
		{code: "invalid_request", status: 400, stored: true, endpoint: "POST /v1/deposits", run: deposit(`{"asset":"USDT","amount":"-1","reference":"store-1"}`)},
		{code: "invalid_request (wire format)", status: 400, stored: true, endpoint: "POST /v1/deposits", run: deposit(depBody + "}")},
		{code: "invalid_fields", status: 400, stored: true, endpoint: "POST /v1/deposits", run: deposit(`{"asset":"USDT","amount":"1","reference":"store-1","txid":"0xab"}`)},
		{code: "asset_not_allowed", status: 400, stored: true, endpoint: "POST /v1/deposits", run: deposit(`{"asset":"XYZ","amount":"1","reference":"store-1"}`)},
		{code: "limit_exceeded", status: 400, stored: true, endpoint: "POST /v1/deposits", run: deposit(`{"asset":"USDT","amount":"100001","reference":"store-1"}`)},
		{code: "request_rejected", status: 400, stored: true, endpoint: "POST /v1/deposits",
			run: func(t *testing.T, w *world, key string) (result, result) {
				m := w.member("banned-1", 1, "")
				if err := w.sim.Members.SetStatus(m, "banned"); err != nil {
					t.Fatal(err)
				}
				first := w.postKey("/v1/deposits", m, key, depBody)
				if err := w.sim.Members.SetStatus(m, "active"); err != nil {
					t.Fatal(err)
				}
				return first, w.postKey("/v1/deposits", m, key, depBody)
			}},
		{code: "insufficient_balance", status: 400, stored: true, endpoint: "POST /v1/remittances",
			run: remit(func(w *world) string { return w.member("poor-1", 1, "1") }, payeeOf("GBP", "poor-1"), "100.00")},
		{code: "kyc_required", status: 400, stored: true, endpoint: "POST /v1/remittances",
			run: remit(func(w *world) string { return w.member("l0-1", 0, "1000") }, payeeOf("GBP", "l0-1"), "100.00")},
		{code: "amount_out_of_range", status: 400, stored: true, endpoint: "POST /v1/remittances", run: remit(fixture, payeeOf("GBP", member1), "1.00")},
		{code: "corridor_not_supported", status: 400, stored: true, endpoint: "POST /v1/remittances", run: remit(fixture, payeeOf("NGN", member1), "100.00")},
		{code: "resource_not_found", status: 404, stored: true, endpoint: "POST /v1/remittances",
			run: remit(func(w *world) string { w.member("other-1", 1, "1000"); return member1 }, payeeOf("GBP", "other-1"), "100.00")},
		{code: "product_not_available", status: 400, stored: true, endpoint: "POST /v1/cards/applications",
			run: apply(fixture, `{"product_id":"cpd_nope","source_asset":"USDT"}`)},
		{code: "api_error (business failure)", status: 500, stored: true, endpoint: "POST /v1/cards/applications",
			run: apply(func(w *world) string { return w.member("poor-2", 1, "1") }, `{"product_id":"cpd_virtual_std","source_asset":"USDT"}`)},
		{code: "service_unavailable", status: 400, stored: true, endpoint: "POST /v1/qrpay/payments",
			run: func(t *testing.T, w *world, key string) (result, result) {
				body := `{"code_value":"` + w.qr + `"}`
				if err := w.sim.QRPay.SetEnabled(false); err != nil {
					t.Fatal(err)
				}
				first := w.postKey("/v1/qrpay/payments", member1, key, body)
				if err := w.sim.QRPay.SetEnabled(true); err != nil {
					t.Fatal(err)
				}
				return first, w.postKey("/v1/qrpay/payments", member1, key, body)
			}},
		{code: "qr_code_invalid", status: 400, stored: true, endpoint: "POST /v1/qrpay/payments",
			run: func(t *testing.T, w *world, key string) (result, result) {
				body := `{"code_value":"not a code"}`
				return w.postKey("/v1/qrpay/payments", member1, key, body), w.postKey("/v1/qrpay/payments", member1, key, body)
			}},
		{code: "duplicate_resource", status: 409, stored: true, endpoint: "POST /v1/remit/payees",
			run: func(t *testing.T, w *world, key string) (result, result) {
				body := `{"country":"GB","currency":"GBP","holder_name":"Ada Lovelace","account_number":"12345678","bank_code":"400000"}`
				wantStatus(t, w.post("/v1/remit/payees", member1, body), http.StatusCreated)
				return w.postKey("/v1/remit/payees", member1, key, body), w.postKey("/v1/remit/payees", member1, key, body)
			}},
		{code: "quick_kyc_disabled", status: 400, stored: true, endpoint: "POST /v1/kyc/quick",
			run: quick(func(w *world) string {
				if err := w.sim.KYC.SetQuick(false, -1); err != nil {
					w.t.Fatal(err)
				}
				return member1
			})},
		{code: "quick_kyc_exhausted", status: 400, stored: true, endpoint: "POST /v1/kyc/quick",
			run: quick(func(w *world) string {
				if err := w.sim.KYC.SetQuick(true, 0); err != nil {
					w.t.Fatal(err)
				}
				return member1
			})},
		{code: "quick_kyc_unpaid", status: 400, stored: true, endpoint: "POST /v1/kyc/quick",
			run: quick(func(w *world) string { return w.member("poor-3", 1, "1") })},
		{code: "quick_kyc_limit", status: 400, stored: true, endpoint: "POST /v1/kyc/quick",
			run: quick(func(w *world) string {
				for i := 0; i < 5; i++ {
					wantStatus(w.t, w.post("/v1/kyc/quick", member1, `{}`), http.StatusCreated)
				}
				return member1
			})},
		{code: "card_pin_invalid", status: 400, stored: true, endpoint: "POST /v1/cards/{id}/pin", run: card("/pin", `{"new_pin":"123","cvv":"123"}`)},
		{code: "card_pin_rejected", status: 400, stored: true, endpoint: "POST /v1/cards/{id}/pin", run: card("/pin", `{"new_pin":"123456","cvv":"123"}`)},
		{code: "state_invalid", status: 400, stored: true, endpoint: "POST /v1/cards/{id}/lost", run: card("/lost", `{}`)},
		{code: "card_activate_failed", status: 400, stored: true, endpoint: "POST /v1/cards/{id}/activate",
			run: func(t *testing.T, w *world, key string) (result, result) {
				id, _ := w.physicalCard()
				p := "/v1/cards/" + id + "/activate"
				body := `{"expiry":"01/01","pin":"135790"}`
				first := w.postKey(p, member1, key, body)
				again := w.postKey(p, member1, key, body)
				// The replay did not count a second failure: two more
				// failures are needed for the lock.
				for i := 0; i < 2; i++ {
					wantCode(t, w.post(p, member1, body), 400, "card_activate_failed")
				}
				wantCode(t, w.post(p, member1, body), 400, "state_invalid")
				return first, again
			}},
		{code: "not_found", status: 404, stored: true, endpoint: "POST /v1/kyc/profile-sessions",
			run: func(t *testing.T, w *world, key string) (result, result) {
				m := w.member("noprofile-1", 0, "")
				return w.postKey("/v1/kyc/profile-sessions", m, key, `{}`), w.postKey("/v1/kyc/profile-sessions", m, key, `{}`)
			}},
	}
}

// TestIdempotencyStoresOnlyDefiniteOutcomes produces every code the
// simulator answers on a keyed endpoint and sends the same key and body
// again: a stored answer is replayed byte for byte with X-Idempotent-Replay;
// an answer not stored leaves the key free, so the second request executes
// afresh (no replay header, the journal says so, and after the cause is
// gone it succeeds).
func TestIdempotencyStoresOnlyDefiniteOutcomes(t *testing.T) {
	t.Parallel()
	for i, tc := range storeCases() {
		t.Run(tc.code, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			key := uuidN(900 + i)
			first, again := tc.run(t, w, key)
			code := tc.code
			code, _, _ = strings.Cut(code, " ")
			if first.status != tc.status || first.code() != code {
				t.Fatalf("first answer %v, want %d %s", first, tc.status, code)
			}
			replayed := again.header.Get("X-Idempotent-Replay") == "true"
			if tc.stored {
				if !replayed || again.status != first.status || string(again.raw) != string(first.raw) {
					t.Fatalf("stored %s: second answer %v (replay %v), want the first replayed: %v", code, again, replayed, first)
				}
				return
			}
			if replayed {
				t.Fatalf("%s was stored: the second request got the replay %v", code, again)
			}
			if again.status != tc.fresh {
				t.Fatalf("%s: the second request answered %v, want a fresh %d", code, again, tc.fresh)
			}
			if code == "idempotency_key_reused" || code == "idempotency_in_progress" {
				// The key's own result is the first request's; it is
				// replayed from now on.
				third := w.postKey("/v1/deposits", member1, key, depBody)
				if code == "idempotency_key_reused" {
					third = w.postKey("/v1/deposits", member1, key, `{"asset":"USDT","amount":"11","reference":"store-2"}`)
				}
				if third.header.Get("X-Idempotent-Replay") != "true" || third.status != http.StatusCreated {
					t.Fatalf("the key's first result is not replayed after %s: %v", code, third)
				}
			}
		})
	}
}

// TestReadmeStoredTable keeps the gateway guide's table "Stored or not under an
// idempotency key" equal to the test's rows: the same answers, the same
// verdicts.
func TestReadmeStoredTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("guide/gateway.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "### Stored or not under an idempotency key")
	if !ok {
		t.Fatal("guide/gateway.md has no section \"Stored or not under an idempotency key\"")
	}
	section, _, _ = strings.Cut(section, "\n### ")
	readme := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		name := strings.ReplaceAll(strings.TrimSpace(cells[1]), "`", "")
		readme[name] = strings.TrimSpace(cells[2]) == "yes"
	}
	test := map[string]bool{}
	for _, tc := range storeCases() {
		test[tc.code] = tc.stored
	}
	if diff := cmp.Diff(test, readme); diff != "" {
		t.Errorf("the guide's table differs from the test's rows (-test +guide):\n%s", diff)
	}
	codes := map[string]bool{}
	for name := range test {
		code, _, _ := strings.Cut(name, " ")
		codes[code] = true
	}
	t.Logf("%d rows, %d distinct codes", len(test), len(codes))
}
