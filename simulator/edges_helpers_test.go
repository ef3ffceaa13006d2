package simulator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// edge is one simulator driven as an integrator would: business calls
// through the SDK, the upstream and the operator through the control API
// over HTTP. Its books and invariants are checked when the test ends
// (simtest.Start) and by books() wherever a row wants them.
type edge struct {
	t   *testing.T
	sim *simulator.Simulator
	c   *mwclient.Client
	raw *raw
	ctx context.Context
}

func newEdge(t *testing.T, opts ...simulator.Option) *edge {
	t.Helper()
	sim, rc := newRaw(t, opts...)
	return &edge{t: t, sim: sim, raw: rc, ctx: context.Background(),
		c: sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))}
}

// books asserts that the ledger balances and that money sits only on live
// objects.
func (e *edge) books() {
	e.t.Helper()
	if err := e.sim.CheckLedger(); err != nil {
		e.t.Fatalf("CheckLedger: %v", err)
	}
	if err := e.sim.CheckInvariants(); err != nil {
		e.t.Fatalf("CheckInvariants: %v", err)
	}
}

// act runs the control action POST /_sim/<path> with a JSON body (nil for
// none) and returns the answer.
func (e *edge) act(path string, body any) result {
	e.t.Helper()
	return e.raw.control(http.MethodPost, "/_sim/"+path, body)
}

// mustAct runs a control action that must succeed and returns its body.
func (e *edge) mustAct(path string, body any) map[string]any {
	e.t.Helper()
	return e.raw.mustControl(http.MethodPost, "/_sim/"+path, body).body
}

// wantActCode runs a control action that must be refused with code.
func (e *edge) wantActCode(path string, body any, code string) {
	e.t.Helper()
	r := e.act(path, body)
	if r.err != nil || r.status/100 == 2 || r.code() != code {
		e.t.Fatalf("POST /_sim/%s: %v, want %s", path, r, code)
	}
}

// wantErr asserts that err is the service error code.
func (e *edge) wantErr(err error, code mwallet.Code) {
	e.t.Helper()
	simtest.WantCode(e.t, err, code)
}

// funds returns the member's (external id) available and locked balance.
func (e *edge) funds(member, asset string) (string, string) {
	a, l, err := e.sim.Members.Balance(member, asset)
	if err != nil {
		return err.Error(), err.Error()
	}
	return a.String(), l.String()
}

// wantFunds asserts the member's available and locked balance in USDT.
func (e *edge) wantFunds(member, avail, locked string) {
	e.t.Helper()
	a, l := e.funds(member, "USDT")
	if a != avail || l != locked {
		e.t.Fatalf("%s USDT: available %s locked %s, want %s and %s", member, a, l, avail, locked)
	}
}

// wantPrepaid asserts the merchant prepaid available and locked in USDT.
func (e *edge) wantPrepaid(avail, locked string) {
	e.t.Helper()
	a, l := e.sim.Merchant.PrepaidBalance("USDT")
	if a.String() != avail || l.String() != locked {
		e.t.Fatalf("prepaid USDT: available %s locked %s, want %s and %s", a, l, avail, locked)
	}
}

// events counts the recorded events of a type.
func (e *edge) events(typ string) int { return len(simtest.EventsOf(e.sim, typ)) }

// --- cards ---

// apply applies for a product with a fresh client key.
func (e *edge) apply(member string, p cards.ApplyParams) (*cards.Application, error) {
	if p.ClientKey == "" {
		p.ClientKey = cards.NewClientKey()
	}
	if p.SourceAsset == "" {
		p.SourceAsset = "USDT"
	}
	return e.c.Cards.Apply(e.ctx, member, p)
}

// mustApply applies and fails the test on error.
func (e *edge) mustApply(member string, p cards.ApplyParams) *cards.Application {
	e.t.Helper()
	app, err := e.apply(member, p)
	if err != nil {
		e.t.Fatalf("apply %s: %v", p.ProductID, err)
	}
	return app
}

// application reads an application.
func (e *edge) application(member, id string) *cards.Application {
	e.t.Helper()
	a, err := e.c.Cards.GetApplication(e.ctx, member, id)
	if err != nil {
		e.t.Fatalf("application %s: %v", id, err)
	}
	return a
}

// issue applies for product, approves over the control API and returns the
// card id.
func (e *edge) issue(member, product, first string) string {
	e.t.Helper()
	p := cards.ApplyParams{ProductID: product}
	if first != "" {
		p.FirstTopUp = money.MustParse(first, 6)
	}
	app := e.mustApply(member, p)
	e.mustAct("cards/applications/"+app.ID+"/approve", nil)
	got := e.application(member, app.ID)
	if got.Status != cards.ApplicationIssued || got.CardID == "" {
		e.t.Fatalf("application after approval = %+v", got)
	}
	return got.CardID
}

// card reads a card.
func (e *edge) card(member, id string) *cards.Card {
	e.t.Helper()
	c, err := e.c.Cards.Get(e.ctx, member, id)
	if err != nil {
		e.t.Fatalf("card %s: %v", id, err)
	}
	return c
}

// wantCard asserts a card's status and balance (card currency, scale 2).
func (e *edge) wantCard(member, id string, status cards.CardStatus, balance string) {
	e.t.Helper()
	c := e.card(member, id)
	if c.Status != status || c.Balance.String() != balance {
		e.t.Fatalf("card %s: %s with %s, want %s with %s", id, c.Status, c.Balance, status, balance)
	}
}

// topUp tops up a card and requires it to be accepted as processing.
func (e *edge) topUp(member, card, amount string) string {
	e.t.Helper()
	tp, err := e.c.Cards.TopUp(e.ctx, member, card, cards.TopUpParams{Amount: money.MustParse(amount, 6), SourceAsset: "USDT"})
	if err != nil {
		e.t.Fatalf("top-up: %v", err)
	}
	if tp.Status != cards.TopUpProcessing {
		e.t.Fatalf("top-up status %s, want processing", tp.Status)
	}
	return tp.ID
}

// stepUp makes a call that answers step_up_required first, completes the
// challenge as the end user and resends it with the same key.
func stepUp[T any](e *edge, call func(opts ...mwallet.CallOption) (T, error)) (T, error) {
	e.t.Helper()
	key := uuid.NewString()
	_, err := call(mwallet.WithIdempotencyKey(key))
	ae := simtest.WantCode(e.t, err, mwallet.CodeStepUpRequired)
	if err := e.sim.StepUp.Complete(ae.ChallengeID); err != nil {
		e.t.Fatal(err)
	}
	return call(mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(ae.ChallengeID))
}

// activePhysical issues, ships and activates a physical card.
func (e *edge) activePhysical(member string) string {
	e.t.Helper()
	id := e.issue(member, "cpd_physical_std", "")
	e.mustAct("cards/"+id+"/ship", nil)
	pl := e.mustAct("cards/"+id+"/plastic", nil)
	if _, err := e.c.Cards.Activate(e.ctx, member, id, cards.ActivateParams{Expiry: pl["expiry"].(string), PIN: "135790"}); err != nil {
		e.t.Fatalf("activate: %v", err)
	}
	return id
}

// cardTx adds a succeeded card transaction (amount in cents).
func (e *edge) cardTx(card, direction, cents string) result {
	e.t.Helper()
	return e.act("cards/"+card+"/transactions", map[string]any{"kind": "refund", "status": "succeed", "direction": direction, "amount": cents, "bill_amount": cents})
}

// --- remittances ---

// payee returns the member's payee in currency.
func (e *edge) payee(member, currency string) string {
	e.t.Helper()
	for p, err := range e.c.Remittances.Payees(e.ctx, member, mwallet.ListParams{}) {
		if err != nil {
			e.t.Fatal(err)
		}
		if p.Currency == currency {
			return p.ID
		}
	}
	e.t.Fatalf("no %s payee for %s", currency, member)
	return ""
}

// remitParams is an express GBP remittance of gbp.
func (e *edge) remitParams(member, gbp string, merchant bool) remittance.CreateParams {
	p := remittance.CreateParams{PayeeID: e.payee(member, "GBP"), PayoutAmount: gbp, PayoutCurrency: "GBP", SlippageBps: 100,
		PurposeCode: remittance.PurposeFamilySupport}
	if merchant {
		p.FundingSource = mwallet.FundingMerchant
	}
	return p
}

// remit creates a remittance and returns its id and status.
func (e *edge) remit(member, gbp string, merchant bool, opts ...mwallet.CallOption) (*remittance.CreateResult, error) {
	return e.c.Remittances.Create(e.ctx, member, e.remitParams(member, gbp, merchant), opts...)
}

// remitOrder reads an order.
func (e *edge) remitOrder(member, id string) *remittance.Order {
	e.t.Helper()
	o, err := e.c.Remittances.Get(e.ctx, member, id)
	if err != nil {
		e.t.Fatalf("remittance %s: %v", id, err)
	}
	return o
}

// --- QR ---

// thaiQR is a fixed-amount PromptPay code for amount THB.
func thaiQR(amount, ref string) string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER" + ref},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: amount, Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
}

// qrPay pays code for member through step-up, with a key of its own, and
// returns the order and the key (for replays).
func (e *edge) qrPay(member, code string) (*qrpay.Order, string, error) {
	e.t.Helper()
	key := uuid.NewString()
	p := qrpay.PayParams{CodeValue: code}
	_, err := e.c.QRPay.Pay(e.ctx, member, p, mwallet.WithIdempotencyKey(key))
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		e.t.Fatalf("first payment call: %v, want step_up_required", err)
	}
	if err := e.sim.StepUp.Complete(su.ChallengeID); err != nil {
		e.t.Fatal(err)
	}
	o, err := e.c.QRPay.Pay(e.ctx, member, p, mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(su.ChallengeID))
	return o, key, err
}

// jsonOf renders v for failure messages.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sumUSDT adds decimal strings at scale 6.
func sumUSDT(t *testing.T, vs ...string) string {
	t.Helper()
	s := money.Zero(6)
	for _, v := range vs {
		a, err := money.Parse(v, 6)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = s.Add(a); err != nil {
			t.Fatal(err)
		}
	}
	return s.String()
}

// usdtAmt parses a USDT amount.
func usdtAmt(v string) money.Amount { return money.MustParse(v, 6) }

// lastEvent returns the newest event of a type, or fails the test.
func (e *edge) lastEvent(typ string) simulator.Event {
	e.t.Helper()
	evs := simtest.EventsOf(e.sim, typ)
	if len(evs) == 0 {
		e.t.Fatalf("no %s event", typ)
	}
	return evs[len(evs)-1]
}
