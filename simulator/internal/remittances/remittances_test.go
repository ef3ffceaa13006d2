package remittances

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// fakeHost is a Host with two assets (USDT and USDC, scale 6), a small
// ledger that refuses to take a member or prepaid account below zero, and
// records of what the line asked for: entries, outcomes. The clock, ids,
// amounts and events are the transaction's (begin).
type fakeHost struct {
	k         *kernel.Kernel       // the kernel of the test's transaction (begin)
	svc       *kerneltest.Services // its services (begin): the merchant's custody model
	now       time.Time
	status    string // merchant status
	members   map[string]*api.Member
	inReview  map[string]bool
	balances  map[string]money.Amount // account|asset
	entries   []string
	inFlight  map[string]bool
	settledID []string
}

func newFakeHost() *fakeHost {
	return &fakeHost{
		now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), status: "active",
		members: map[string]*api.Member{}, inReview: map[string]bool{}, balances: map[string]money.Amount{}, inFlight: map[string]bool{},
	}
}

// member adds a member with KYC level kyc and a profile, holding usdt in
// its available balance.
func (h *fakeHost) member(id string, kyc int, usdt string) *api.Member {
	m := &api.Member{ID: id, ExternalID: "ext-" + id, KYCLevel: kyc, Status: "active", HasKYCProfile: true, CreatedAt: h.now}
	h.members[id] = m
	h.balances["member:"+id+":available|USDT"] = money.MustParse(usdt, 6)
	return m
}

func (h *fakeHost) MerchantStatus(*kernel.Tx) (string, bool)   { return h.status, h.status == "active" }
func (h *fakeHost) Member(_ *kernel.Tx, id string) *api.Member { return h.members[id] }
func (h *fakeHost) MemberByExternal(_ *kernel.Tx, ext string) *api.Member {
	for _, m := range h.members {
		if m.ExternalID == ext {
			return m
		}
	}
	return nil
}
func (h *fakeHost) HasKYCProfile(_ *kernel.Tx, m *api.Member) bool {
	return m.HasKYCProfile
}
func (h *fakeHost) KYCInReview(_ *kernel.Tx, m *api.Member) bool { return h.inReview[m.ID] }
func (h *fakeHost) Balance(_ *kernel.Tx, account, asset string) money.Amount {
	if b, ok := h.balances[account+"|"+asset]; ok {
		return b
	}
	return money.Zero(6)
}

// Post applies the entry, or nothing when it is unbalanced or takes a
// member or prepaid account below zero.
func (h *fakeHost) Post(_ *kernel.Tx, _ time.Time, memo string, postings ...kernel.Posting) error {
	sum := money.Zero(6)
	next := map[string]money.Amount{}
	var legs []string
	for _, p := range postings {
		key := p.Account + "|" + p.Asset
		b, ok := next[key]
		if !ok {
			b = h.Balance(nil, p.Account, p.Asset)
		}
		b, _ = b.Add(p.Amount)
		if b.IsNegative() && (strings.HasPrefix(p.Account, "member:") || strings.HasPrefix(p.Account, "merchant:prepaid")) {
			return errors.New("balance constraint")
		}
		next[key] = b
		sum, _ = sum.Add(p.Amount)
		legs = append(legs, p.Account+" "+p.Amount.String())
	}
	if !sum.IsZero() {
		return errors.New("unbalanced")
	}
	for k, v := range next {
		h.balances[k] = v
	}
	h.entries = append(h.entries, memo+": "+strings.Join(legs, ", "))
	return nil
}
func (h *fakeHost) InFlight(_ *kernel.Tx, id string) { h.inFlight[id] = true }
func (h *fakeHost) Settled(_ *kernel.Tx, id string) {
	delete(h.inFlight, id)
	h.settledID = append(h.settledID, id)
}

// services are the kernel's services of the line's tests: kerneltest's
// clock, ids, amounts and events, with transfers posted to the fake host's
// ledger, so that a Transfer and a Post move the same balances.
type services struct {
	*kerneltest.Services
	h *fakeHost
}

// InFlight and Settled keep the fake host's set of orders in flight.
func (s services) InFlight(tx *kernel.Tx, _, id string) { s.h.InFlight(tx, id) }
func (s services) Settled(tx *kernel.Tx, id string)     { s.h.Settled(tx, id) }

// Post posts an entry to the fake host's ledger.
func (s services) Post(tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error {
	return s.h.Post(tx, at, memo, legs...)
}

// Balance reads the fake host's ledger.
func (s services) Balance(tx *kernel.Tx, account, asset string) money.Amount {
	return s.h.Balance(tx, account, asset)
}

// begin begins a transaction with kerneltest's services on h's clock and
// ledger, and the fake host's two assets.
func begin(h *fakeHost) (*kerneltest.Services, *kernel.Tx) {
	svc := kerneltest.New()
	svc.Clock = h.now
	svc.Scales["USDC"] = 6
	k := new(kernel.Kernel)
	k.Provide(services{svc, h})
	h.k, h.svc = k, svc
	return svc, k.BeginSetup()
}

// events names the events emitted, in order.
func events(svc *kerneltest.Services) []string {
	var out []string
	for _, e := range svc.Events {
		out = append(out, fmt.Sprintf("%s %s %s %s %s v%d", e.Type, e.Object, e.ObjectID, e.MemberID, e.Status, e.Version))
	}
	return out
}

// call runs the endpoint of method and pattern on the line for member m.
func call(t *testing.T, l *Line, tx *kernel.Tx, h *fakeHost, m *api.Member, method, target, body, idemKey string) (int, map[string]any, error) {
	t.Helper()
	path, _, _ := strings.Cut(target, "?")
	for _, e := range l.Endpoints() {
		pattern := e.Pattern
		byID := strings.HasSuffix(pattern, "{id}") && strings.HasPrefix(path, strings.TrimSuffix(pattern, "{id}"))
		if e.Method != method || (pattern != path && !byID) {
			continue
		}
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		if byID {
			r.SetPathValue("id", strings.TrimPrefix(path, strings.TrimSuffix(pattern, "{id}")))
		}
		c := &api.Request{Tx: tx, Req: r, Now: h.now, Body: []byte(body), Member: m, IdemKey: idemKey, Header: http.Header{}}
		status, v, err := e.Handle(c)
		if err != nil {
			return status, nil, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return status, out, nil
	}
	t.Fatalf("no endpoint %s %s", method, target)
	return 0, nil, nil
}

func codeOf(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return ""
}

// remit is the body of a remittance to payee of payout.
func remit(payee, payout string, extra ...string) string {
	return `{"payee_id":"` + payee + `","payout_amount":"` + payout + `","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"` +
		strings.Join(extra, "") + `}`
}

// The fixture payees of a member are created on first use, one per
// corridor, numbered from 100001: GB (GBP) first, NG (NGN) last.
const (
	payeeGB = "pye_100001"
	payeeNG = "pye_100007"
)

// TestCreateRules runs POST /v1/remittances against the line alone: one
// row per check of createRemittance's documented order, and the order
// that passes them all. A refused request changes nothing.
func TestCreateRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(h *fakeHost, m *api.Member, l *Line, tx *kernel.Tx)
		body   string
		status int
		code   string
		first  string // the status of a created order
	}{
		{name: "dispatching under the review threshold", body: remit(payeeGB, "100.00"), status: 201, first: "dispatching"},
		{name: "reviewing at the threshold", body: remit(payeeGB, "800.00"), status: 201, first: "reviewing"},
		{name: "source_amount refused", body: `{"source_amount":"1"}`, code: "invalid_request"},
		{name: "payee_id missing", body: `{"payout_amount":"1.00"}`, code: "invalid_request"},
		{name: "payee_id not digits", body: remit("pye_x1", "100.00"), code: "invalid_request"},
		{name: "payout_amount not positive", body: remit(payeeGB, "0.00"), code: "invalid_request"},
		{name: "payout_amount over 32 characters", body: remit(payeeGB, "1"+strings.Repeat("0", 32)), code: "invalid_request"},
		{name: "slippage out of range", body: `{"payee_id":"` + payeeGB + `","payout_amount":"100.00","slippage_bps":49,"purpose_code":"GIFT"}`, code: "invalid_fields"},
		{name: "purpose unknown", body: `{"payee_id":"` + payeeGB + `","payout_amount":"100.00","slippage_bps":100,"purpose_code":"NOPE"}`, code: "invalid_request"},
		{name: "funding merchant on platform_hosted", body: remit(payeeGB, "100.00", `,"funding_source":"merchant"`), code: "invalid_fields"},
		{name: "funding member on merchant_hosted", setup: func(h *fakeHost, _ *api.Member, _ *Line, _ *kernel.Tx) { h.svc.Model = kernel.MerchantHosted }, body: remit(payeeGB, "100.00"), code: "invalid_fields"},
		{name: "debit asset not served", body: remit(payeeGB, "100.00", `,"asset":"BTC"`), code: "product_not_available"},
		{name: "payee unknown to the member", body: remit("pye_999", "100.00"), code: "resource_not_found"},
		{name: "corridor not served", body: remit(payeeNG, "100.00"), code: "corridor_not_supported"},
		{name: "payout decimals not the currency's", body: remit(payeeGB, "100.0"), code: "invalid_request"},
		{name: "purpose not permitted on the line", body: `{"payee_id":"` + payeeGB + `","payout_amount":"100.00","slippage_bps":100,"purpose_code":"SALARY_PAYMENT"}`, code: "invalid_fields"},
		{name: "pobo without a subaccount", setup: func(_ *fakeHost, m *api.Member, l *Line, tx *kernel.Tx) {
			m.KYCLevel = 2
			l.SetPOBOSubaccount(tx, false)
		}, body: `{"payee_id":"` + payeeGB + `","payout_amount":"100.00","slippage_bps":100,"purpose_code":"GOODS_PURCHASED","line":"pobo"}`, code: "product_not_available"},
		{name: "KYC level under the line's", body: `{"payee_id":"` + payeeGB + `","payout_amount":"100.00","slippage_bps":100,"purpose_code":"GOODS_PURCHASED","line":"pobo"}`, code: "kyc_required"},
		{name: "KYC profile in review", setup: func(h *fakeHost, m *api.Member, _ *Line, _ *kernel.Tx) { h.inReview[m.ID] = true }, body: remit(payeeGB, "100.00"), code: "kyc_required"},
		{name: "member frozen", setup: func(_ *fakeHost, m *api.Member, _ *Line, _ *kernel.Tx) { m.Status = "frozen" }, body: remit(payeeGB, "100.00"), code: "request_rejected"},
		{name: "under the line minimum", body: remit(payeeGB, "1.00"), code: "amount_out_of_range"},
		{name: "over the per-order maximum", body: remit(payeeGB, "4000.00"), code: "limit_exceeded"},
		{name: "member balance short", setup: func(h *fakeHost, m *api.Member, _ *Line, _ *kernel.Tx) {
			h.balances["member:"+m.ID+":available|USDT"] = money.MustParse("5", 6)
		}, body: remit(payeeGB, "100.00"), code: "insufficient_balance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newFakeHost()
			svc, tx := begin(h)
			defer tx.End()
			m := h.member("mem_1", 1, "2000")
			l := New(h.k, h)
			if tt.setup != nil {
				tt.setup(h, m, l, tx)
			}
			before := fmt.Sprint(h.balances)
			status, body, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remittances", tt.body, "k1")
			if status != tt.status || codeOf(err) != tt.code {
				t.Fatalf("status %d, code %q (%v); want %d, %q", status, codeOf(err), err, tt.status, tt.code)
			}
			if tt.code != "" {
				if got := fmt.Sprint(h.balances); got != before || len(l.Orders(tx)) != 0 || len(svc.Events) != 0 {
					t.Errorf("a refusal changed something: balances %s (were %s), %d orders, events %v", got, before, len(l.Orders(tx)), svc.Events)
				}
				return
			}
			orders := l.Orders(tx)
			if len(orders) != 1 || orders[0].ID != body["id"] || orders[0].Status != tt.first || !h.inFlight[orders[0].ID] {
				t.Fatalf("orders %+v, answer %v, in flight %v", orders, body, h.inFlight)
			}
			if len(l.Holds(tx)) != 1 || l.Holds(tx)[0].Account != "member:mem_1:locked" {
				t.Errorf("holds %+v", l.Holds(tx))
			}
		})
	}
}

// TestQuote prices a quote without holding anything: principal rounded
// up at the ledger scale, plus the line fee, times the slippage.
func TestQuote(t *testing.T) {
	t.Parallel()
	h := newFakeHost()
	_, tx := begin(h)
	defer tx.End()
	m := h.member("mem_1", 1, "2000")
	l := New(h.k, h)
	_, got, err := call(t, l, tx, h, m, http.MethodGet, "/v1/remit/quotes?payee_id="+payeeGB+"&payout_amount=100.00&slippage_bps=100", "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"payee_id": payeeGB, "line": "express", "source_asset": "USDT", "ledger_scale": float64(6),
		"customer_total": "129.388536", "fee": "2.000000", "locked_amount": "130.682422",
		"slippage_bps": float64(100), "indicative_rate": "0.7850", "payout_currency": "GBP", "payout_amount": "100.00",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quote (-want +got):\n%s", diff)
	}
	if len(h.entries) != 0 {
		t.Errorf("a quote posted %v", h.entries)
	}
}

// TestStateMachine drives one order through each path of the transition
// table and checks the statuses, events, outcomes and that the ledger
// holds nothing for a final order.
func TestStateMachine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		actions []string
		want    []string // public status after each action ("" for a refusal)
		events  []string
	}{
		{"advance to completed", []string{"advance", "advance", "advance"}, []string{"processing", "completed", ""},
			[]string{"remittance.order.completed remittance u9 mem_1 completed v3"}},
		{"dispatch then complete", []string{"dispatch", "complete"}, []string{"processing", "completed"},
			[]string{"remittance.order.completed remittance u9 mem_1 completed v3"}},
		{"fail returns the hold", []string{"fail"}, []string{"failed"},
			[]string{"remittance.order.failed remittance u9 mem_1 failed v2"}},
		{"refund after completion", []string{"dispatch", "complete", "refund"}, []string{"processing", "completed", "refunded"},
			[]string{"remittance.order.completed remittance u9 mem_1 completed v3", "remittance.order.refunded remittance u9 mem_1 refunded v4"}},
		{"reconfirm, then dispatch again", []string{"needs_reconfirm", "dispatch", "complete"}, []string{"needs_reconfirm", "processing", "completed"},
			[]string{"remittance.order.action_required remittance u9 mem_1 needs_reconfirm v2", "remittance.order.completed remittance u9 mem_1 completed v4"}},
		{"refund before completion refused", []string{"refund", "complete"}, []string{"", ""}, nil},
		{"unknown action refused", []string{"explode"}, []string{""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newFakeHost()
			svc, tx := begin(h)
			defer tx.End()
			m := h.member("mem_1", 1, "2000")
			l := New(h.k, h)
			_, body, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remittances", remit(payeeGB, "100.00"), "k1")
			if err != nil {
				t.Fatal(err)
			}
			id := body["id"].(string)
			var got []string
			for _, a := range tt.actions {
				st, err := l.Control(tx, strings.TrimPrefix(id, "rmt_"), a, nil)
				if err != nil {
					st = ""
				}
				got = append(got, st)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.events, events(svc)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			final := got[len(got)-1]
			if final == "completed" || final == "failed" || final == "refunded" {
				if len(l.Holds(tx)) != 0 || h.inFlight[id] {
					t.Errorf("a %s order still holds %+v (in flight %v)", final, l.Holds(tx), h.inFlight[id])
				}
				if b := h.Balance(nil, "member:mem_1:locked", "USDT"); !b.IsZero() {
					t.Errorf("member locked balance %s after %s", b, final)
				}
			}
			if bad := l.Invariants(tx); len(bad) != 0 {
				t.Errorf("invariants: %v", bad)
			}
		})
	}
}

// TestMerchantQueue: a merchant-funded order the prepaid cannot cover
// waits (pending, nothing held), advances once funded and the merchant
// is active, and the queue stays put while the merchant is not.
func TestMerchantQueue(t *testing.T) {
	t.Parallel()
	h := newFakeHost()
	_, tx := begin(h)
	defer tx.End()
	h.svc.Model = kernel.MerchantHosted
	m := h.member("mem_1", 1, "0")
	l := New(h.k, h)
	_, body, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remittances", remit(payeeGB, "100.00", `,"funding_source":"merchant"`), "k1")
	if err != nil {
		t.Fatal(err)
	}
	if body["status"] != "pending" || len(h.entries) != 0 || len(l.Holds(tx)) != 0 {
		t.Fatalf("queued order: %v, entries %v, holds %v", body, h.entries, l.Holds(tx))
	}
	h.balances["merchant:prepaid|USDT"] = money.MustParse("1000", 6)
	h.status = "suspended"
	l.AdvanceQueued(tx)
	if st := l.Orders(tx)[0].Status; st != "pending_merchant_funds" {
		t.Fatalf("advanced while the merchant is suspended: %s", st)
	}
	h.status = "active"
	l.AdvanceQueued(tx)
	o := l.Orders(tx)[0]
	if o.Status != "platform_reviewing" || !h.inFlight[o.ID] {
		t.Fatalf("after the top-up: %s, in flight %v", o.Status, h.inFlight[o.ID])
	}
	if diff := cmp.Diff([]Hold{{Account: "merchant:prepaid_locked", Asset: "USDT", Amount: o.Locked, Owner: o.ID + " (platform_reviewing)"}}, l.Holds(tx)); diff != "" {
		t.Errorf("holds (-want +got):\n%s", diff)
	}
}

// TestInvariants: a queued order that holds funds breaks a structural
// rule the ledger's sums cannot show.
func TestInvariants(t *testing.T) {
	t.Parallel()
	h := newFakeHost()
	_, tx := begin(h)
	defer tx.End()
	m := h.member("mem_1", 1, "0")
	l := New(h.k, h)
	l.st.orders.Put(tx, "rmt_q", order{ID: "rmt_q", MemberID: m.ID, Status: "pending_merchant_funds", Funding: "member",
		Asset: "USDT", Locked: money.MustParse("5", 6), Held: true})
	want := []string{"remittance rmt_q waits for merchant funds but holds 5.000000 USDT"}
	if diff := cmp.Diff(want, l.Invariants(tx)); diff != "" {
		t.Errorf("invariants (-want +got):\n%s", diff)
	}
}

// TestPayeesAndVP: the fixture payees, a saved payee and its duplicate,
// and the VP applications query for a known, an unknown and a foreign
// member.
func TestPayeesAndVP(t *testing.T) {
	t.Parallel()
	h := newFakeHost()
	_, tx := begin(h)
	defer tx.End()
	m := h.member("mem_1", 1, "0")
	h.members["mem_x"] = &api.Member{ID: "mem_x", ExternalID: "ext-x", MerchantID: "mch_other", HasKYCProfile: true}
	l := New(h.k, h)
	_, list, err := call(t, l, tx, h, m, http.MethodGet, "/v1/remit/payees?limit=100", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list["data"].([]any)); n != len(remitCorridors) {
		t.Errorf("%d fixture payees, want %d", n, len(remitCorridors))
	}
	saved := `{"country":"gb","currency":"gbp","holder_name":"Ann Lee","account_number":"GB11 2233"}`
	if status, p, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remit/payees", saved, "p1"); status != 201 || p["id"] != "pye_100008" {
		t.Errorf("save payee: %d %v %v", status, p, err)
	}
	if _, _, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remit/payees", saved, "p2"); codeOf(err) != "duplicate_resource" {
		t.Errorf("duplicate payee: %v", err)
	}
	if _, _, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remit/payees", `{"country":"G1","currency":"XXX"}`, "p3"); codeOf(err) != "invalid_fields" {
		t.Errorf("bad payee: %v", err)
	}
	_, vp, err := call(t, l, tx, h, m, http.MethodPost, "/v1/remit/vp/applications/query", `{"members":["mem_1","ext-x","nobody"]}`, "")
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	for _, it := range vp["items"].([]any) {
		item := it.(map[string]any)
		stages = append(stages, fmt.Sprint(item["stage"], "/", item["error"]))
	}
	sort.Strings(stages)
	if diff := cmp.Diff([]string{"<nil>/member_not_found", "<nil>/member_not_found", "active/<nil>"}, stages); diff != "" {
		t.Errorf("VP stages (-want +got):\n%s", diff)
	}
	if c := l.Counts(tx); c != (Counts{Payees: 8, VPApplications: 1}) {
		t.Errorf("counts %+v", c)
	}
}
