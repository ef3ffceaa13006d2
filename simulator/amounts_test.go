package simulator_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// amountField is one amount field of one endpoint, with the values of the
// table's cases at that field's scale and what the endpoint answers.
type amountField struct {
	name string
	// scale is the field's scale: the asset's ledger_scale, or the
	// currency's ISO 4217 minor units.
	scale int
	// exact has exactly scale decimals; fewer has fewer; extraZero has
	// extra decimals that are all zero; extraNonZero has an extra non-zero
	// decimal. "" skips the case (a scale-0 field has no fewer decimals).
	exact, fewer, extraZero, extraNonZero string
	// okStatus answers an accepted value.
	okStatus int
	// badStatus and badCode answer a refused value: the endpoint's own
	// documented code.
	badStatus int
	badCode   string
	// zeroOK, fewerOK, extraZeroOK: whether those cases are accepted.
	zeroOK, fewerOK, extraZeroOK bool
	// prep sets up what the request needs and returns the sender.
	prep func(e *scopeEnv) func(v string) result
	// check, when set, verifies an accepted value was taken exactly.
	check func(t *testing.T, e *scopeEnv, v string, r result)
}

// customAmountCode is a static PromptPay code without amount: the payer
// types the THB amount (2 minor units).
func customAmountCode() string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "11",
		MerchantAccounts:  []emvqr.MerchantAccount{{Tag: "29", GUI: "A000000677010111", Fields: []emvqr.Field{{Tag: "01", Value: "0066801234567"}}}},
		Currency:          "764", Country: "TH",
	})
}

func jsonBody(m map[string]any) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// payeeOf returns the id of the member's fixture payee in currency.
func (e *scopeEnv) payeeOf(currency string) string {
	e.t.Helper()
	r := e.must(scopeReq{method: "GET", target: "/v1/remit/payees?limit=100", member: member1})
	for _, it := range r.body["data"].([]any) {
		p := it.(map[string]any)
		if p["currency"] == currency {
			return p["id"].(string)
		}
	}
	e.t.Fatalf("no %s payee", currency)
	return ""
}

func depositField(asset string, scale int, exact, fewer, extraZero, extraNonZero string) amountField {
	return amountField{
		name: "POST /v1/deposits amount (" + asset + ")", scale: scale,
		exact: exact, fewer: fewer, extraZero: extraZero, extraNonZero: extraNonZero,
		okStatus: 201, badStatus: 400, badCode: "invalid_request", fewerOK: true, extraZeroOK: true,
		prep: func(e *scopeEnv) func(string) result {
			return func(v string) result {
				body := jsonBody(map[string]any{"asset": asset, "amount": v, "reference": "amt-" + uuid.NewString()})
				return send(e.c, e.tok, scopeReq{method: "POST", target: "/v1/deposits", member: member1, body: body, idem: true})
			}
		},
		check: func(t *testing.T, _ *scopeEnv, v string, r result) {
			want := money.MustParse(v, scale).String()
			if r.body["amount"] != want || r.body["ledger_scale"] != float64(scale) {
				t.Errorf("deposit answered amount %v scale %v, want %s at %d", r.body["amount"], r.body["ledger_scale"], want, scale)
			}
		},
	}
}

func qrField(path string, ok int) amountField {
	return amountField{
		name: "POST " + path + " amount (THB, custom-amount code)", scale: 2,
		exact: "150.25", fewer: "150.5", extraZero: "150.2500", extraNonZero: "150.251",
		okStatus: ok, badStatus: 400, badCode: "invalid_request", fewerOK: true, extraZeroOK: true,
		prep: func(e *scopeEnv) func(string) result {
			return func(v string) result {
				body := jsonBody(map[string]any{"code_value": customAmountCode(), "currency": "THB", "amount": v})
				if path != "/v1/qrpay/payments" {
					return send(e.c, e.tok, scopeReq{method: "POST", target: path, member: member1, body: body})
				}
				key := uuid.NewString()
				pay := func(stepUp string) result {
					h := authed(e.tok)
					h.Set("X-On-Behalf-Of", member1)
					h.Set("X-Idempotency-Key", key)
					if stepUp != "" {
						h.Set("X-Step-Up", stepUp)
					}
					return e.c.send("POST", path, body, e.c.signed(h, "POST", path, body))
				}
				r := pay("")
				if r.code() != "step_up_required" {
					return r
				}
				ch := str(r, "challenge_id")
				if err := e.sim.StepUp.Complete(ch); err != nil {
					e.t.Fatal(err)
				}
				return pay(ch)
			}
		},
		check: func(t *testing.T, _ *scopeEnv, v string, r result) {
			want := money.MustParse(v, 2).String()
			if r.body["acquirer_amount"] != want {
				t.Errorf("acquirer_amount %v, want %s", r.body["acquirer_amount"], want)
			}
		},
	}
}

func cardField(name string, ok int, zeroOK bool, req func(e *scopeEnv, card, v string) scopeReq) amountField {
	return amountField{
		name: name, scale: 6,
		exact: "10.123456", fewer: "10.5", extraZero: "10.12345600", extraNonZero: "10.1234567",
		okStatus: ok, badStatus: 400, badCode: "invalid_fields", zeroOK: zeroOK, fewerOK: true, extraZeroOK: true,
		prep: func(e *scopeEnv) func(string) result {
			card := ""
			if !strings.Contains(name, "applications") {
				card = e.card("cpd_virtual_std")
			}
			return func(v string) result { return send(e.c, e.tok, req(e, card, v)) }
		},
		check: func(t *testing.T, e *scopeEnv, v string, r result) {
			a := money.MustParse(v, 6)
			want := a // the first top-up is held as it is
			switch {
			case ok == 200: // the estimate echoes the amount
				if r.body["amount"] != a.String() {
					t.Errorf("estimate amount %v, want %s", r.body["amount"], a)
				}
				return
			case !strings.Contains(name, "applications"): // a top-up holds amount + 1% fee
				fee, _ := a.MulRatio(1, 100, money.RoundUp)
				want, _ = a.Add(fee)
			}
			if _, locked, err := e.sim.Members.Balance(member1, "USDT"); err != nil || !locked.Equal(want) {
				t.Errorf("held %s (%v), want %s", locked, err, want)
			}
		},
	}
}

func remitField(path, currency string, scale int, exact, fewer, extraZero, extraNonZero string) amountField {
	ok := 201
	if strings.HasPrefix(path, "GET") {
		ok = 200
	}
	return amountField{
		name: path + " payout_amount (" + currency + ")", scale: scale,
		exact: exact, fewer: fewer, extraZero: extraZero, extraNonZero: extraNonZero,
		okStatus: ok, badStatus: 400, badCode: "invalid_request",
		prep: func(e *scopeEnv) func(string) result {
			payee := e.payeeOf(currency)
			return func(v string) result {
				if ok == 200 {
					q := url.Values{"payee_id": {payee}, "payout_amount": {v}}
					return send(e.c, e.tok, scopeReq{method: "GET", target: "/v1/remit/quotes?" + q.Encode(), member: member1})
				}
				body := jsonBody(map[string]any{"payee_id": payee, "payout_amount": v, "slippage_bps": 100, "purpose_code": "FAMILY_SUPPORT"})
				return send(e.c, e.tok, scopeReq{method: "POST", target: "/v1/remittances", member: member1, body: body, idem: true})
			}
		},
	}
}

func controlField(name string, ok int, zeroOK bool, body func(v string) (string, any)) amountField {
	return amountField{
		name: name + " (USDT)", scale: 6,
		exact: "12.345678", fewer: "12.5", extraZero: "12.34567800", extraNonZero: "12.3456789",
		okStatus: ok, badStatus: 400, badCode: "invalid_request", zeroOK: zeroOK, fewerOK: true, extraZeroOK: true,
		prep: func(e *scopeEnv) func(string) result {
			return func(v string) result {
				path, in := body(v)
				return e.c.control(http.MethodPost, path, in)
			}
		},
	}
}

// amountFields lists every amount field a request or a control call carries.
var amountFields = []amountField{
	depositField("USDT", 6, "12.345678", "12.5", "12.34567800", "12.3456789"),
	depositField("BTC", 8, "0.12345678", "0.5", "0.1234567800", "0.123456789"),
	qrField("/v1/qrpay/quotes", 200),
	qrField("/v1/qrpay/payments", 201),
	cardField("POST /v1/cards/applications first_topup (USDT)", 201, true, func(_ *scopeEnv, _, v string) scopeReq {
		return scopeReq{method: "POST", target: "/v1/cards/applications", member: member1, idem: true,
			body: jsonBody(map[string]any{"source_asset": "USDT", "product_id": "cpd_virtual_std", "first_topup": v})}
	}),
	cardField("POST /v1/cards/{id}/topups amount (USDT)", 201, false, func(_ *scopeEnv, card, v string) scopeReq {
		return scopeReq{method: "POST", target: "/v1/cards/" + card + "/topups", member: member1, idem: true,
			body: jsonBody(map[string]any{"amount": v, "source_asset": "USDT"})}
	}),
	cardField("GET /v1/cards/{id}/topups/estimate amount (USDT)", 200, false, func(_ *scopeEnv, card, v string) scopeReq {
		q := url.Values{"amount": {v}, "source_asset": {"USDT"}}
		return scopeReq{method: "GET", target: "/v1/cards/" + card + "/topups/estimate?" + q.Encode(), member: member1}
	}),
	// payout_amount has exactly the currency's decimals (the contract:
	// "precision exactly that of the currency").
	remitField("POST /v1/remittances", "GBP", 2, "10.25", "10.5", "10.250", "10.251"),
	remitField("POST /v1/remittances", "JPY", 0, "1500", "", "1500.0", "1500.5"),
	remitField("GET /v1/remit/quotes", "GBP", 2, "10.25", "10.5", "10.250", "10.251"),
	controlField("POST /_sim/members balances", 201, true, func(v string) (string, any) {
		return "/_sim/members", map[string]any{"external_member_id": "amt-" + uuid.NewString(), "kyc_level": 1, "balances": map[string]string{"USDT": v}}
	}),
	controlField("POST /_sim/merchant prepaid", 200, true, func(v string) (string, any) {
		return "/_sim/merchant", map[string]any{"prepaid": map[string]string{"USDT": v}}
	}),
	controlField("POST /_sim/merchant/prepaid/topup amount", 200, false, func(v string) (string, any) {
		return "/_sim/merchant/prepaid/topup", map[string]any{"asset": "USDT", "amount": v}
	}),
}

// TestAmountsFollowTheirScale runs every amount field through the same
// cases: exactly the field's scale, fewer decimals, extra zero decimals,
// an extra non-zero decimal, negative, zero, an exponent and a number too
// large for any amount. An accepted value is taken exactly; a refused one
// answers the endpoint's documented code and changes nothing.
func TestAmountsFollowTheirScale(t *testing.T) {
	t.Parallel()
	for _, f := range amountFields {
		cases := []struct {
			name, v string
			ok      bool
		}{
			{"exact scale", f.exact, true},
			{"fewer decimals", f.fewer, f.fewerOK},
			{"extra zero decimals", f.extraZero, f.extraZeroOK},
			{"extra non-zero decimal", f.extraNonZero, false},
			{"negative", "-" + f.exact, false},
			{"zero", "0", f.zeroOK},
			{"exponent", "1e2", false},
			{"huge", strings.Repeat("9", 100), false},
		}
		for _, tc := range cases {
			if tc.v == "" {
				continue
			}
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				e := newScopeEnv(t)
				sendV := f.prep(e)
				before := businessStateOf(t, e.sim)
				r := sendV(tc.v)
				switch {
				case tc.ok:
					if r.err != nil || r.status != f.okStatus {
						t.Fatalf("%q: want %d, got %v", tc.v, f.okStatus, r)
					}
					if f.check != nil {
						f.check(t, e, tc.v, r)
					}
				default:
					if r.err != nil || r.status != f.badStatus || r.code() != f.badCode {
						t.Fatalf("%q: want %d %s, got %v", tc.v, f.badStatus, f.badCode, r)
					}
					if diff := cmp.Diff(before, businessStateOf(t, e.sim)); diff != "" {
						t.Errorf("a refused amount changed the simulator (-before +after):\n%s", diff)
					}
				}
				if err := e.sim.CheckLedger(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestAmountTableCoversEveryScale is a guard on the table itself: each
// field's values are at the scale it claims.
func TestAmountTableCoversEveryScale(t *testing.T) {
	t.Parallel()
	decimals := func(v string) int {
		if i := strings.IndexByte(v, '.'); i >= 0 {
			return len(v) - i - 1
		}
		return 0
	}
	for _, f := range amountFields {
		if decimals(f.exact) != f.scale || (f.fewer != "" && decimals(f.fewer) >= f.scale) ||
			decimals(f.extraZero) <= f.scale || decimals(f.extraNonZero) <= f.scale {
			t.Errorf("%s: values %q %q %q %q do not fit scale %d", f.name, f.exact, f.fewer, f.extraZero, f.extraNonZero, f.scale)
		}
	}
}
