package devtools

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// fakeSource lists fixed objects; the views never pass its Tx on to
// anything but the Source.
type fakeSource struct {
	qr      []qrpay.Order
	apps    []cardline.Snapshot
	remit   []remittances.Order
	deps    []deposits.Deposit
	events  []hookline.Event
	members map[string]string
}

func (f fakeSource) QROrders(*kernel.Tx) []qrpay.Order               { return f.qr }
func (f fakeSource) CardApplications(*kernel.Tx) []cardline.Snapshot { return f.apps }
func (f fakeSource) Cards(*kernel.Tx) []cardline.Snapshot            { return nil }
func (f fakeSource) CardTopUps(*kernel.Tx) []cardline.Snapshot       { return nil }
func (f fakeSource) Remittances(*kernel.Tx) []remittances.Order      { return f.remit }
func (f fakeSource) Deposits(*kernel.Tx) []deposits.Deposit          { return f.deps }
func (f fakeSource) Events(*kernel.Tx) []hookline.Event              { return f.events }
func (f fakeSource) ExternalID(_ *kernel.Tx, memberID string) string { return f.members[memberID] }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func amt(s string) money.Amount { return money.MustParse(s, 2) }

// TestReadOrdersAndHistories: each list is newest first, an instant shared
// by two objects puts the later-created first, a card's member is named by
// its external id, histories are found with and without the id's prefix,
// an object without events has an empty (not nil) history, and an unwired
// line lists an empty (not nil) list.
func TestReadOrdersAndHistories(t *testing.T) {
	t.Parallel()
	src := fakeSource{
		qr: []qrpay.Order{
			{Seq: 1, ID: "qrp_1", ExternalMemberID: "m-1", Status: "completed", Version: 3, CreatedAt: t0, Asset: "USDT",
				CustomerTotal: amt("10.50"), Fee: amt("0.50"), Payee: "SHOP", Currency: "THB", Amount: "350.00", Trace: []string{"quote"}},
			{Seq: 2, ID: "qrp_2", Status: "processing", Version: 1, CreatedAt: t0, Asset: "USDT", CustomerTotal: amt("1.00"), Fee: amt("0"),
				Payee: "SHOP", MerchantFunded: true, FeeAsset: "USDT", FeeAmount: amt("0.10"), NoticeTimedOut: true},
		},
		apps: []cardline.Snapshot{{Seq: 7, ID: "cap_7", MemberID: "mem_1", Status: "approved", StatusVersion: 2, CreatedAt: t0.Add(time.Minute), Summary: "virtual"}},
		remit: []remittances.Order{{Seq: 3, ID: "rmt_3", Status: "pending_merchant_funds", PublicStatus: "processing", Version: 1, CreatedAt: t0,
			Asset: "USDT", CustomerTotal: amt("100"), PayoutAmount: "80.00", PayoutCurrency: "GBP", Line: "express", FailureCode: "x"}},
		deps: []deposits.Deposit{{Seq: 4, Reference: "ref4", ExternalID: "m-1", Asset: "USDT", Amount: amt("5"), Network: "TRON", CreatedAt: t0}},
		events: []hookline.Event{
			{ID: "evt_1", Type: "qrpay.order.completed", CreatedAt: t0, Object: "qrpay_order", ObjectID: "1", Status: "completed", StatusVersion: 3},
			{ID: "evt_2", Type: "card.application.approved", CreatedAt: t0, Object: "card_application", ObjectID: "cap_7", Status: "approved", StatusVersion: 2},
			{ID: "evt_3", Type: "deposit.credited", CreatedAt: t0, Object: "deposit", ObjectID: "4", Status: "credited", StatusVersion: 1},
		},
		members: map[string]string{"mem_1": "m-1"},
	}
	got := Read(nil, src)
	ids := func(os []Object) []string {
		out := []string{}
		for _, o := range os {
			out = append(out, o.ID)
		}
		return out
	}
	if diff := cmp.Diff([]string{"qrp_2", "qrp_1"}, ids(got.QROrders)); diff != "" {
		t.Errorf("QR orders (-want +got):\n%s", diff)
	}
	q1 := got.QROrders[1]
	if diff := cmp.Diff([]History{{At: t0, EventID: "evt_1", EventType: "qrpay.order.completed", Status: "completed", StatusVersion: 3}}, q1.History); diff != "" {
		t.Errorf("qrp_1 history by bare id (-want +got):\n%s", diff)
	}
	if q1.Summary != "10.50 USDT to SHOP (350.00 THB)" || q1.Details["fee"] != "0.50" || q1.Trace[0] != "quote" {
		t.Errorf("qrp_1 = %+v", q1)
	}
	if q2 := got.QROrders[0]; q2.History == nil || len(q2.History) != 0 || q2.Details["funding"] != "merchant" ||
		q2.Details["fee_amount"] != "0.10" || q2.Details["notice"] != "timed out" {
		t.Errorf("qrp_2 = %+v", q2)
	}
	if a := got.CardApplications; len(a) != 1 || a[0].ExternalMemberID != "m-1" || len(a[0].History) != 1 {
		t.Errorf("card applications = %+v", a)
	}
	if got.Cards == nil || len(got.Cards) != 0 || got.CardTopUps == nil {
		t.Errorf("unwired lists: %#v %#v", got.Cards, got.CardTopUps)
	}
	if r := got.Remittances; len(r) != 1 || r[0].Status != "processing" || r[0].Details["internal_status"] != "pending_merchant_funds" ||
		r[0].Details["failure_code"] != "x" || r[0].Summary != "80.00 GBP for 100.00 USDT" {
		t.Errorf("remittances = %+v", r)
	}
	if d := got.Deposits; len(d) != 1 || d[0].ID != "dep_ref4" || d[0].Details["internal_id"] != "4" || d[0].Details["network"] != "TRON" || len(d[0].History) != 1 {
		t.Errorf("deposits = %+v", d)
	}
}

// TestListsKeepTheNewest: a list longer than ListCap keeps its newest
// ListCap items, newest first.
func TestListsKeepTheNewest(t *testing.T) {
	t.Parallel()
	var deps []deposits.Deposit
	in := make([]int, ListCap+3)
	for i := range in {
		in[i] = i
		deps = append(deps, deposits.Deposit{Seq: int64(i), Reference: "r", CreatedAt: t0})
	}
	got := NewestFirst(in)
	if len(got) != ListCap || got[0] != ListCap+2 || got[ListCap-1] != 3 {
		t.Errorf("NewestFirst: %d items, first %d, last %d", len(got), got[0], got[len(got)-1])
	}
	objs := Read(nil, fakeSource{deps: deps}).Deposits
	if len(objs) != ListCap || objs[0].Details["internal_id"] != "502" || objs[ListCap-1].Details["internal_id"] != "3" {
		t.Errorf("deposits: %d, first %s, last %s", len(objs), objs[0].Details["internal_id"], objs[len(objs)-1].Details["internal_id"])
	}
	if got := NewestFirst([]int(nil)); got == nil || len(got) != 0 {
		t.Errorf("NewestFirst(nil) = %#v", got)
	}
}

func TestDashboard(t *testing.T) {
	t.Parallel()
	h, err := Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		status int
		body   string
	}{
		{"/_sim/ui/", 200, "<html"},
		{"/_sim/ui/app.js", 200, `fetch("/_sim/state"`},
		{"/_sim/ui/style.css", 200, ".badge"},
		{"/_sim/ui/nothing.js", 404, ""},
	}
	for _, name := range DashboardFiles {
		if !strings.Contains(tests[1].path+tests[2].path, name) {
			t.Errorf("DashboardFiles names %s, which this test does not fetch", name)
		}
	}
	for _, tc := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		b, _ := io.ReadAll(rec.Body)
		if rec.Code != tc.status || !strings.Contains(string(b), tc.body) {
			t.Errorf("GET %s = %d %.80q, want %d with %q", tc.path, rec.Code, b, tc.status, tc.body)
		}
		// (http.Error drops Cache-Control from a 404.)
		if (tc.status == 200 && rec.Header().Get("Cache-Control") != "no-store") || !strings.HasPrefix(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("GET %s headers %v", tc.path, rec.Header())
		}
	}
}
