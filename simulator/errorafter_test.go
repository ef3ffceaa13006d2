package simulator_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// keyedCall is one keyed endpoint under an error_after fault: setup brings
// what the call needs (a card, a payee, ...) and returns the path the fault
// matches; call makes the SDK call with the given options; stepUp says the
// endpoint needs strong authentication first; moves is the number of
// ledger entries one execution posts; objects counts the objects the
// endpoint creates (nil when it creates none the test can count).
type keyedCall struct {
	endpoint string // the endpoint's pattern, as the simulator registers it
	setup    func(t *testing.T, sim *simulator.Simulator, cl *sdkClient) (faultPath string, ids map[string]string)
	call     func(cl *sdkClient, ids map[string]string, opts ...mwallet.CallOption) error
	stepUp   bool
	moves    int
	objects  func(t *testing.T, sim *simulator.Simulator, cl *sdkClient, ids map[string]string) int
	// status, when set, is the card status the one execution leaves.
	status cards.CardStatus
}

var eaCtx = context.Background()

// sdkClient is the SDK client type sim.Client returns.
type sdkClient = mwclient.Client

// eaIssue issues a card of product to member-1 and returns its id.
func eaIssue(t *testing.T, sim *simulator.Simulator, cl *sdkClient, product string) string {
	t.Helper()
	if product == "cpd_physical_std" {
		if err := sim.Cards.SetLimit("physical", 10); err != nil {
			t.Fatal(err)
		}
	}
	app, err := cl.Cards.Apply(eaCtx, member1, cards.ApplyParams{ProductID: product, SourceAsset: "USDT", ClientKey: cards.NewClientKey()})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	got, err := cl.Cards.GetApplication(eaCtx, member1, app.ID)
	if err != nil || got.CardID == "" {
		t.Fatalf("issued application = %+v, %v", got, err)
	}
	return got.CardID
}

func cardIDs(path string) func(t *testing.T, sim *simulator.Simulator, cl *sdkClient) (string, map[string]string) {
	product := "cpd_virtual_std"
	if strings.HasPrefix(path, "physical:") {
		product, path = "cpd_physical_std", strings.TrimPrefix(path, "physical:")
	}
	return func(t *testing.T, sim *simulator.Simulator, cl *sdkClient) (string, map[string]string) {
		id := eaIssue(t, sim, cl, product)
		if path == "/activate" {
			if err := sim.Cards.Ship(id); err != nil {
				t.Fatal(err)
			}
		}
		return "/v1/cards/" + id + path, map[string]string{"card": id}
	}
}

func countOf(f func(simulator.StateSnapshot) int) func(*testing.T, *simulator.Simulator, *sdkClient, map[string]string) int {
	return func(_ *testing.T, sim *simulator.Simulator, _ *sdkClient, _ map[string]string) int {
		return f(sim.State())
	}
}

// keyedCalls covers every endpoint that takes an idempotency key.
var keyedCalls = []keyedCall{
	{endpoint: "POST /v1/deposits", moves: 1,
		setup: func(*testing.T, *simulator.Simulator, *sdkClient) (string, map[string]string) {
			return "/v1/deposits", nil
		},
		call: func(cl *sdkClient, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Deposits.Create(eaCtx, member1, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("12.5", 6), Reference: "error-after-1"}, o...)
			return err
		},
		objects: countOf(func(s simulator.StateSnapshot) int { return len(s.Deposits) })},
	{endpoint: "POST /v1/qrpay/payments", stepUp: true, moves: 1,
		setup: func(*testing.T, *simulator.Simulator, *sdkClient) (string, map[string]string) {
			return "/v1/qrpay/payments", nil
		},
		call: func(cl *sdkClient, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.QRPay.Pay(eaCtx, member1, qrpay.PayParams{CodeValue: thbCode()}, o...)
			return err
		},
		objects: countOf(func(s simulator.StateSnapshot) int { return len(s.QROrders) })},
	{endpoint: "POST /v1/cards/applications", moves: 1,
		setup: func(*testing.T, *simulator.Simulator, *sdkClient) (string, map[string]string) {
			return "/v1/cards/applications", map[string]string{"client_key": cards.NewClientKey()}
		},
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Apply(eaCtx, member1, cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT", ClientKey: ids["client_key"]}, o...)
			return err
		},
		objects: countOf(func(s simulator.StateSnapshot) int { return len(s.CardApplications) })},
	{endpoint: "POST /v1/cards/{id}/topups", moves: 1, setup: cardIDs("/topups"),
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.TopUp(eaCtx, member1, ids["card"], cards.TopUpParams{Amount: money.MustParse("20", 6)}, o...)
			return err
		},
		objects: countOf(func(s simulator.StateSnapshot) int { return len(s.CardTopUps) })},
	{endpoint: "POST /v1/remittances", moves: 1,
		setup: func(t *testing.T, _ *simulator.Simulator, cl *sdkClient) (string, map[string]string) {
			return "/v1/remittances", map[string]string{"payee": eaPayee(t, cl, "GB")}
		},
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.Create(eaCtx, member1, remittance.CreateParams{PayeeID: ids["payee"], PayoutAmount: "100.00",
				PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: "FAMILY_SUPPORT"}, o...)
			return err
		},
		objects: countOf(func(s simulator.StateSnapshot) int { return len(s.Remittances) })},
	{endpoint: "POST /v1/cards/{id}/pin", stepUp: true, setup: cardIDs("/pin"),
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.SetPIN(eaCtx, member1, ids["card"], cards.SetPINParams{NewPIN: "135790", CVV: cards.CVV(ids["cvv"])}, o...)
			return err
		}},
	{endpoint: "POST /v1/cards/{id}/lost", stepUp: true, setup: cardIDs("physical:/lost"),
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.ReportLost(eaCtx, member1, ids["card"], cards.LostKindStolen, o...)
			return err
		}, status: cards.CardLost},
	{endpoint: "POST /v1/cards/{id}/activate", setup: cardIDs("physical:/activate"),
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Activate(eaCtx, member1, ids["card"], cards.ActivateParams{Expiry: ids["expiry"], PIN: "135790"}, o...)
			return err
		}, status: cards.CardActive},
	{endpoint: "POST /v1/cards/{id}/close", setup: cardIDs("/close"),
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Close(eaCtx, member1, ids["card"], cards.CloseParams{Reason: "error_after"}, o...)
			return err
		}, status: cards.CardClosing,
		objects: func(t *testing.T, sim *simulator.Simulator, _ *sdkClient, ids map[string]string) int {
			n, err := sim.Cards.UpstreamCloseRequests(ids["card"])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}},
	{endpoint: "POST /v1/cards/{id}/replacements", setup: cardIDs("/replacements"),
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Cards.Replace(eaCtx, member1, ids["card"], cards.ReplaceParams{Reason: "damaged"}, o...)
			return err
		},
		objects: countOf(func(s simulator.StateSnapshot) int { return len(s.Cards) })},
	{endpoint: "POST /v1/kyc/profile-sessions",
		setup: func(*testing.T, *simulator.Simulator, *sdkClient) (string, map[string]string) {
			return "/v1/kyc/profile-sessions", nil
		},
		call: func(cl *sdkClient, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.KYC.ProfileSession(eaCtx, member1, o...)
			return err
		}},
	{endpoint: "POST /v1/kyc/quick", moves: 1,
		setup: func(*testing.T, *simulator.Simulator, *sdkClient) (string, map[string]string) {
			return "/v1/kyc/quick", nil
		},
		call: func(cl *sdkClient, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.KYC.CreateQuickBinding(eaCtx, member1, kyc.QuickBindingParams{}, o...)
			return err
		},
		objects: func(t *testing.T, _ *simulator.Simulator, cl *sdkClient, _ map[string]string) int {
			n := 0
			for _, err := range cl.KYC.QuickBindings(eaCtx, member1, mwallet.ListParams{}) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			return n
		}},
	{endpoint: "POST /v1/remit/payees",
		setup: func(*testing.T, *simulator.Simulator, *sdkClient) (string, map[string]string) {
			return "/v1/remit/payees", nil
		},
		call: func(cl *sdkClient, _ map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Remittances.CreatePayee(eaCtx, member1, remittance.PayeeParams{Country: "DE", Currency: "EUR",
				HolderName: "Error After", AccountNumber: "DE02120300000000202051"}, o...)
			return err
		},
		objects: func(t *testing.T, _ *simulator.Simulator, cl *sdkClient, _ map[string]string) int {
			n := 0
			for _, err := range cl.Remittances.Payees(eaCtx, member1, mwallet.ListParams{}) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			return n
		}},
	{endpoint: "POST /v1/webhooks/deliveries/{id}/redeliver",
		setup: func(t *testing.T, sim *simulator.Simulator, _ *sdkClient) (string, map[string]string) {
			// The fixture's member.created row has no subscriber; an endpoint
			// subscribes now, so it can be queued again.
			rows := sim.Webhooks.Deliveries()
			if len(rows) != 1 || rows[0].Status != "no_subscriber" {
				t.Fatalf("fixture deliveries = %+v", rows)
			}
			if _, _, err := sim.Webhooks.AddEndpoint("http://127.0.0.1:9/unused"); err != nil {
				t.Fatal(err)
			}
			return "/v1/webhooks/deliveries/" + rows[0].ID + "/redeliver", map[string]string{"delivery": rows[0].ID}
		},
		call: func(cl *sdkClient, ids map[string]string, o ...mwallet.CallOption) error {
			_, err := cl.Webhooks.Redeliver(eaCtx, ids["delivery"], o...)
			return err
		},
		// The row itself is queued again (its one attempt pending).
		objects: countOf(func(s simulator.StateSnapshot) int {
			n := 0
			for _, d := range s.WebhookDeliveries {
				if d.Status == "pending" {
					n++
				}
			}
			return n
		})},
}

// eaPayee saves a payee of member-1 in country and returns its id.
func eaPayee(t *testing.T, cl *sdkClient, country string) string {
	t.Helper()
	for p, err := range cl.Remittances.Payees(eaCtx, member1, mwallet.ListParams{}) {
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

// TestErrorAfterEveryKeyedEndpoint: for every endpoint that takes an
// idempotency key, an error_after 504 upstream_timeout fault executes the
// request and stores its outcome; the SDK retries with the same key and
// gets the replay: the call succeeds, Response.Replayed is true, exactly one
// object and one set of ledger entries exist, and the books balance.
func TestErrorAfterEveryKeyedEndpoint(t *testing.T) {
	t.Parallel()
	var covered []string
	for _, kc := range keyedCalls {
		covered = append(covered, kc.endpoint)
	}
	sort.Strings(covered)
	all := simulator.KeyedEndpoints(simulator.MustNew())
	if diff := cmp.Diff(all, covered); diff != "" {
		t.Errorf("keyed endpoints not covered by the table (-registered +table):\n%s", diff)
	}
	for _, kc := range keyedCalls {
		t.Run(strings.TrimPrefix(kc.endpoint, "POST /v1/"), func(t *testing.T) {
			t.Parallel()
			sim, cl := newSDK(t)
			faultPath, ids := kc.setup(t, sim, cl)
			if ids == nil {
				ids = map[string]string{}
			}
			if c, ok := ids["card"]; ok {
				pl, err := sim.Cards.Plastic(c)
				if err != nil {
					t.Fatal(err)
				}
				ids["cvv"], ids["expiry"] = pl.CVV, pl.Expiry
			}
			key := uuid.NewString()
			opts := []mwallet.CallOption{mwallet.WithIdempotencyKey(key)}
			if kc.stepUp {
				// The first call asks for strong authentication (not stored);
				// the end user completes it; the resend carries x-step-up.
				err := kc.call(cl, ids, opts...)
				var apiErr *mwallet.Error
				if !errors.As(err, &apiErr) || apiErr.Code != mwallet.CodeStepUpRequired {
					t.Fatalf("first call: %v, want step_up_required", err)
				}
				if err := sim.StepUp.Complete(apiErr.ChallengeID); err != nil {
					t.Fatal(err)
				}
				opts = append(opts, mwallet.WithStepUp(apiErr.ChallengeID))
			}
			var before int
			if kc.objects != nil {
				before = kc.objects(t, sim, cl, ids)
			}
			entries := len(sim.LedgerEntries())
			if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: faultPath, Kind: simulator.FaultErrorAfter, Status: 504, Code: "upstream_timeout"}); err != nil {
				t.Fatal(err)
			}
			var resp *mwallet.Response
			if err := kc.call(cl, ids, append(opts, mwallet.WithResponse(&resp))...); err != nil {
				t.Fatalf("call after a 504 that executed: %v", err)
			}
			if resp == nil || !resp.Replayed || resp.Attempts != 2 || resp.IdempotencyKey != key {
				t.Errorf("response = %+v, want the replay of the stored outcome on the second attempt with key %s", resp, key)
			}
			if got := len(sim.LedgerEntries()) - entries; got != kc.moves {
				t.Errorf("%d ledger entries posted, want %d (one execution)", got, kc.moves)
			}
			if kc.objects != nil {
				if got := kc.objects(t, sim, cl, ids) - before; got != 1 {
					t.Errorf("%d objects created, want exactly 1", got)
				}
			}
			if kc.status != "" {
				c, err := cl.Cards.Get(eaCtx, member1, ids["card"])
				if err != nil || c.Status != kc.status {
					t.Errorf("card after the call = %+v, %v; want %s", c, err, kc.status)
				}
			}
			// The journal: the faulted attempt executed and answered 504, the
			// retry with the same key was answered by the replay.
			var withKey []simulator.RequestRecord
			for _, r := range sim.Requests.List() {
				if r.IdempotencyKey == key && r.Method == "POST" {
					withKey = append(withKey, r)
				}
			}
			n := len(withKey)
			if n < 2 {
				t.Fatalf("journal has %d requests with the key", n)
			}
			first, retry := withKey[n-2], withKey[n-1]
			if first.Fault != "error_after" || first.Status != 504 || first.Code != "upstream_timeout" || first.Replay {
				t.Errorf("faulted attempt in the journal = %+v", first)
			}
			if !retry.Replay || retry.Status >= 300 || retry.Fault != "" {
				t.Errorf("retry in the journal = %+v, want a 2xx replay", retry)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Error(err)
			}
		})
	}
}

// thbCode is a PromptPay code of 250.00 THB.
func thbCode() string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
			Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ERRAFTER1"}}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
		MerchantName: "ERROR AFTER KITCHEN", MerchantCity: "BANGKOK",
	})
}

// TestErrorAfterUnkeyed: a request without an idempotency key is executed
// too and answered the fault's error; nothing is stored, so its retry
// executes again. Covered: an unkeyed write (QR quote: the upstream is
// called), a naturally idempotent write (freeze), a read, the token exchange
// and an unknown path.
func TestErrorAfterUnkeyed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fault    simulator.Fault
		send     func(c *raw, tok string, ids map[string]string) result
		executed func(t *testing.T, sim *simulator.Simulator, ids map[string]string)
	}{
		{"quote", simulator.Fault{Path: "/v1/qrpay/quotes"},
			func(c *raw, tok string, _ map[string]string) result {
				return c.write(tok, "POST", "/v1/qrpay/quotes", member1, "", []byte(`{"code_value":"`+thbCode()+`"}`))
			},
			func(t *testing.T, sim *simulator.Simulator, _ map[string]string) {
				if n := sim.QRPay.UpstreamCalls().Quotes; n != 1 {
					t.Errorf("upstream quote calls = %d, want 1 (the quote executed)", n)
				}
			}},
		{"freeze", simulator.Fault{Path: "/v1/cards/*"},
			func(c *raw, tok string, ids map[string]string) result {
				return c.write(tok, "POST", "/v1/cards/"+ids["card"]+"/freeze", member1, "", nil)
			},
			func(t *testing.T, sim *simulator.Simulator, ids map[string]string) {
				for _, o := range sim.State().Cards {
					if o.ID == ids["card"] && o.Status != "frozen" {
						t.Errorf("card %s is %s, want frozen (the freeze executed)", o.ID, o.Status)
					}
				}
			}},
		{"read", simulator.Fault{Method: "GET", Path: "/v1/assets"},
			func(c *raw, tok string, _ map[string]string) result { return c.get(tok, "/v1/assets", "") },
			nil},
		{"token", simulator.Fault{Path: "/v1/connect/token"},
			func(c *raw, _ string, _ map[string]string) result {
				return c.exchangeToken(c.creds.ClientID, c.creds.APIKey)
			},
			func(t *testing.T, sim *simulator.Simulator, _ map[string]string) {
				if n := sim.Stats().Tokens; n != 2 {
					t.Errorf("%d tokens issued, want 2 (the faulted exchange issued one)", n)
				}
			}},
		{"unknown path", simulator.Fault{Path: "/v1/withdrawals/nothing-here"},
			func(c *raw, tok string, _ map[string]string) result {
				return c.get(tok, "/v1/withdrawals/nothing-here", "")
			},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			tok := c.token()
			ids := map[string]string{}
			if tt.name == "freeze" {
				ids["card"] = eaIssue(t, sim, sim.Client(), "cpd_virtual_std")
			}
			f := tt.fault
			f.Kind, f.Code = simulator.FaultErrorAfter, "upstream_timeout"
			if err := sim.Faults.Inject(f); err != nil {
				t.Fatal(err)
			}
			r := tt.send(c, tok, ids)
			wantCode(t, r, 504, "upstream_timeout")
			if r.header.Get("X-Idempotent-Replay") != "" {
				t.Errorf("the fault's answer claims a replay")
			}
			if tt.executed != nil {
				tt.executed(t, sim, ids)
			}
			recs := sim.Requests.List()
			if last := recs[len(recs)-1]; last.Fault != "error_after" || last.Status != 504 || last.Code != "upstream_timeout" {
				t.Errorf("journal = %+v", last)
			}
		})
	}
}
