package simulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// scopeReq is one business request of the scope table.
type scopeReq struct {
	method, target string
	member         string // x-on-behalf-of; "" for merchant-scoped endpoints
	body           []byte
	idem           bool   // send a fresh x-idempotency-key
	stepUp         string // x-step-up
}

// scopeEnv is one simulator with the fixture Key (every scope) used to set
// up the objects a request needs.
type scopeEnv struct {
	t   *testing.T
	sim *simulator.Simulator
	c   *raw
	tok string
}

func newScopeEnv(t *testing.T) *scopeEnv {
	sim, c := newRaw(t)
	return &scopeEnv{t: t, sim: sim, c: c, tok: c.token()}
}

// send sends rq with c's Key and token: writes signed, with a fresh
// idempotency key when rq.idem.
func send(c *raw, tok string, rq scopeReq) result {
	c.t.Helper()
	h := authed(tok)
	if rq.member != "" {
		h.Set("X-On-Behalf-Of", rq.member)
	}
	if rq.method == http.MethodGet {
		return c.send(rq.method, rq.target, nil, h)
	}
	if rq.idem {
		h.Set("X-Idempotency-Key", uuid.NewString())
	}
	if rq.stepUp != "" {
		h.Set("X-Step-Up", rq.stepUp)
	}
	if rq.body == nil {
		rq.body = []byte{}
	}
	return c.send(rq.method, rq.target, rq.body, c.signed(h, rq.method, rq.target, rq.body))
}

// must sends rq with the fixture Key and fails the test unless it answers 2xx.
func (e *scopeEnv) must(rq scopeReq) result {
	e.t.Helper()
	r := send(e.c, e.tok, rq)
	if r.err != nil || r.status/100 != 2 {
		e.t.Fatalf("set-up %s %s: %v", rq.method, rq.target, r)
	}
	return r
}

func str(r result, key string) string {
	v, _ := r.body[key].(string)
	return v
}

// application applies for a card of product and returns the application id.
func (e *scopeEnv) application(product string) string {
	e.t.Helper()
	body := fmt.Sprintf(`{"source_asset":"USDT","product_id":%q}`, product)
	return str(e.must(scopeReq{method: "POST", target: "/v1/cards/applications", member: member1, body: []byte(body), idem: true}), "id")
}

// card issues a card of product and returns its id.
func (e *scopeEnv) card(product string) string {
	e.t.Helper()
	app := e.application(product)
	if err := e.sim.Cards.ApproveApplication(app); err != nil {
		e.t.Fatal(err)
	}
	id := str(e.must(scopeReq{method: "GET", target: "/v1/cards/applications/" + app, member: member1}), "card_id")
	if id == "" {
		e.t.Fatalf("application %s issued no card", app)
	}
	return id
}

// shippedPhysical issues a physical card and ships it (ready to activate).
func (e *scopeEnv) shippedPhysical() string {
	e.t.Helper()
	id := e.card("cpd_physical_std")
	if err := e.sim.Cards.Ship(id); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// qrCode is a fixed-amount PromptPay code.
func qrCode() string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "SCOPE1"},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "100.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
}

// qrOrder pays qrCode() through the step-up round trip and returns the order id.
func (e *scopeEnv) qrOrder() string {
	e.t.Helper()
	body, _ := json.Marshal(map[string]string{"code_value": qrCode()})
	key := uuid.NewString()
	rq := scopeReq{method: "POST", target: "/v1/qrpay/payments", member: member1, body: body}
	h := func(stepUp string) result {
		hd := authed(e.tok)
		hd.Set("X-On-Behalf-Of", member1)
		hd.Set("X-Idempotency-Key", key)
		if stepUp != "" {
			hd.Set("X-Step-Up", stepUp)
		}
		return e.c.send(rq.method, rq.target, body, e.c.signed(hd, rq.method, rq.target, body))
	}
	first := h("")
	if first.code() != "step_up_required" {
		e.t.Fatalf("first payment: %v", first)
	}
	ch := str(first, "challenge_id")
	if err := e.sim.StepUp.Complete(ch); err != nil {
		e.t.Fatal(err)
	}
	r := h(ch)
	if r.status != http.StatusCreated {
		e.t.Fatalf("payment: %v", r)
	}
	return str(r, "id")
}

// gbpPayee returns the id of the member's fixture GBP payee.
func (e *scopeEnv) gbpPayee() string {
	e.t.Helper()
	r := e.must(scopeReq{method: "GET", target: "/v1/remit/payees?limit=100", member: member1})
	for _, it := range r.body["data"].([]any) {
		p := it.(map[string]any)
		if p["currency"] == "GBP" {
			return p["id"].(string)
		}
	}
	e.t.Fatal("no GBP payee")
	return ""
}

// remitBody is a remittance of 10.00 GBP to the member's GBP payee.
func (e *scopeEnv) remitBody() []byte {
	return []byte(`{"payee_id":"` + e.gbpPayee() + `","payout_amount":"10.00","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"}`)
}

// remittance creates a remittance to the member's GBP payee.
func (e *scopeEnv) remittance() string {
	e.t.Helper()
	return str(e.must(scopeReq{method: "POST", target: "/v1/remittances", member: member1, body: e.remitBody(), idem: true}), "id")
}

// redeliverable returns a delivery id that redeliver accepts: an event
// recorded with no endpoint (no_subscriber), then an endpoint added.
func (e *scopeEnv) redeliverable() string {
	e.t.Helper()
	if _, err := e.sim.Events.Emit("member.created", "member", "m1", member1, "created", 0); err != nil {
		e.t.Fatal(err)
	}
	rows := e.sim.Webhooks.Deliveries()
	if len(rows) == 0 {
		e.t.Fatal("no delivery row")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	e.t.Cleanup(srv.Close)
	if _, _, err := e.sim.Webhooks.AddEndpoint(srv.URL); err != nil {
		e.t.Fatal(err)
	}
	return rows[0].ID
}

func (e *scopeEnv) memberID() string {
	e.t.Helper()
	return simtest.MemberID(e.t, e.sim, member1)
}

// scopeCase is one request of an endpoint and what it answers once the
// scope lets it through.
type scopeCase struct {
	prep       func(e *scopeEnv) scopeReq
	wantStatus int
	wantCode   string // for a 4xx answer that proves the handler ran
}

func get(target string, member bool) func(*scopeEnv) scopeReq {
	return func(*scopeEnv) scopeReq {
		rq := scopeReq{method: "GET", target: target}
		if member {
			rq.member = member1
		}
		return rq
	}
}

func onCard(product, method, sub string, body string, idem bool) func(*scopeEnv) scopeReq {
	return func(e *scopeEnv) scopeReq {
		id := e.card(product)
		rq := scopeReq{method: method, target: "/v1/cards/" + id + sub, member: member1, idem: idem}
		if method != "GET" {
			rq.body = []byte(body)
		}
		return rq
	}
}

// scopeTable holds a case for every registered business endpoint, keyed
// "METHOD /path" as the registry lists it.
var scopeTable = map[string]scopeCase{
	"GET /v1/assets":                    {prep: get("/v1/assets", false), wantStatus: 200},
	"GET /v1/cards/products":            {prep: get("/v1/cards/products", false), wantStatus: 200},
	"GET /v1/cards/products/{id}/quote": {prep: get("/v1/cards/products/cpd_virtual_std/quote", true), wantStatus: 200},
	"POST /v1/cards/applications": {prep: func(*scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/cards/applications", member: member1, idem: true,
			body: []byte(`{"source_asset":"USDT","product_id":"cpd_virtual_std"}`)}
	}, wantStatus: 201},
	"GET /v1/cards": {prep: get("/v1/cards", true), wantStatus: 200},
	"GET /v1/cards/{id}": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "GET", target: "/v1/cards/" + e.card("cpd_virtual_std"), member: member1}
	}, wantStatus: 200},
	"GET /v1/cards/applications/{id}": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "GET", target: "/v1/cards/applications/" + e.application("cpd_virtual_std"), member: member1}
	}, wantStatus: 200},
	"GET /v1/cards/{id}/close-check":  {prep: onCard("cpd_virtual_std", "GET", "/close-check", "", false), wantStatus: 200},
	"GET /v1/cards/{id}/transactions": {prep: onCard("cpd_virtual_std", "GET", "/transactions", "", false), wantStatus: 200},
	"POST /v1/cards/{id}/activate": {prep: func(e *scopeEnv) scopeReq {
		id := e.shippedPhysical()
		pl, err := e.sim.Cards.Plastic(id)
		if err != nil {
			e.t.Fatal(err)
		}
		body, _ := json.Marshal(map[string]string{"expiry": pl.Expiry, "pin": "135790"})
		return scopeReq{method: "POST", target: "/v1/cards/" + id + "/activate", member: member1, body: body, idem: true}
	}, wantStatus: 200},
	// PIN and lost need strong authentication on every call: the handler
	// answers step_up_required once the scope lets the request through.
	"POST /v1/cards/{id}/pin": {prep: onCard("cpd_virtual_std", "POST", "/pin", `{"new_pin":"135790","cvv":"123"}`, true),
		wantStatus: 400, wantCode: "step_up_required"},
	"POST /v1/cards/{id}/lost": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/cards/" + e.shippedPhysical() + "/lost", member: member1, body: []byte(`{}`), idem: true}
	}, wantStatus: 400, wantCode: "step_up_required"},
	"POST /v1/cards/{id}/freeze": {prep: onCard("cpd_virtual_std", "POST", "/freeze", ``, false), wantStatus: 200},
	"POST /v1/cards/{id}/unfreeze": {prep: func(e *scopeEnv) scopeReq {
		id := e.card("cpd_virtual_std")
		e.must(scopeReq{method: "POST", target: "/v1/cards/" + id + "/freeze", member: member1})
		return scopeReq{method: "POST", target: "/v1/cards/" + id + "/unfreeze", member: member1}
	}, wantStatus: 200},
	"POST /v1/cards/{id}/close":          {prep: onCard("cpd_virtual_std", "POST", "/close", `{}`, true), wantStatus: 200},
	"POST /v1/cards/{id}/replacements":   {prep: onCard("cpd_virtual_std", "POST", "/replacements", `{}`, true), wantStatus: 201},
	"POST /v1/cards/{id}/secure-session": {prep: onCard("cpd_virtual_std", "POST", "/secure-session", ``, false), wantStatus: 201},
	"POST /v1/cards/{id}/topups":         {prep: onCard("cpd_virtual_std", "POST", "/topups", `{"amount":"10"}`, true), wantStatus: 201},
	"GET /v1/cards/{id}/topups/estimate": {prep: onCard("cpd_virtual_std", "GET", "/topups/estimate?amount=10", "", false), wantStatus: 200},

	"POST /v1/deposits": {prep: func(*scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/deposits", member: member1, idem: true, body: depositBody("scope-dep", "1")}
	}, wantStatus: 201},
	"GET /v1/deposits": {prep: get("/v1/deposits", false), wantStatus: 200},
	"GET /v1/deposits/{id}": {prep: func(e *scopeEnv) scopeReq {
		e.must(scopeReq{method: "POST", target: "/v1/deposits", member: member1, idem: true, body: depositBody("scope-get", "1")})
		return scopeReq{method: "GET", target: "/v1/deposits/dep_scope-get"}
	}, wantStatus: 200},

	"POST /v1/kyc/profile-sessions": {prep: func(*scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/kyc/profile-sessions", member: member1, idem: true}
	}, wantStatus: 201},
	"GET /v1/kyc":       {prep: get("/v1/kyc", true), wantStatus: 200},
	"GET /v1/kyc/quick": {prep: get("/v1/kyc/quick", true), wantStatus: 200},
	"POST /v1/kyc/quick": {prep: func(*scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/kyc/quick", member: member1, idem: true, body: []byte(`{"email":"scope@example.com"}`)}
	}, wantStatus: 201},

	"GET /v1/members/{id}": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "GET", target: "/v1/members/" + e.memberID()}
	}, wantStatus: 200},

	"POST /v1/qrpay/decode": {prep: func(*scopeEnv) scopeReq {
		body, _ := json.Marshal(map[string]string{"code_value": qrCode()})
		return scopeReq{method: "POST", target: "/v1/qrpay/decode", member: member1, body: body}
	}, wantStatus: 200},
	"POST /v1/qrpay/quotes": {prep: func(*scopeEnv) scopeReq {
		body, _ := json.Marshal(map[string]string{"code_value": qrCode()})
		return scopeReq{method: "POST", target: "/v1/qrpay/quotes", member: member1, body: body}
	}, wantStatus: 200},
	// Every payment needs strong authentication first.
	"POST /v1/qrpay/payments": {prep: func(*scopeEnv) scopeReq {
		body, _ := json.Marshal(map[string]string{"code_value": qrCode()})
		return scopeReq{method: "POST", target: "/v1/qrpay/payments", member: member1, body: body, idem: true}
	}, wantStatus: 400, wantCode: "step_up_required"},
	"GET /v1/qrpay/orders/{id}": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "GET", target: "/v1/qrpay/orders/" + e.qrOrder(), member: member1}
	}, wantStatus: 200},
	"GET /v1/qrpay/schemes": {prep: get("/v1/qrpay/schemes", false), wantStatus: 200},

	"POST /v1/remittances": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/remittances", member: member1, body: e.remitBody(), idem: true}
	}, wantStatus: 201},
	"GET /v1/remittances": {prep: get("/v1/remittances", true), wantStatus: 200},
	"GET /v1/remittances/{id}": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "GET", target: "/v1/remittances/" + e.remittance(), member: member1}
	}, wantStatus: 200},
	"GET /v1/remit/payees": {prep: get("/v1/remit/payees", true), wantStatus: 200},
	"POST /v1/remit/payees": {prep: func(*scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/remit/payees", member: member1, idem: true,
			body: []byte(`{"country":"DE","currency":"EUR","holder_name":"Erika Muster","account_number":"DE02120300000000202051"}`)}
	}, wantStatus: 201},
	"GET /v1/remit/quotes": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "GET", target: "/v1/remit/quotes?payout_amount=10.00&payee_id=" + e.gbpPayee(), member: member1}
	}, wantStatus: 200},
	"GET /v1/remit/products":         {prep: get("/v1/remit/products", false), wantStatus: 200},
	"GET /v1/remit/conversion-dates": {prep: get("/v1/remit/conversion-dates?payout_currency=GBP", false), wantStatus: 200},
	"POST /v1/remit/vp/applications/query": {prep: func(*scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/remit/vp/applications/query", body: []byte(`{"members":["member-1"]}`)}
	}, wantStatus: 200},

	"POST /v1/webhooks/deliveries/{id}/redeliver": {prep: func(e *scopeEnv) scopeReq {
		return scopeReq{method: "POST", target: "/v1/webhooks/deliveries/" + url.PathEscape(e.redeliverable()) + "/redeliver", idem: true}
	}, wantStatus: 200},
	"GET /v1/webhooks/deliveries": {prep: get("/v1/webhooks/deliveries", false), wantStatus: 200},
}

// nonceBase spaces the nonces of the extra Keys' clients apart.
var nonceBase atomic.Int64

// grants lists the scopes that let a Key call an endpoint needing scope:
// the scope itself and, for a read, the write of the same resource when the
// catalogue knows it.
func grants(scope string, catalogue []string) []string {
	out := []string{scope}
	if res, ok := strings.CutSuffix(scope, ":read"); ok && slices.Contains(catalogue, res+":write") {
		out = append(out, res+":write")
	}
	return out
}

// stateOf is everything a request refused by the gateway must leave
// unchanged: businessStateOf and the windows (nonces, idempotency records).
func stateOf(t *testing.T, sim *simulator.Simulator) string {
	t.Helper()
	stats := sim.Stats()
	return fmt.Sprintf("%s\nidem=%d nonces=%d", businessStateOf(t, sim), stats.IdempotencyRecords, stats.Nonces)
}

// businessStateOf is everything a refused business request must leave
// unchanged (it may consume its nonce and store its definite failure under
// its idempotency key): the snapshot without the request journal, the
// ledger, the events and the objects the snapshot does not show.
func businessStateOf(t *testing.T, sim *simulator.Simulator) string {
	t.Helper()
	st := sim.State()
	st.Requests = nil
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\nledger entries=%d events=%d\n%s", b, len(sim.LedgerEntries()), sim.Stats().Events, simulator.InternalCounts(sim))
}

// TestEveryEndpointNeedsItsScope takes every business endpoint from the
// simulator's registry. For each it sends the request with a Key holding
// every other scope of the catalogue (403 insufficient_scope, nothing
// changed), then with a Key holding exactly the endpoint's scope, and for a
// read also with one holding only the write of the same resource (the
// handler answers).
func TestEveryEndpointNeedsItsScope(t *testing.T) {
	t.Parallel()
	probe := simulator.MustNew()
	defer probe.Close()
	endpoints := simulator.Endpoints(probe)
	catalogue := simulator.ScopeCatalogue(probe)

	seen := map[string]bool{}
	for _, ep := range endpoints {
		seen[ep.Key()] = true
		if ep.Scope == "" {
			t.Errorf("%s requires no scope", ep.Key())
			continue
		}
		tc, ok := scopeTable[ep.Key()]
		if !ok {
			t.Errorf("%s (scope %s) has no row in scopeTable", ep.Key(), ep.Scope)
			continue
		}
		for _, holding := range grants(ep.Scope, catalogue) {
			t.Run(ep.Key()+" with "+holding, func(t *testing.T) {
				t.Parallel()
				runScopeCase(t, ep, tc, holding, catalogue)
			})
		}
	}
	for key := range scopeTable {
		if !seen[key] {
			t.Errorf("scopeTable has a row for %s, which the simulator does not register", key)
		}
	}
}

func runScopeCase(t *testing.T, ep simulator.EndpointInfo, tc scopeCase, holding string, catalogue []string) {
	e := newScopeEnv(t)
	rq := tc.prep(e)
	allowed := grants(ep.Scope, catalogue)
	var others []string
	for _, sc := range catalogue {
		if !slices.Contains(allowed, sc) {
			others = append(others, sc)
		}
	}
	keyWith := func(scopes []string) (*raw, string) {
		creds, err := e.sim.Keys.Add("", "", "", simulator.KeySettings{Scopes: scopes, ApproveRestricted: simulator.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		c := &raw{t: t, sim: e.sim, hc: e.c.hc, creds: creds}
		c.nonce.Store(nonceBase.Add(1 << 20)) // nonces are per merchant
		return c, c.token()
	}

	lacking, lackTok := keyWith(others)
	before := stateOf(t, e.sim)
	r := send(lacking, lackTok, rq)
	wantCode(t, r, http.StatusForbidden, "insufficient_scope")
	if diff := cmp.Diff(before, stateOf(t, e.sim)); diff != "" {
		t.Errorf("a request refused for its scope changed the simulator (-before +after):\n%s", diff)
	}

	exact, exactTok := keyWith([]string{holding})
	r = send(exact, exactTok, rq)
	if r.err != nil || r.status != tc.wantStatus || (tc.wantCode != "" && r.code() != tc.wantCode) {
		t.Fatalf("with only %s: want %d %s, got %v", holding, tc.wantStatus, tc.wantCode, r)
	}
	if err := e.sim.CheckLedger(); err != nil {
		t.Error(err)
	}
}

// TestScopeCatalogueIsContractPlusService pins the catalogue: the contract's scopes plus the
// simulator's own, and no endpoint outside it. An unknown scope key is
// dropped when a Key is created.
func TestScopeCatalogueIsContractPlusService(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	want := append(simulator.ContractScopes(), simulator.ServiceScopes()...)
	sort.Strings(want)
	if diff := cmp.Diff(want, simulator.ScopeCatalogue(sim)); diff != "" {
		t.Errorf("catalogue (-want +got):\n%s", diff)
	}
	for _, ep := range simulator.Endpoints(sim) {
		if !slices.Contains(want, ep.Scope) {
			t.Errorf("%s needs %q, outside the catalogue", ep.Key(), ep.Scope)
		}
	}
	creds, err := sim.Keys.Add("", "", "", simulator.KeySettings{Scopes: []string{"remittances:write", "remittance:write", "kyc:admin"}})
	if err != nil {
		t.Fatal(err)
	}
	k := &raw{t: t, sim: sim, hc: c.hc, creds: creds}
	r := k.exchangeToken(creds.ClientID, creds.APIKey)
	var got []string
	for _, v := range r.body["scopes"].([]any) {
		got = append(got, v.(string))
	}
	if diff := cmp.Diff([]string{"remittances:write"}, got); diff != "" {
		t.Errorf("token scopes (-want +got):\n%s", diff)
	}
}

// contractNamed are the endpoints whose scope the contract names; the
// simulator chose every other one (see the scope table of docs/concepts.md).
var contractNamed = map[string]bool{
	"GET /v1/assets": true, "GET /v1/cards/products": true, "GET /v1/cards/products/{id}/quote": true,
	"POST /v1/cards/{id}/pin": true, "POST /v1/cards/{id}/activate": true, "POST /v1/cards/{id}/lost": true,
	"POST /v1/cards/{id}/close": true, "GET /v1/cards/{id}/transactions": true, "POST /v1/deposits": true,
	"POST /v1/qrpay/decode": true, "POST /v1/qrpay/quotes": true, "POST /v1/qrpay/payments": true,
	"GET /v1/remittances": true, "POST /v1/remit/vp/applications/query": true,
	"POST /v1/webhooks/deliveries/{id}/redeliver": true,
}

var scopeRow = regexp.MustCompile("^\\| `((?:GET|POST|DELETE) /v1/[^`]*)` \\| `([a-z]+:[a-z]+)` \\| ([^|]+) \\|$")

// TestReadmeScopeTables keeps the scope tables of docs/concepts.md and
// simulator/guide/gateway.md equal to the registry: one row per endpoint, its
// scope, and whether the contract names it.
func TestReadmeScopeTables(t *testing.T) {
	t.Parallel()
	sim := simulator.MustNew()
	defer sim.Close()
	var want []string
	for _, ep := range simulator.Endpoints(sim) {
		basis := "simulator"
		if contractNamed[ep.Key()] {
			basis = "contract"
		}
		want = append(want, fmt.Sprintf("| `%s` | `%s` | %s |", ep.Key(), ep.Scope, basis))
	}
	for _, path := range []string{"guide/gateway.md", "../docs/concepts.md"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(string(b), "\n") {
			if m := scopeRow.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				got = append(got, fmt.Sprintf("| `%s` | `%s` | %s |", m[1], m[2], strings.TrimSpace(m[3])))
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s scope table differs from the registry (-want +got):\n%s\nwant:\n%s", path, diff, strings.Join(want, "\n"))
		}
	}
}
