package simulator_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// walkList reads a business list to the end with the given page size and
// returns the ids in the order served.
func walkList(t *testing.T, w *world, path, member string, limit int) []string {
	t.Helper()
	var ids []string
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	target := path + sep + "limit=" + strconv.Itoa(limit)
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("%s does not end", path)
		}
		r := w.c.get(w.tok, target, member)
		wantStatus(t, r, http.StatusOK)
		for _, it := range r.body["data"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		if more, _ := r.body["has_more"].(bool); !more {
			return ids
		}
		target = path + sep + "limit=" + strconv.Itoa(limit) + "&cursor=" + url.QueryEscape(r.body["next_cursor"].(string))
	}
}

func reversed(in []string) []string {
	out := slices.Clone(in)
	slices.Reverse(out)
	return out
}

// TestListsNewestFirstWithinOneInstant creates several objects of each list
// in one instant of the simulator clock (it never moves here) and reads
// every list: newest first, objects of the same instant by creation
// sequence (the one created later first), never by their random ids, and
// the same order when paged with a cursor that falls inside the tie.
func TestListsNewestFirstWithinOneInstant(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	start := w.sim.Clock.Now()
	mustCreate := func(r result) string {
		t.Helper()
		wantStatus(t, r, http.StatusCreated)
		id, _ := r.body["id"].(string)
		return id
	}
	var remits, deposits, payees, bindings, cards, apps, txs, topups, qrOrders []string

	for i := 0; i < 6; i++ {
		remits = append(remits, mustCreate(w.post("/v1/remittances", member1,
			`{"payee_id":"`+w.payeeID+`","payout_amount":"10.00","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"}`)))
		deposits = append(deposits, mustCreate(w.post("/v1/deposits", member1,
			`{"asset":"USDT","amount":"1","reference":"order-`+strconv.Itoa(i)+`"}`)))
	}
	for i := 0; i < 5; i++ {
		bindings = append(bindings, mustCreate(w.post("/v1/kyc/quick", member1, `{}`)))
	}
	// The fixture payees (one per corridor, created when first needed) and
	// three more, all in this instant; pye_ ids are numbered in creation
	// order.
	for _, acct := range []string{"11111111", "22222222", "33333333"} {
		mustCreate(w.post("/v1/remit/payees", member1, `{"country":"GB","currency":"GBP","holder_name":"Ada Lovelace","account_number":"`+acct+`","bank_code":"400000"}`))
	}
	for _, p := range w.c.get(w.tok, "/v1/remit/payees?limit=100", member1).body["data"].([]any) {
		payees = append(payees, p.(map[string]any)["id"].(string))
	}
	slices.SortFunc(payees, func(a, b string) int {
		x, _ := strconv.Atoi(strings.TrimPrefix(a, "pye_"))
		y, _ := strconv.Atoi(strings.TrimPrefix(b, "pye_"))
		return x - y
	})
	cards = append(cards, w.cardID)
	apps = append(apps, w.sim.State().CardApplications[0].ID)
	for i := 0; i < 4; i++ {
		app := mustCreate(w.post("/v1/cards/applications", member1, `{"product_id":"cpd_virtual_std","source_asset":"USDT"}`))
		apps = append(apps, app)
		id, _ := w.c.mustControl("POST", "/_sim/cards/applications/"+app+"/approve", nil).body["card_id"].(string)
		cards = append(cards, id)
	}
	for i := 0; i < 6; i++ {
		tx := w.c.mustControl("POST", "/_sim/cards/"+w.cardID+"/transactions", map[string]any{
			"kind": "auth", "status": "pending", "direction": "debit", "amount": "100", "occurred_at": start,
		})
		txs = append(txs, tx.body["id"].(string))
		topups = append(topups, mustCreate(w.post("/v1/cards/"+cards[1]+"/topups", member1, `{"amount":"10"}`)))
	}
	for i := 0; i < 3; i++ {
		key, body := w.key(), `{"code_value":"`+w.qr+`"}`
		ch := w.stepUp(w.postKey("/v1/qrpay/payments", member1, key, body))
		qrOrders = append(qrOrders, mustCreate(w.keyedSend("/v1/qrpay/payments", member1, key, body, withStepUp(ch))))
	}
	// Updating a transaction keeps its place: its creation is unchanged.
	w.c.mustControl("POST", "/_sim/cards/"+w.cardID+"/transactions", map[string]any{
		"id": txs[2], "kind": "auth", "status": "succeed", "direction": "debit", "amount": "0", "occurred_at": start,
	})
	// Webhook deliveries: two endpoints, three events, each fanned out in
	// endpoint order; plus the fixture's no_subscriber row.
	for _, u := range []string{"http://127.0.0.1:9/a", "http://127.0.0.1:9/b"} {
		w.c.mustControl("POST", "/_sim/webhooks/endpoints", map[string]any{"url": u})
	}
	var events []string
	for i := 0; i < 3; i++ {
		r := w.c.mustControl("POST", "/_sim/webhooks/events", map[string]any{
			"event_type": "member.created", "object": "member", "id": "m" + strconv.Itoa(i), "external_member_id": member1, "status": "created",
		})
		events = append(events, r.body["event_id"].(string))
	}
	var deliveries []string
	var deliveryEvents []string
	for _, d := range w.sim.Webhooks.Deliveries() {
		deliveries = append(deliveries, d.ID)
		deliveryEvents = append(deliveryEvents, d.EventID)
	}
	// WebhookDeliveries is creation order: the fan-out rows of each event
	// follow the event order.
	if got := deliveryEvents[len(deliveryEvents)-6:]; !slices.Equal(got, []string{events[0], events[0], events[1], events[1], events[2], events[2]}) {
		t.Fatalf("WebhookDeliveries is not in creation order: events %v", got)
	}
	if !w.sim.Clock.Now().Equal(start) {
		t.Fatalf("the clock moved: %v", w.sim.Clock.Now())
	}

	lists := []struct {
		name, path string
		member     string
		created    []string // creation order
		limit      int      // a page size that cuts the tie
	}{
		{"GET /v1/remittances", "/v1/remittances", member1, remits, 4},
		{"GET /v1/deposits", "/v1/deposits", "", deposits, 4},
		{"GET /v1/kyc/quick", "/v1/kyc/quick", member1, bindings, 2},
		{"GET /v1/remit/payees", "/v1/remit/payees", member1, payees, 3},
		{"GET /v1/cards", "/v1/cards", member1, cards, 2},
		{"GET /v1/cards/{id}/transactions", "/v1/cards/" + w.cardID + "/transactions", member1, txs, 4},
		{"GET /v1/webhooks/deliveries", "/v1/webhooks/deliveries", "", deliveries, 3},
	}
	for _, l := range lists {
		want := reversed(l.created)
		for _, limit := range []int{100, l.limit, 1} {
			if got := walkList(t, w, l.path, l.member, limit); !slices.Equal(got, want) {
				t.Errorf("%s, limit %d:\n%s", l.name, limit, cmp.Diff(want, got))
			}
		}
	}
	deps := w.c.get(w.tok, "/v1/deposits?reference=order-3", "")
	if data := deps.body["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != deposits[3] {
		t.Errorf("GET /v1/deposits?reference=: %s", deps.raw)
	}

	// The control API and the Go API: creation order (oldest first) for the
	// journal, events, deliveries, ledger and members; the dashboard
	// snapshot newest first.
	st := w.sim.State()
	snapIDs := func(list []simulator.ObjectSnapshot) []string {
		var out []string
		for _, o := range list {
			out = append(out, o.ID)
		}
		return out
	}
	for name, pair := range map[string][2][]string{
		"State().Remittances":      {snapIDs(st.Remittances), reversed(remits)},
		"State().Deposits":         {snapIDs(st.Deposits), reversed(deposits)},
		"State().Cards":            {snapIDs(st.Cards), reversed(cards)},
		"State().CardTopUps":       {snapIDs(st.CardTopUps)[:len(topups)], reversed(topups)},
		"State().CardApplications": {snapIDs(st.CardApplications), reversed(apps)},
		"State().QROrders":         {snapIDs(st.QROrders), reversed(qrOrders)},
	} {
		if !slices.Equal(pair[0], pair[1]) {
			t.Errorf("%s:\n%s", name, cmp.Diff(pair[1], pair[0]))
		}
	}
	var evIDs []string
	for _, e := range w.sim.Events.List() {
		evIDs = append(evIDs, e.ID)
	}
	if got := evIDs[len(evIDs)-3:]; !slices.Equal(got, events) {
		t.Errorf("Events() is not in creation order: %v, want %v", got, events)
	}
	var stEvents, stDeliveries []string
	for _, e := range st.Events {
		stEvents = append(stEvents, e.ID)
	}
	for _, d := range st.WebhookDeliveries {
		stDeliveries = append(stDeliveries, d.ID)
	}
	if !slices.Equal(stEvents, reversed(evIDs)) || !slices.Equal(stDeliveries, reversed(deliveries)) {
		t.Error("State() events or deliveries are not the reverse of creation order")
	}
	reqs := w.sim.Requests.List()
	for i := 1; i < len(reqs); i++ {
		if reqs[i].Seq != reqs[i-1].Seq+1 {
			t.Fatalf("Requests() out of arrival order at %d: %d after %d", i, reqs[i].Seq, reqs[i-1].Seq)
		}
	}
	if st.Requests[0].Seq != reqs[len(reqs)-1].Seq || st.Requests[len(st.Requests)-1].Seq != reqs[0].Seq {
		t.Error("State().Requests is not newest first")
	}
	var journal struct {
		Data []simulator.RequestRecord `json:"data"`
	}
	if err := json.Unmarshal(w.c.mustControl("GET", "/_sim/requests", nil).raw, &journal); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(journal.Data); i++ {
		if journal.Data[i].Seq <= journal.Data[i-1].Seq {
			t.Fatalf("GET /_sim/requests out of arrival order at %d", i)
		}
	}
	entries := w.sim.LedgerEntries()
	for i := 1; i < len(entries); i++ {
		if entries[i].Seq <= entries[i-1].Seq {
			t.Fatalf("LedgerEntries() out of creation order at %d", i)
		}
	}
	// Control API lists carry the same orders as the Go API.
	for path, want := range map[string][]string{
		"/_sim/webhooks/deliveries": deliveries,
		"/_sim/events":              evIDs,
	} {
		r := w.c.mustControl("GET", path, nil)
		var got []string
		items, _ := r.body["data"].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			id, _ := m["id"].(string) // deliveries
			if path == "/_sim/events" {
				id, _ = m["event_id"].(string)
			}
			got = append(got, id)
		}
		if !slices.Equal(got, want) {
			t.Errorf("GET %s:\n%s", path, cmp.Diff(want, got))
		}
	}
	var members struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.c.mustControl("GET", "/_sim/members", nil).raw, &members); err != nil {
		t.Fatal(err)
	}
	for i, m := range st.Members {
		if members.Data[i].ID != m.ID {
			t.Errorf("GET /_sim/members and State().Members differ at %d", i)
		}
	}
}
