package cards_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// post calls the simulator's control API over HTTP, as a test in another
// language would, and decodes the answer into out.
func post(t *testing.T, sim *simulator.Simulator, path, body string, out any) {
	t.Helper()
	resp, err := http.Post(sim.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("POST %s: %v in %s", path, err, b)
		}
	}
}

func TestControlAPI(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	for _, a := range []string{"cards/applications/approve", "cards/applications/reject", "cards/ship", "cards/transactions",
		"cards/topups/credit", "cards/topups/reject", "cards/topups/timeout", "cards/close_complete", "cards/set_status",
		"cards/upstream_balance", "cards/unlock", "cards/plastic"} {
		found := false
		for _, b := range sim.Actions() {
			found = found || a == b
		}
		if !found {
			t.Errorf("action %s is not registered", a)
		}
	}
	app := apply(t, cl, cards.ApplyParams{ProductID: "cpd_physical_std"})
	// Ids are accepted without their prefix.
	var got struct {
		Status string `json:"status"`
		CardID string `json:"card_id"`
	}
	post(t, sim, "/_sim/cards/applications/"+strings.TrimPrefix(app.ID, "cap_")+"/approve", "", &got)
	if got.Status != "issued" || got.CardID == "" {
		t.Fatalf("approve answered %+v", got)
	}
	id := got.CardID
	post(t, sim, "/_sim/cards/"+id+"/ship", "", nil)
	var pl simulator.CardPlastic
	post(t, sim, "/_sim/cards/"+strings.TrimPrefix(id, "crd_")+"/plastic", "", &pl)
	if _, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: pl.Expiry, PIN: goodPIN}); err != nil {
		t.Fatal(err)
	}
	tp, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("20")})
	if err != nil {
		t.Fatal(err)
	}
	post(t, sim, "/_sim/cards/topups/"+tp.ID+"/credit", "", nil)
	var tx struct {
		ID string `json:"id"`
	}
	post(t, sim, "/_sim/cards/"+id+"/transactions",
		`{"kind":"auth","status":"succeed","direction":"debit","amount":"2000","bill_amount":"2000","merchant_name":"Shop","occurred_at":"2025-12-31T23:00:00Z"}`, &tx)
	txs, err := listTx(t, cl, id, cards.TransactionListParams{ID: tx.ID})
	if err != nil || len(txs) != 1 || txs[0].MerchantName != "Shop" {
		t.Fatalf("transaction via control API: %+v, %v", txs, err)
	}
	if b := getCard(t, cl, id).Balance; !b.Equal(money.MustParse("0", 2)) {
		t.Fatalf("balance %s", b)
	}
	post(t, sim, "/_sim/cards/"+id+"/upstream_balance", `{"readable":false}`, nil)
	if cc, _ := cl.Cards.CheckClose(ctx, member, id); cc.Closable {
		t.Fatal("closable with an unreadable upstream balance")
	}
	post(t, sim, "/_sim/cards/"+id+"/upstream_balance", `{"readable":true}`, nil)
	if _, err := cl.Cards.Close(ctx, member, id, cards.CloseParams{}); err != nil {
		t.Fatal(err)
	}
	post(t, sim, "/_sim/cards/"+id+"/close_complete", "", nil)
	if st := getCard(t, cl, id).Status; st != cards.CardClosed {
		t.Fatalf("status %s, want closed", st)
	}
	post(t, sim, "/_sim/cards/"+id+"/set_status", `{"status":"expired"}`, nil)
	if st := getCard(t, cl, id).Status; st != cards.CardExpired {
		t.Fatalf("status %s, want expired", st)
	}
	checkBooks(t, sim)
}
