package simulator_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// controlJSON calls the control API and decodes its answer into out.
func controlJSON(t *testing.T, sim *simulator.Simulator, method, path string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, sim.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json") // control writes are JSON
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode
}

// devtoolsQROrder pays a 250 THB code for member-1 and returns the order id.
func devtoolsQROrder(t *testing.T, ctx context.Context, sim *simulator.Simulator, client *mwclient.Client) string {
	t.Helper()
	code := emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
			Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER1"}}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
	p := qrpay.PayParams{CodeValue: code, PreferredAsset: "USDT"}
	_, err := client.QRPay.Pay(ctx, "member-1", p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("pay: %v", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	o, err := client.QRPay.Pay(ctx, "member-1", p, su.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

func TestStateSnapshot(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	ctx := context.Background()
	client := sim.Client()

	qrID := devtoolsQROrder(t, ctx, sim, client)
	if _, err := sim.Action("qrpay/orders/complete", qrID, nil); err != nil {
		t.Fatal(err)
	}
	app, err := client.Cards.Apply(ctx, "member-1", cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	var payee string
	for p, err := range client.Remittances.Payees(ctx, "member-1", mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Currency == "GBP" {
			payee = p.ID
			break
		}
	}
	rmt, err := client.Remittances.Create(ctx, "member-1", remittance.CreateParams{PayeeID: payee, PayoutAmount: "10.00",
		PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: "FAMILY_SUPPORT"})
	if err != nil {
		t.Fatal(err)
	}
	dep, err := client.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "ref-1"})
	if err != nil {
		t.Fatal(err)
	}

	var got simulator.StateSnapshot
	if status := controlJSON(t, sim, http.MethodGet, "/_sim/state", &got); status != http.StatusOK {
		t.Fatalf("GET /_sim/state: %d", status)
	}
	if diff := cmp.Diff(sim.State(), got); diff != "" {
		t.Errorf("GET /_sim/state differs from State() (-Go +HTTP):\n%s", diff)
	}

	avail, locked, err := sim.Members.Balance("member-1", "USDT")
	if err != nil {
		t.Fatal(err)
	}
	want := simulator.BalanceSnapshot{Asset: "USDT", Available: avail.String(), Locked: locked.String()}
	if len(got.Members) != 1 || got.Members[0].ExternalMemberID != "member-1" || !cmp.Equal(got.Members[0].Balances[0], want) {
		t.Errorf("members %+v, want member-1 with %+v", got.Members, want)
	}

	type brief struct {
		ID, Status string
		Version    int64
		History    []string // event_type@status_version
	}
	briefs := func(list []simulator.ObjectSnapshot) []brief {
		var out []brief
		for _, o := range list {
			b := brief{ID: o.ID, Status: o.Status, Version: o.StatusVersion}
			for _, h := range o.History {
				b.History = append(b.History, h.EventType+"@"+h.Status)
			}
			out = append(out, b)
		}
		return out
	}
	cardID := got.CardApplications[0].Details["card_id"]
	tests := []struct {
		name string
		got  []simulator.ObjectSnapshot
		want []brief
	}{
		{"qr orders", got.QROrders, []brief{{qrID, "completed", 3, []string{"qrpay.order.completed@completed"}}}},
		{"card applications", got.CardApplications, []brief{{app.ID, "issued", 2, []string{"card.application.submitted@submitted", "card.application.approved@issued"}}}},
		{"cards", got.Cards, []brief{{cardID, "active", 1, nil}}},
		{"remittances", got.Remittances, []brief{{rmt.ID, string(rmt.Status), 1, nil}}},
		{"deposits", got.Deposits, []brief{{dep.ID, "credited", 0, []string{"deposit.credited@credited"}}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, briefs(tc.got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if tr := got.QROrders[0].Trace; len(tr) == 0 || !strings.Contains(strings.Join(tr, " "), "hold") {
		t.Errorf("QR trace %q lacks the hold", tr)
	}

	// Lists are newest first.
	if n := len(got.Requests); n < 2 || got.Requests[0].Seq < got.Requests[n-1].Seq {
		t.Errorf("requests not newest first: %+v", got.Requests)
	}
	if n := len(got.Events); n < 2 || got.Events[0].Type != "deposit.credited" || got.Events[n-1].Type != "member.created" {
		t.Errorf("events not newest first: %+v", got.Events)
	}
	if !strings.Contains(strings.Join(got.Actions, " "), "qrpay/orders/complete") {
		t.Errorf("actions %q", got.Actions)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestRedeliverControl(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	hits := make(chan string, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- r.Header.Get("z-event-id")
	}))
	t.Cleanup(recv.Close)
	ep, _, err := sim.Webhooks.AddEndpoint(recv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Webhooks.DisableEndpoint(ep); err != nil {
		t.Fatal(err)
	}
	evID, err := sim.Events.Emit("card.status.updated", "card", "0b6f6a52-1111-4222-8333-944455556666", "member-1", "frozen", 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Webhooks.EnableEndpoint(ep); err != nil {
		t.Fatal(err)
	}
	var row simulator.WebhookDelivery
	for _, d := range sim.Webhooks.Deliveries() {
		if d.EventID == evID {
			row = d
		}
	}
	if row.Status != "no_subscriber" {
		t.Fatalf("row %+v, want no_subscriber", row)
	}

	var out struct {
		ID     string `json:"id"`
		Queued bool   `json:"queued"`
	}
	path := "/_sim/webhooks/deliveries/" + strings.TrimPrefix(row.ID, "whd_") + "/redeliver"
	if status := controlJSON(t, sim, http.MethodPost, path, &out); status != http.StatusOK || out.ID != row.ID || !out.Queued {
		t.Fatalf("redeliver: %d %+v", status, out)
	}
	if res, err := sim.Webhooks.Flush(context.Background()); err != nil || res.Succeeded != 1 {
		t.Fatalf("flush: %+v %v", res, err)
	}
	if got := <-hits; got != evID {
		t.Errorf("receiver got %q, want %s", got, evID)
	}

	var env struct {
		Code string `json:"code"`
	}
	tests := []struct {
		id     string
		status int
		code   string
	}{
		{row.ID, http.StatusBadRequest, "state_invalid"}, // sent now
		{"whd_00000000-0000-4000-8000-000000000000", http.StatusNotFound, "not_found"},
	}
	for _, tc := range tests {
		env.Code = ""
		if status := controlJSON(t, sim, http.MethodPost, "/_sim/webhooks/deliveries/"+tc.id+"/redeliver", &env); status != tc.status || env.Code != tc.code {
			t.Errorf("redeliver %s: %d %s, want %d %s", tc.id, status, env.Code, tc.status, tc.code)
		}
	}
	if err := sim.Webhooks.Redeliver(row.ID); err == nil {
		t.Error("RedeliverWebhook of a sent row succeeded")
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}
}

func TestDashboardIsServedOffline(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	tests := []struct {
		path        string
		status      int
		contentType string
		contains    string
	}{
		{"/_sim/ui", http.StatusMovedPermanently, "", ""},
		{"/_sim/ui/", http.StatusOK, "text/html", `<script src="app.js">`},
		{"/_sim/ui/app.js", http.StatusOK, "javascript", `fetch("/_sim/state"`},
		{"/_sim/ui/style.css", http.StatusOK, "text/css", ".badge"},
		{"/_sim/ui/missing.js", http.StatusNotFound, "", ""},
	}
	for _, tc := range tests {
		resp, err := noRedirect.Get(sim.URL() + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, resp.StatusCode, tc.status)
			continue
		}
		if tc.status == http.StatusMovedPermanently && resp.Header.Get("Location") != "/_sim/ui/" {
			t.Errorf("%s: Location %q", tc.path, resp.Header.Get("Location"))
		}
		if tc.status != http.StatusOK {
			continue
		}
		if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, tc.contentType) {
			t.Errorf("%s: Content-Type %q, want %s", tc.path, ct, tc.contentType)
		}
		if !strings.Contains(string(b), tc.contains) {
			t.Errorf("%s lacks %q", tc.path, tc.contains)
		}
		if m := external.FindString(string(b)); m != "" {
			t.Errorf("%s refers to an outside address %q: the dashboard must work offline", tc.path, m)
		}
	}
	if n := len(sim.Requests.List()); n != 0 {
		t.Errorf("dashboard requests reached the business journal: %d", n)
	}
}
