package simulator_test

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// world is a simulator with one object of each kind the business endpoints
// act on, driven over raw HTTP: an active virtual card of the fixture
// member, a payee, a webhook delivery row and a usable QR code.
type world struct {
	t        *testing.T
	sim      *simulator.Simulator
	c        *raw
	tok      string
	cardID   string
	payeeID  string
	delivery string
	qr       string
	keys     atomic.Int64
}

// thaiQR100 is a fixed-amount PromptPay code of 100.00 THB.
var thaiQR100 = emvqr.MustBuild(emvqr.Payload{
	PointOfInitiation: "12",
	MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
		{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER1"},
	}}},
	MerchantCategoryCode: "5812", Currency: "764", Amount: "100.00", Country: "TH",
	MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
})

func newWorld(t *testing.T, opts ...simulator.Option) *world {
	t.Helper()
	sim, c := newRaw(t, opts...)
	w := &world{t: t, sim: sim, c: c, tok: c.token(), qr: thaiQR100}
	w.keys.Store(1_000_000)

	app := w.post("/v1/cards/applications", member1, `{"product_id":"cpd_virtual_std","source_asset":"USDT"}`)
	wantStatus(t, app, http.StatusCreated)
	appID, _ := app.body["id"].(string)
	approved := c.mustControl("POST", "/_sim/cards/applications/"+appID+"/approve", nil)
	w.cardID, _ = approved.body["card_id"].(string)
	if w.cardID == "" {
		t.Fatalf("approve: %v", approved)
	}

	w.payeeID = w.payee(member1, "GBP")

	dl := c.get(w.tok, "/v1/webhooks/deliveries", "")
	wantStatus(t, dl, http.StatusOK)
	rows, _ := dl.body["data"].([]any)
	if len(rows) == 0 {
		t.Fatalf("no delivery row: %s", dl.raw)
	}
	w.delivery, _ = rows[0].(map[string]any)["id"].(string)
	return w
}

// payee returns the id of the member's seeded payee in currency, failing
// the test when there is none.
func (w *world) payee(member, currency string) string {
	w.t.Helper()
	r := w.c.get(w.tok, "/v1/remit/payees", member)
	wantStatus(w.t, r, http.StatusOK)
	for _, p := range r.body["data"].([]any) {
		if p := p.(map[string]any); p["currency"] == currency {
			if id, _ := p["id"].(string); id != "" {
				return id
			}
		}
	}
	w.t.Fatalf("no %s payee for %s in %s", currency, member, r.raw)
	return ""
}

// key returns a fresh idempotency key.
func (w *world) key() string { return uuidN(int(w.keys.Add(1))) }

// post sends a signed POST with a fresh idempotency key.
func (w *world) post(target, member, body string) result {
	w.t.Helper()
	return w.c.write(w.tok, http.MethodPost, target, member, w.key(), []byte(body))
}

// postKey sends a signed POST with the given idempotency key.
func (w *world) postKey(target, member, key, body string) result {
	w.t.Helper()
	return w.c.write(w.tok, http.MethodPost, target, member, key, []byte(body))
}

// fingerprint is everything a request could change that a client can see:
// the snapshot of every object with its history, balances, deliveries and
// events, the ledger journal, the clock, faults, Keys and webhook endpoints
// (the request journal, which every request grows, left out).
func fingerprint(t *testing.T, sim *simulator.Simulator) string {
	t.Helper()
	st := sim.State()
	st.Requests = nil
	b, err := json.Marshal(struct {
		State     simulator.StateSnapshot
		Ledger    []simulator.Entry
		Faults    []simulator.Fault
		Endpoints []simulator.WebhookEndpoint
		Now       time.Time
	}{st, sim.LedgerEntries(), sim.Faults.List(), sim.Webhooks.Endpoints(), sim.Clock.Now()})
	if err != nil {
		t.Fatalf("fingerprint: %v", err)
	}
	return string(b)
}

// unchanged fails t when the fingerprint moved.
func unchanged(t *testing.T, sim *simulator.Simulator, before string) {
	t.Helper()
	if after := fingerprint(t, sim); after != before {
		t.Errorf("the request changed the simulator:\n%s", cmp.Diff(before, after))
	}
}
