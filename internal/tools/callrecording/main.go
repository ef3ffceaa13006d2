// Command callrecording writes a recording of the simulator whose inputs
// are calls of its Go control API (recording op "call", one or more for
// each method that changes state), between business requests made with the
// SDK that give those calls objects to act on. Run at an earlier commit, it
// gives simulator/testdata/recordings a recording that names every Go
// control method as that build recorded it, so a later build that renames
// one fails to replay it (TestRecordingsOfEarlierBuildsReplay).
//
// Usage, in a checkout of the commit (copy this file there first):
//
//	go run ./internal/tools/callrecording -o calls.jsonl
//
// It exits 1 when a call it makes fails unexpectedly.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

var failed int

// try reports a failed step; the recording keeps going.
func try(what string, err error) {
	if err != nil {
		failed++
		fmt.Fprintf(os.Stderr, "callrecording: %s: %v\n", what, err)
	}
}

func main() {
	out := flag.String("o", "calls.jsonl", "file to write the recording to")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "callrecording:", err)
		os.Exit(1)
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func run(out string) error {
	ctx := context.Background()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer recv.Close()
	sim, err := simulator.New(simulator.WithSeed(42))
	if err != nil {
		return err
	}
	defer sim.Close()
	client := sim.Client()
	const m = "member-1"

	ep, _, err := sim.Webhooks.AddEndpoint(recv.URL + "/hooks")
	try("Webhooks.AddEndpoint", err)
	ep2, _, err := sim.Webhooks.AddEndpointConfig(simulator.WebhookEndpointConfig{URL: recv.URL + "/other", Events: []string{"member.created"}})
	try("Webhooks.AddEndpointConfig", err)
	try("Webhooks.DisableEndpoint", sim.Webhooks.DisableEndpoint(ep2))
	try("Webhooks.EnableEndpoint", sim.Webhooks.EnableEndpoint(ep2))

	_, err = sim.Members.Create(simulator.MemberSeed{ExternalID: "calls-2", KYCLevel: 2, Balances: map[string]string{"USDT": "500"}})
	try("Members.Create", err)
	try("Members.SetStatus", sim.Members.SetStatus("calls-2", "suspended"))
	try("Members.SetStatus", sim.Members.SetStatus("calls-2", "active"))
	try("Members.SetFundsProtection", sim.Members.SetFundsProtection("calls-2", true))
	try("Members.SetFundsProtection", sim.Members.SetFundsProtection("calls-2", false))

	fee := int64(25)
	try("Merchant.Set", sim.Merchant.Set(simulator.MerchantSettings{FeeRateBps: &fee}))
	try("Merchant.TopUpPrepaid", sim.Merchant.TopUpPrepaid("USDT", "100"))
	try("Merchant.WithdrawPrepaid", sim.Merchant.WithdrawPrepaid("USDC", "50"))
	try("Merchant.SetPOBOSubaccount", sim.Merchant.SetPOBOSubaccount(true))
	try("Merchant.SetWriteQuota", sim.Merchant.SetWriteQuota(0))
	try("Outcomes.Set", sim.Outcomes.Set("remittances", simulator.Manual()))
	try("QRPay.SetEnabled", sim.QRPay.SetEnabled(true))
	try("QRPay.SetMerchantFeeRate", sim.QRPay.SetMerchantFeeRate(30))
	try("QRPay.SetFiatRate", sim.QRPay.SetFiatRate("THB", "0.028"))
	try("QRPay.SetScenario", sim.QRPay.SetScenario("000201-unused", simulator.QRScenarioTimeout))
	try("Cards.SetLimit", sim.Cards.SetLimit("virtual", 20))
	try("Cards.SetPenalty", sim.Cards.SetPenalty("calls-2", true))
	try("Cards.SetKYCCountry", sim.Cards.SetKYCCountry("calls-2", "SG"))
	_, err = sim.Cards.AddShippingAddress(m, "SG", true)
	try("Cards.AddShippingAddress", err)
	try("Cards.SetBINAuthorizations", sim.Cards.SetBINAuthorizations())
	try("Cards.SetProductEnabled", sim.Cards.SetProductEnabled("cpd_virtual_std", true))
	try("KYC.SetQuick", sim.KYC.SetQuick(true, 5))
	try("KYC.Update", sim.KYC.Update("calls-2"))
	try("KYC.Approve", sim.KYC.Approve("calls-2", 2))
	_, err = sim.Keys.Add("calls_key", "calls_api_key_0123456789", "calls_signing_key_0123456789", simulator.KeySettings{Scopes: []string{"members:read"}})
	try("Keys.Add", err)
	off := true
	try("Keys.Set", sim.Keys.Set("calls_key", simulator.KeySettings{Disabled: &off}))
	_, err = sim.Keys.Sign(simulator.DefaultClientID, "POST", "/v1/deposits", "0b4c2c4e-9a57-4c2b-8d5e-2f0c7f1c1a11", []byte("{}"))
	try("Keys.Sign", err)
	_, err = sim.Events.Emit("earn.order.settled", "earn_order", "eo_calls_1", m, "settled", 1)
	try("Events.Emit", err)
	_, err = sim.Events.EmitExtra("kyc.quick.compensated", "kyc_quick", "kq_calls_1", m, "compensated", 1, map[string]any{"compensation_source": "admin"})
	try("Events.EmitExtra", err)
	try("Faults.Inject", sim.Faults.Inject(simulator.Fault{Method: "GET", Path: "/v1/assets", Count: 1, Kind: simulator.FaultError, Code: "upstream_error"}))
	_, _ = client.Assets(ctx) // the SDK retries the fault's 502: the answer does not matter
	try("Faults.Inject", sim.Faults.Inject(simulator.Fault{Method: "GET", Path: "/v1/cards", Count: 5, Kind: simulator.FaultError, Code: "api_error"}))
	try("Faults.Clear", sim.Faults.Clear())
	try("Requests.StartInProgress", sim.Requests.StartInProgress("POST", "/v1/deposits", "1f0c2a9e-3b7d-4c55-9e21-6f8a0b1c2d3e", []byte(`{}`), time.Minute))
	try("Requests.Reset", sim.Requests.Reset())

	// Business objects, then the upstreams' Go calls on them.
	code := emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
			Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "CALLS"}}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
	pay := func() string {
		p := qrpay.PayParams{CodeValue: code, PreferredAsset: "USDT"}
		_, err := client.QRPay.Pay(ctx, m, p)
		su, ok := mwallet.AsStepUp(err)
		if !ok {
			try("QR payment step-up", fmt.Errorf("want step_up_required, got %v", err))
			return ""
		}
		try("StepUp.Complete", sim.StepUp.Complete(su.ChallengeID))
		o, err := client.QRPay.Pay(ctx, m, p, su.Options()...)
		try("QR payment", err)
		if err != nil {
			return ""
		}
		return o.ID
	}
	q1, q2, q3 := pay(), pay(), pay()
	try("QRPay.Complete", sim.QRPay.Complete(q1))
	try("QRPay.Refund", sim.QRPay.Refund(q1))
	try("QRPay.Fail", sim.QRPay.Fail(q2))
	try("QRPay.Timeout", sim.QRPay.Timeout(q3))

	apply := func(product string) (string, string) {
		app, err := client.Cards.Apply(ctx, m, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: product})
		try("card application", err)
		if err != nil {
			return "", ""
		}
		try("Cards.ApproveApplication", sim.Cards.ApproveApplication(app.ID))
		got, err := client.Cards.GetApplication(ctx, m, app.ID)
		try("card application read", err)
		if err != nil {
			return app.ID, ""
		}
		return app.ID, got.CardID
	}
	_, card := apply("cpd_virtual_std")
	t1, err := client.Cards.TopUp(ctx, m, card, cards.TopUpParams{Amount: money.MustParse("20", 6)})
	try("card top-up", err)
	if err == nil {
		try("Cards.CreditTopUp", sim.Cards.CreditTopUp(t1.ID))
	}
	t2, err := client.Cards.TopUp(ctx, m, card, cards.TopUpParams{Amount: money.MustParse("20", 6)})
	try("card top-up", err)
	if err == nil {
		try("Cards.RejectTopUp", sim.Cards.RejectTopUp(t2.ID))
	}
	t3, err := client.Cards.TopUp(ctx, m, card, cards.TopUpParams{Amount: money.MustParse("20", 6)})
	try("card top-up", err)
	if err == nil {
		try("Cards.TimeoutTopUp", sim.Cards.TimeoutTopUp(t3.ID))
	}
	try("Cards.TimeoutNextTopUps", sim.Cards.TimeoutNextTopUps(0))
	_, err = sim.Cards.AddTransaction(card, simulator.CardTransaction{Kind: "auth", Status: "succeed", Direction: "debit", Amount: "1250"})
	try("Cards.AddTransaction", err)
	try("Cards.SetUpstreamBalanceReadable", sim.Cards.SetUpstreamBalanceReadable(card, true))
	try("Cards.SetCloseRefused", sim.Cards.SetCloseRefused(card, false))
	try("Cards.SetStatus", sim.Cards.SetStatus(card, "frozen"))
	try("Cards.SetStatus", sim.Cards.SetStatus(card, "active"))
	_, phys := apply("cpd_physical_std")
	try("Cards.Ship", sim.Cards.Ship(phys))
	_, err = sim.Cards.Plastic(phys)
	try("Cards.Plastic", err)
	try("Cards.UnlockActivation", sim.Cards.UnlockActivation(phys))
	empty, err := client.Cards.Apply(ctx, m, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"})
	try("card application", err)
	if err == nil {
		try("Cards.RejectApplication", sim.Cards.RejectApplication(empty.ID))
	}
	_, closing := apply("cpd_virtual_std")
	if _, err := client.Cards.Close(ctx, m, closing, cards.CloseParams{}); err == nil {
		try("Cards.CompleteClose", sim.Cards.CompleteClose(closing))
	} else {
		try("card close", err)
	}

	var payee string
	for p, err := range client.Remittances.Payees(ctx, m, mwallet.ListParams{}) {
		try("payees", err)
		if err == nil && p.Currency == "GBP" {
			payee = p.ID
			break
		}
	}
	remit := func() string {
		r, err := client.Remittances.Create(ctx, m, remittance.CreateParams{PayeeID: payee, PayoutAmount: "10.00",
			PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: "FAMILY_SUPPORT"})
		try("remittance", err)
		if err != nil {
			return ""
		}
		return r.ID
	}
	r1, r2, r3, r4 := remit(), remit(), remit(), remit()
	try("Remittances.Dispatch", sim.Remittances.Dispatch(r1))
	try("Remittances.Complete", sim.Remittances.Complete(r1, ""))
	try("Remittances.Refund", sim.Remittances.Refund(r1))
	try("Remittances.Fail", sim.Remittances.Fail(r2, ""))
	try("Remittances.NeedsReconfirm", sim.Remittances.NeedsReconfirm(r3))
	_, err = sim.Remittances.Advance(r4)
	try("Remittances.Advance", err)
	try("Outcomes.SetObject", sim.Outcomes.SetObject(r4, simulator.Immediate()))

	_, err = client.Deposits.Create(ctx, m, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "calls-1"})
	try("deposit", err)
	try("KYC.Reject", sim.KYC.Reject("calls-2"))

	sim.Clock.Advance(2 * time.Minute)
	_, err = sim.Webhooks.Flush(ctx)
	try("Webhooks.Flush", err)
	try("Webhooks.DisableEndpoint", sim.Webhooks.DisableEndpoint(ep))
	for _, d := range sim.Webhooks.Deliveries() {
		if d.Status == "sent" {
			continue
		}
		try("Webhooks.EnableEndpoint", sim.Webhooks.EnableEndpoint(ep))
		try("Webhooks.Redeliver", sim.Webhooks.Redeliver(d.ID))
		break
	}
	try("Webhooks.RemoveEndpoint", sim.Webhooks.RemoveEndpoint(ep2))
	_, err = sim.Webhooks.Flush(ctx)
	try("Webhooks.Flush", err)

	if err := sim.CheckLedger(); err != nil {
		return err
	}
	if err := sim.CheckInvariants(); err != nil {
		return err
	}
	rec, err := sim.Recording()
	if err != nil {
		return err
	}
	fmt.Printf("%d inputs written to %s\n", rec.Len(), out)
	return rec.WriteFile(out)
}
