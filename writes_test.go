package mwallet_test

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// writeCall is one write endpoint of the SDK (a POST of the route table),
// made through its product method against the simulator.
type writeCall struct {
	// setup brings what the call needs (a card, a payee, a delivery) and
	// returns the path the call will use and the ids call needs.
	setup func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) (path string, ids map[string]string)
	// call makes the call with opts.
	call func(ctx context.Context, cl *mwclient.Client, ids map[string]string, opts ...mwallet.CallOption) error
	// keyed: the SDK sends x-idempotency-key (checked by
	// TestEveryWriteOfTheRouteTable against what the method sends).
	keyed bool
	// stepUp: the service asks for strong authentication first.
	stepUp bool
	// noRecord: the service keeps no idempotency record for it (naturally
	// idempotent, or nothing to protect), so a resend with the key runs it
	// again instead of replaying.
	noRecord bool
	// invalid makes the call with an input that its method (or, for a
	// method that checks nothing itself, the client) refuses before
	// sending, with a *mwallet.ParamError whose Param is param. Every keyed
	// write has one (TestKeyedWriteRefusalCarriesKey).
	invalid func(ctx context.Context, cl *mwclient.Client, opts ...mwallet.CallOption) error
	param   string
}

const writeMember = simulator.DefaultMemberExternalID

// writes holds every POST of the SDK's route table but the token
// exchange, by operation.
var writes = map[string]writeCall{
	"deposits.Create": {keyed: true,
		param: "Amount",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Deposits.Create(ctx, writeMember, deposits.CreateParams{Asset: "USDT", Reference: "class-1"}, o...)
			return err
		},
		setup: fixedPath("/v1/deposits"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Deposits.Create(ctx, writeMember, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("12", 6), Reference: "class-1"}, o...)
			return err
		}},
	"qrpay.Pay": {keyed: true, stepUp: true,
		param: "code_value",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.QRPay.Pay(ctx, writeMember, qrpay.PayParams{}, o...)
			return err
		},
		setup: fixedPath("/v1/qrpay/payments"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.QRPay.Pay(ctx, writeMember, qrpay.PayParams{CodeValue: sampleqr.PromptPay}, o...)
			return err
		}},
	"qrpay.Decode": {
		setup: fixedPath("/v1/qrpay/decode"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.QRPay.Decode(ctx, writeMember, qrpay.DecodeParams{CodeValue: sampleqr.PromptPay}, o...)
			return err
		}},
	"qrpay.Quote": {
		setup: fixedPath("/v1/qrpay/quotes"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.QRPay.Quote(ctx, writeMember, qrpay.QuoteParams{CodeValue: sampleqr.PromptPay}, o...)
			return err
		}},
	"cards.Apply": {keyed: true,
		param: "client_key",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Apply(ctx, writeMember, cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT"}, o...)
			return err
		},
		setup: func(*testing.T, *simulator.Simulator, *mwclient.Client) (string, map[string]string) {
			return "/v1/cards/applications", map[string]string{"client_key": cards.NewClientKey()}
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Apply(ctx, writeMember, cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT", ClientKey: ids["client_key"]}, o...)
			return err
		}},
	"cards.TopUp": {keyed: true, setup: onCard("virtual", "/topups"),
		param: "amount",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.TopUp(ctx, writeMember, "crd_1", cards.TopUpParams{Amount: money.MustParse("-1", 6)}, o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.TopUp(ctx, writeMember, ids["card"], cards.TopUpParams{Amount: money.MustParse("20", 6)}, o...)
			return err
		}},
	"cards.SetPIN": {keyed: true, stepUp: true, setup: onCard("virtual", "/pin"),
		param: "new_pin",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.SetPIN(ctx, writeMember, "crd_1", cards.SetPINParams{NewPIN: "12a4", CVV: "123"}, o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.SetPIN(ctx, writeMember, ids["card"], cards.SetPINParams{NewPIN: "135790", CVV: cards.CVV(ids["cvv"])}, o...)
			return err
		}},
	"cards.ReportLost": {keyed: true, stepUp: true, setup: onCard("physical", "/lost"),
		param: "kind",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.ReportLost(ctx, writeMember, "crd_1", cards.LostKind("misplaced"), o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.ReportLost(ctx, writeMember, ids["card"], cards.LostKindStolen, o...)
			return err
		}},
	"cards.Activate": {keyed: true, setup: onCard("shipped", "/activate"),
		param: "expiry",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Activate(ctx, writeMember, "crd_1", cards.ActivateParams{Expiry: "13/30", PIN: "135790"}, o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Activate(ctx, writeMember, ids["card"], cards.ActivateParams{Expiry: ids["expiry"], PIN: "135790"}, o...)
			return err
		}},
	"cards.Freeze": {keyed: true, noRecord: true, setup: onCard("virtual", "/freeze"),
		param: "card id",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Freeze(ctx, writeMember, " ", o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Freeze(ctx, writeMember, ids["card"], o...)
			return err
		}},
	"cards.Unfreeze": {keyed: true, noRecord: true, setup: onCard("frozen", "/unfreeze"),
		param: "card id",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Unfreeze(ctx, writeMember, "crd_1/x", o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Unfreeze(ctx, writeMember, ids["card"], o...)
			return err
		}},
	"cards.Close": {keyed: true, setup: onCard("virtual", "/close"),
		param: "card id",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Close(ctx, writeMember, "", cards.CloseParams{}, o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Close(ctx, writeMember, ids["card"], cards.CloseParams{Reason: "class"}, o...)
			return err
		}},
	"cards.Replace": {keyed: true, setup: onCard("virtual", "/replacements"),
		param: "card id",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Replace(ctx, writeMember, "crd_", cards.ReplaceParams{}, o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Replace(ctx, writeMember, ids["card"], cards.ReplaceParams{Reason: "damaged"}, o...)
			return err
		}},
	"cards.SecureSession": {keyed: true, noRecord: true, setup: onCard("virtual", "/secure-session"),
		param: "card id",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Cards.SecureSession(ctx, writeMember, "crd_1?x", o...)
			return err
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.SecureSession(ctx, writeMember, ids["card"], o...)
			return err
		}},
	"remittance.Create": {keyed: true,
		param: "SlippageBps",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.Create(ctx, writeMember, remittance.CreateParams{PayeeID: "pye_1", PayoutAmount: "100.00",
				PayoutCurrency: "GBP", SlippageBps: -1, PurposeCode: "FAMILY_SUPPORT"}, o...)
			return err
		},
		setup: func(t *testing.T, _ *simulator.Simulator, cl *mwclient.Client) (string, map[string]string) {
			return "/v1/remittances", map[string]string{"payee": payeeIn(t, cl, "GB")}
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.Create(ctx, writeMember, remittance.CreateParams{PayeeID: ids["payee"], PayoutAmount: "100.00",
				PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: "FAMILY_SUPPORT"}, o...)
			return err
		}},
	"remittance.CreatePayee": {keyed: true,
		param: "HolderName",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.CreatePayee(ctx, writeMember, remittance.PayeeParams{Country: "DE", Currency: "EUR", AccountNumber: "DE02120300000000202051"}, o...)
			return err
		},
		setup: fixedPath("/v1/remit/payees"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.CreatePayee(ctx, writeMember, remittance.PayeeParams{Country: "DE", Currency: "EUR",
				HolderName: "Class Table", AccountNumber: "DE02120300000000202051"}, o...)
			return err
		}},
	"remittance.QueryVPApplications": {
		setup: fixedPath("/v1/remit/vp/applications/query"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.QueryVPApplications(ctx, []string{writeMember}, o...)
			return err
		}},
	"kyc.ProfileSession": {keyed: true,
		param: "member",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.KYC.ProfileSession(ctx, " ", o...)
			return err
		},
		setup: fixedPath("/v1/kyc/profile-sessions"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.KYC.ProfileSession(ctx, writeMember, o...)
			return err
		}},
	"kyc.CreateQuickBinding": {keyed: true,
		param: "Email",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.KYC.CreateQuickBinding(ctx, writeMember, kyc.QuickBindingParams{Email: "not an address"}, o...)
			return err
		},
		setup: fixedPath("/v1/kyc/quick"),
		call: func(ctx context.Context, cl *mwclient.Client, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.KYC.CreateQuickBinding(ctx, writeMember, kyc.QuickBindingParams{}, o...)
			return err
		}},
	"webhooks.Redeliver": {keyed: true,
		param: "id",
		invalid: func(ctx context.Context, cl *mwclient.Client, o ...mwallet.CallOption) error {
			_, err := cl.Webhooks.Redeliver(ctx, "", o...)
			return err
		},
		setup: func(t *testing.T, sim *simulator.Simulator, _ *mwclient.Client) (string, map[string]string) {
			// The fixture's member.created row has no subscriber; an
			// endpoint subscribes now, so it can be queued again.
			rows := sim.Webhooks.Deliveries()
			if len(rows) != 1 || rows[0].Status != "no_subscriber" {
				t.Fatalf("fixture deliveries = %+v", rows)
			}
			if _, _, err := sim.Webhooks.AddEndpoint("http://127.0.0.1:9/unused"); err != nil {
				t.Fatal(err)
			}
			return "/v1/webhooks/deliveries/" + rows[0].ID + "/redeliver", map[string]string{"delivery": rows[0].ID}
		},
		call: func(ctx context.Context, cl *mwclient.Client, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Webhooks.Redeliver(ctx, ids["delivery"], o...)
			return err
		}},
}

func fixedPath(path string) func(*testing.T, *simulator.Simulator, *mwclient.Client) (string, map[string]string) {
	return func(*testing.T, *simulator.Simulator, *mwclient.Client) (string, map[string]string) { return path, nil }
}

// onCard issues a card of writeMember in the given state (virtual: an
// active virtual card; physical: an unactivated physical one; shipped: a
// physical one that left stock; frozen: a frozen virtual one) and returns
// the path of its action.
func onCard(state, action string) func(*testing.T, *simulator.Simulator, *mwclient.Client) (string, map[string]string) {
	return func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) (string, map[string]string) {
		t.Helper()
		ctx := context.Background()
		product := "cpd_virtual_std"
		if state == "physical" || state == "shipped" {
			product = "cpd_physical_std"
			if err := sim.Cards.SetLimit("physical", 10); err != nil {
				t.Fatal(err)
			}
		}
		app, err := cl.Cards.Apply(ctx, writeMember, cards.ApplyParams{ProductID: product, SourceAsset: "USDT", ClientKey: cards.NewClientKey()})
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if err := sim.Cards.ApproveApplication(app.ID); err != nil {
			t.Fatal(err)
		}
		got, err := cl.Cards.GetApplication(ctx, writeMember, app.ID)
		if err != nil || got.CardID == "" {
			t.Fatalf("issued application = %+v, %v", got, err)
		}
		id := got.CardID
		switch state {
		case "shipped":
			if err := sim.Cards.Ship(id); err != nil {
				t.Fatal(err)
			}
		case "frozen":
			if _, err := cl.Cards.Freeze(ctx, writeMember, id); err != nil {
				t.Fatal(err)
			}
		}
		pl, err := sim.Cards.Plastic(id)
		if err != nil {
			t.Fatal(err)
		}
		return "/v1/cards/" + id + action, map[string]string{"card": id, "cvv": pl.CVV, "expiry": pl.Expiry}
	}
}

// payeeIn returns the id of a payee of writeMember in country.
func payeeIn(t *testing.T, cl *mwclient.Client, country string) string {
	t.Helper()
	for p, err := range cl.Remittances.Payees(context.Background(), writeMember, mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Country == country {
			return p.ID
		}
	}
	t.Fatalf("no payee in %s", country)
	return ""
}

// writeOps returns the operations of the route table's writes (every POST
// but the token exchange), sorted.
func writeOps() []string {
	var ops []string
	for _, r := range mwallet.RouteTable() {
		if r[0] == http.MethodPost && r[2] != "connect.Token" {
			ops = append(ops, r[2])
		}
	}
	sort.Strings(ops)
	return ops
}

// TestEveryWriteOfTheRouteTable: writes holds exactly the writes of the
// SDK's route table, and each one's keyed says what its method does: it
// sends x-idempotency-key (seen by the simulator) exactly when keyed. So a
// write added to the route table is added here, and a keyed one joins
// every test generated from writes (TestKeyedWriteOutcomeClass).
func TestEveryWriteOfTheRouteTable(t *testing.T) {
	t.Parallel()
	var listed []string
	for op := range writes {
		listed = append(listed, op)
	}
	sort.Strings(listed)
	if diff := cmp.Diff(writeOps(), listed); diff != "" {
		t.Fatalf("writes and the route table's writes differ (-routes +writes):\n%s", diff)
	}
	for _, op := range listed {
		w := writes[op]
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			cl := sim.Client()
			path, ids := w.setup(t, sim, cl)
			if w.stepUp {
				err := w.call(context.Background(), cl, ids)
				su, ok := mwallet.AsStepUp(err)
				if !ok {
					t.Fatalf("first call: %v, want step_up_required", err)
				}
				if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
					t.Fatal(err)
				}
				if err := w.call(context.Background(), cl, ids, su.Options()...); err != nil {
					t.Fatal(err)
				}
			} else if err := w.call(context.Background(), cl, ids); err != nil {
				t.Fatal(err)
			}
			var sent []bool
			for _, r := range sim.Requests.List() {
				if r.Method == http.MethodPost && r.Path == path {
					sent = append(sent, r.IdempotencyKey != "")
				}
			}
			if len(sent) == 0 {
				t.Fatalf("no POST %s in the journal", path)
			}
			for i, k := range sent {
				if k != w.keyed {
					t.Errorf("request %d of %s: key sent %v, writes says keyed %v", i+1, op, k, w.keyed)
				}
			}
			if strings.Contains(path, "{") {
				t.Errorf("path %s not filled", path)
			}
		})
	}
}

// keyedOps returns the keyed writes of the route table.
func keyedOps(t *testing.T) []string {
	t.Helper()
	var ops []string
	for _, op := range writeOps() {
		w, ok := writes[op]
		if !ok {
			t.Fatalf("%s is a write of the route table missing from writes", op)
		}
		if w.keyed {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		t.Fatal(errors.New("no keyed write"))
	}
	return ops
}
