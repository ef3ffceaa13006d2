package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/uuid"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

func (t *triggerRun) memberCreated() (string, error) {
	id, err := t.newMember()
	return id, err
}

func (t *triggerRun) memberSuspended() (string, error) {
	if err := t.useMember(); err != nil {
		return "", err
	}
	if err := t.control(http.MethodPost, "/_sim/members/"+url.PathEscape(t.memberID)+"/status", map[string]string{"status": "suspended"}, nil); err != nil {
		return "", err
	}
	t.step("operator: suspended member %s  (POST /_sim/members/%s/status)", t.member, t.memberID)
	return t.memberID, nil
}

func (t *triggerRun) kycResultUpdated() (string, error) {
	if err := t.useMember(); err != nil {
		return "", err
	}
	if err := t.action("kyc", t.memberID, "approve", map[string]int{"level": 2}); err != nil {
		return "", err
	}
	return t.memberID, nil
}

func (t *triggerRun) kycQuickCompensated() (string, error) {
	if err := t.useMember(); err != nil {
		return "", err
	}
	b, err := t.client.KYC.CreateQuickBinding(t.ctx, t.member, kyc.QuickBindingParams{})
	if err != nil {
		return "", err
	}
	t.step("allocated quick KYC binding %s, fee %s %s  (POST /v1/kyc/quick)", b.ID, b.FeeAmount, b.FeeAsset)
	if err := t.action("kyc/quick", b.ID, "compensate", map[string]string{"compensation_source": "admin"}); err != nil {
		return "", err
	}
	return b.ID, nil
}

func (t *triggerRun) depositCredited() (string, error) {
	if t.merchantFunded() {
		return "", errors.New("deposits are for platform_hosted merchants only; switch the merchant with POST /_sim/merchant {\"model\":\"platform_hosted\"} or start mwallet-sim with -model platform_hosted")
	}
	if err := t.useMember(); err != nil {
		return "", err
	}
	amt, err := money.Parse("25", 6)
	if err != nil {
		return "", err
	}
	ref := "trigger-" + randomSuffix()
	d, err := t.client.Deposits.Create(t.ctx, t.member, deposits.CreateParams{Asset: "USDT", Amount: amt, Reference: ref, Network: "TRON"})
	if err != nil {
		return "", err
	}
	t.step("declared deposit %s of %s %s  (POST /v1/deposits)", d.ID, d.Amount, d.Asset)
	return "", nil
}

// remit sends a 10.00 GBP remittance and runs the control actions in order.
func remit(actions ...string) func(t *triggerRun) (string, error) {
	return func(t *triggerRun) (string, error) {
		if err := t.useMember(); err != nil {
			return "", err
		}
		var payee *remittance.Payee
		for p, err := range t.client.Remittances.Payees(t.ctx, t.member, mwallet.ListParams{}) {
			if err != nil {
				return "", err
			}
			if p.Currency == "GBP" {
				payee = &p
				break
			}
		}
		if payee == nil {
			return "", errors.New("the member has no GBP payee")
		}
		t.step("picked payee %s (%s)  (GET /v1/remit/payees)", payee.ID, payee.Corridor)
		p := remittance.CreateParams{
			PayeeID: payee.ID, PayoutAmount: "10.00", PayoutCurrency: payee.Currency, SlippageBps: 100,
			PurposeCode: "FAMILY_SUPPORT", Reference: "trigger",
		}
		if t.merchantFunded() {
			p.FundingSource = mwallet.FundingSource("merchant")
		}
		r, err := t.client.Remittances.Create(t.ctx, t.member, p)
		if err != nil {
			return "", err
		}
		t.step("created remittance %s of 10.00 GBP: %s  (POST /v1/remittances)", r.ID, r.Status)
		for _, a := range actions {
			if err := t.action("remittances", r.ID, a, nil); err != nil {
				return "", err
			}
		}
		return r.ID, nil
	}
}

// triggerQRCode is a dynamic PromptPay bill-payment code of 250.00 THB.
var triggerQRCode = sampleqr.PromptPay

// qr pays a QR code (decode, quote, pay, step-up, pay again) and runs the
// control actions in order.
func qr(actions ...string) func(t *triggerRun) (string, error) {
	return func(t *triggerRun) (string, error) {
		if err := t.useMember(); err != nil {
			return "", err
		}
		id, err := t.payQR()
		if err != nil {
			return "", err
		}
		for _, a := range actions {
			if err := t.action("qrpay/orders", id, a, nil); err != nil {
				return "", err
			}
		}
		return id, nil
	}
}

func (t *triggerRun) payQR() (string, error) {
	dec, err := t.client.QRPay.Decode(t.ctx, t.member, qrpay.DecodeParams{CodeValue: triggerQRCode})
	if err != nil {
		return "", err
	}
	t.step("decoded QR code: %s to %s  (POST /v1/qrpay/decode)", dec.Amount, dec.Payee)
	qp := qrpay.QuoteParams{CodeValue: triggerQRCode}
	if t.merchantFunded() {
		qp.FundingSource = mwallet.FundingMerchant
	}
	q, err := t.client.QRPay.Quote(t.ctx, t.member, qp)
	if err != nil {
		return "", err
	}
	t.step("quoted: %s %s  (POST /v1/qrpay/quotes)", q.Chosen.CustomerTotal, q.Chosen.Asset)
	pp := qrpay.PayParams{CodeValue: triggerQRCode, PreferredAsset: q.Chosen.Asset, FundingSource: qp.FundingSource}
	_, err = t.client.QRPay.Pay(t.ctx, t.member, pp)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		if err == nil {
			err = errors.New("the payment did not ask for step-up")
		}
		return "", err
	}
	t.step("pay: step_up_required, challenge %s  (POST /v1/qrpay/payments)", su.ChallengeID)
	path := "/_sim/step-up/" + url.PathEscape(su.ChallengeID) + "/complete"
	if err := t.control(http.MethodPost, path, map[string]any{}, nil); err != nil {
		return "", err
	}
	t.step("end user completed the hosted step-up screen  (POST %s)", path)
	o, err := t.client.QRPay.Pay(t.ctx, t.member, pp, su.Options()...)
	if err != nil {
		return "", err
	}
	t.step("paid: order %s %s, %s %s held  (POST /v1/qrpay/payments, x-step-up)", o.ID, o.Status, o.CustomerTotal, o.Asset)
	return o.ID, nil
}

// apply applies for a card of product and returns the application.
func (t *triggerRun) apply(product string, firstTopUp string) (*cards.Application, error) {
	if err := t.useMember(); err != nil {
		return nil, err
	}
	p := cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: product}
	if firstTopUp != "" {
		amt, err := money.Parse(firstTopUp, 6)
		if err != nil {
			return nil, err
		}
		p.FirstTopUp = amt
	}
	if t.merchantFunded() {
		p.FundingSource = mwallet.FundingSource("merchant")
	}
	a, err := t.client.Cards.Apply(t.ctx, t.member, p)
	if err != nil {
		return nil, err
	}
	t.step("applied for %s: application %s %s  (POST /v1/cards/applications)", product, a.ID, a.Status)
	return a, nil
}

// issue applies for a virtual card, approves it and returns the card id.
func (t *triggerRun) issue(firstTopUp string) (string, error) {
	a, err := t.apply("cpd_virtual_std", firstTopUp)
	if err != nil {
		return "", err
	}
	if err := t.action("cards/applications", a.ID, "approve", nil); err != nil {
		return "", err
	}
	got, err := t.client.Cards.GetApplication(t.ctx, t.member, a.ID)
	if err != nil {
		return "", err
	}
	if got.CardID == "" {
		return "", fmt.Errorf("application %s is %s with no card", a.ID, got.Status)
	}
	t.step("application %s issued card %s  (GET /v1/cards/applications/%s)", a.ID, got.CardID, a.ID)
	return got.CardID, nil
}

func (t *triggerRun) cardSubmitted() (string, error) {
	a, err := t.apply("cpd_virtual_std", "")
	if err != nil {
		return "", err
	}
	return a.ID, nil
}

func (t *triggerRun) cardApproved() (string, error) {
	a, err := t.apply("cpd_virtual_std", "")
	if err != nil {
		return "", err
	}
	return a.ID, t.action("cards/applications", a.ID, "approve", nil)
}

func (t *triggerRun) cardRejected() (string, error) {
	a, err := t.apply("cpd_virtual_std", "")
	if err != nil {
		return "", err
	}
	return a.ID, t.action("cards/applications", a.ID, "reject", nil)
}

func (t *triggerRun) cardAwaitingBind() (string, error) {
	a, err := t.apply("cpd_physical_std", "")
	if err != nil {
		return "", err
	}
	if err := t.action("cards/applications", a.ID, "approve", nil); err != nil {
		return "", err
	}
	got, err := t.client.Cards.GetApplication(t.ctx, t.member, a.ID)
	if err != nil {
		return "", err
	}
	t.step("application %s issued physical card %s (in manufacturing)", a.ID, got.CardID)
	return a.ID, t.action("cards", got.CardID, "ship", nil)
}

func (t *triggerRun) cardStatusUpdated() (string, error) {
	id, err := t.issue("")
	if err != nil {
		return "", err
	}
	r, err := t.client.Cards.Freeze(t.ctx, t.member, id)
	if err != nil {
		return "", err
	}
	t.step("froze card %s: %s  (POST /v1/cards/%s/freeze)", r.ID, r.Status, id)
	return id, nil
}

func (t *triggerRun) cardTopUpCredited() (string, error) {
	id, err := t.issue("")
	if err != nil {
		return "", err
	}
	amt, err := money.Parse("20", 6)
	if err != nil {
		return "", err
	}
	p := cards.TopUpParams{Amount: amt, SourceAsset: "USDT"}
	if t.merchantFunded() {
		p.FundingSource = mwallet.FundingSource("merchant")
	}
	tu, err := t.client.Cards.TopUp(t.ctx, t.member, id, p)
	if err != nil {
		return "", err
	}
	t.step("topped up card %s with 20 USDT: top-up %s %s  (POST /v1/cards/%s/topups)", id, tu.ID, tu.Status, id)
	return tu.ID, t.action("cards/topups", tu.ID, "credit", nil)
}

func (t *triggerRun) cardWithdrawCompleted() (string, error) {
	topUp, err := t.cardTopUpCredited()
	if err != nil {
		return "", err
	}
	var tu struct {
		CardID string `json:"card_id"`
	}
	if err := t.control(http.MethodGet, "/_sim/cards/topups/"+url.PathEscape(topUp), nil, &tu); err != nil {
		return "", err
	}
	if err := t.action("cards", tu.CardID, "set_status", map[string]string{"status": "closed"}); err != nil {
		return "", err
	}
	t.step("the operator closed card %s: its balance went back to the member's wallet", tu.CardID)
	return "", nil // the event names a withdrawal id of its own; found by member
}

func (t *triggerRun) cardTransactionUpdated() (string, error) {
	id, err := t.issue("")
	if err != nil {
		return "", err
	}
	var tx struct {
		ID string `json:"id"`
	}
	body := simulator.CardTransaction{Kind: "auth", Status: "pending", Direction: "debit", Amount: "1250", AuthCode: "TRG001", MerchantName: "TRIGGER CAFE"}
	path := "/_sim/cards/" + url.PathEscape(id) + "/transactions"
	if err := t.control(http.MethodPost, path, body, &tx); err != nil {
		return "", err
	}
	t.step("card network: authorization %s of 12.50 USD pending on card %s  (POST %s)", tx.ID, id, path)
	return tx.ID, nil
}

// synthetic records an event of type typ that the simulator has no product
// flow for: data.object object, a new data.id (the merchant id for
// merchant-level events, the member's internal id for flexible-interest earn
// settlements), and the member acted for when memberScoped.
func synthetic(typ, object, status string, version int64, memberScoped bool) recipe {
	return recipe{
		how: "no product flow: recorded with POST /_sim/webhooks/events (data.object " + object + ", status " + status + ")",
		run: func(t *triggerRun) (string, error) {
			ext, id := "", uuid.NewString()
			if memberScoped {
				if err := t.useMember(); err != nil {
					return "", err
				}
				ext = t.member
				if object == "earn_order" {
					id = bareID(t.memberID)
				}
			} else {
				id = t.creds.MerchantID
			}
			var out struct {
				EventID string `json:"event_id"`
			}
			body := map[string]any{
				"event_type": typ, "object": object, "id": id, "external_member_id": ext,
				"status": status, "status_version": version,
			}
			if err := t.control(http.MethodPost, "/_sim/webhooks/events", body, &out); err != nil {
				return "", err
			}
			t.step("recorded synthetic %s: data.object %s, data.id %s, status %s, status_version %d  (POST /_sim/webhooks/events)",
				typ, object, id, status, version)
			if out.EventID == "" {
				return "", errors.New("the simulator recorded no event (platform-direct members get none)")
			}
			return out.EventID, nil
		},
	}
}
