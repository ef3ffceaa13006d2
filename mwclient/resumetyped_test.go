package mwclient_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// Each money-moving write, executed by the service but its answer lost
// (drop_after), leaves its record; a new client on the same store resumes
// it with ResumeTyped and gets the replayed result typed as the method
// returns it, one object made.
func TestResumeTypedPerProduct(t *testing.T) {
	t.Parallel()
	type tc struct {
		op, path string
		setup    func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) func() error // returns the call to crash
		check    func(t *testing.T, r *mwclient.Resumed) string                                // the typed result's id
	}
	cardOf := func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) string {
		app, err := c.Cards.Apply(ctx, member, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"})
		if err != nil {
			t.Fatal(err)
		}
		if err := sim.Cards.ApproveApplication(app.ID); err != nil {
			t.Fatal(err)
		}
		app, err = c.Cards.GetApplication(ctx, member, app.ID)
		if err != nil {
			t.Fatal(err)
		}
		return app.CardID
	}
	cases := []tc{
		{"qrpay.Pay", "/v1/qrpay/payments", func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) func() error {
			p := qrpay.PayParams{CodeValue: sampleqr.PromptPay}
			_, err := c.QRPay.Pay(ctx, member, p)
			su, ok := mwallet.AsStepUp(err)
			if !ok {
				t.Fatalf("want step_up_required, got %v", err)
			}
			if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
				t.Fatal(err)
			}
			return func() error {
				_, err := c.QRPay.Pay(ctx, member, p, append(su.Options(), mwallet.WithMaxAttempts(1))...)
				return err
			}
		}, func(t *testing.T, r *mwclient.Resumed) string {
			if r.QRPayment == nil || r.QRPayment.LedgerScale != 6 {
				t.Fatalf("QRPayment %+v", r.QRPayment)
			}
			return r.QRPayment.ID
		}},
		{"deposits.Create", "/v1/deposits", func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) func() error {
			return func() error {
				_, err := c.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "resume-1"}, mwallet.WithMaxAttempts(1))
				return err
			}
		}, func(t *testing.T, r *mwclient.Resumed) string { return r.Deposit.ID }},
		{"cards.Apply", "/v1/cards/applications", func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) func() error {
			return func() error {
				_, err := c.Cards.Apply(ctx, member, cards.ApplyParams{ClientKey: "ck-resume-1", SourceAsset: "USDT", ProductID: "cpd_virtual_std"}, mwallet.WithMaxAttempts(1))
				return err
			}
		}, func(t *testing.T, r *mwclient.Resumed) string {
			if r.CardApplication.ClientKey != "ck-resume-1" {
				t.Errorf("client key %q", r.CardApplication.ClientKey)
			}
			return r.CardApplication.ID
		}},
		{"cards.TopUp", "/v1/cards/*", func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) func() error {
			card := cardOf(t, sim, c)
			return func() error {
				_, err := c.Cards.TopUp(ctx, member, card, cards.TopUpParams{Amount: money.MustParse("25", 6), SourceAsset: "USDT"}, mwallet.WithMaxAttempts(1))
				return err
			}
		}, func(t *testing.T, r *mwclient.Resumed) string { return r.CardTopUp.ID }},
		{"remittance.Create", "/v1/remittances", func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) func() error {
			var payee remittance.Payee
			for py, err := range c.Remittances.Payees(ctx, member, mwallet.ListParams{}) {
				if err != nil {
					t.Fatal(err)
				}
				if py.Currency == "GBP" {
					payee = py
				}
			}
			return func() error {
				_, err := c.Remittances.Create(ctx, member, remittance.CreateParams{PayeeID: payee.ID, PayoutAmount: "100.00",
					PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport}, mwallet.WithMaxAttempts(1))
				return err
			}
		}, func(t *testing.T, r *mwclient.Resumed) string { return r.Remittance.ID }},
	}
	for _, tt := range cases {
		t.Run(tt.op, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			store := mwallet.NewMemoryPendingStore()
			c := sim.Client(mwallet.WithPendingStore(store))
			call := tt.setup(t, sim, c)
			if err := sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: tt.path, Kind: simulator.FaultDropAfter}); err != nil {
				t.Fatal(err)
			}
			var te *mwallet.TransportError
			if err := call(); !errorsAs(err, &te) {
				t.Fatalf("want the answer lost, got %v", err)
			}
			// A new process on the same store.
			restarted := sim.Client(mwallet.WithPendingStore(store))
			pending, err := restarted.PendingRequests(ctx)
			if err != nil || len(pending) != 1 || pending[0].Operation() != tt.op {
				t.Fatalf("pending = %v, %v", pending, err)
			}
			r, err := restarted.ResumeTyped(ctx, pending[0])
			if err != nil {
				t.Fatal(err)
			}
			id := tt.check(t, r)
			if r.Operation != tt.op || r.Response == nil || !r.Response.Replayed || id == "" {
				t.Fatalf("resumed %s: operation %s, replayed %v, id %q", tt.op, r.Operation, r.Response != nil && r.Response.Replayed, id)
			}
			if left, _ := store.List(ctx); len(left) != 0 {
				t.Errorf("record kept after the replay: %v", left)
			}
			// A typed resume of another method refuses the record.
			if _, err := restarted.KYC.ResumeProfileSession(ctx, pending[0]); err == nil || !strings.Contains(err.Error(), "not of kyc.ProfileSession") {
				t.Errorf("ResumeProfileSession of a %s record: %v", tt.op, err)
			}
		})
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
