package mwclient_test

import (
	"context"
	"errors"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestStepUpResendInOneCall resends a QR payment after its step-up with
// mwallet.StepUpResend(err) alone: the same idempotency key and the
// completed challenge. Given an error that is not a step-up challenge, the
// options refuse the call before sending, wrapping that error, so that no
// resend goes out as a new payment.
func TestStepUpResendInOneCall(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	p := qrpay.PayParams{CodeValue: sampleqr.PromptPay, PreferredAsset: "USDT"}
	_, err := c.QRPay.Pay(ctx, "member-1", p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("pay: %v, want step_up_required", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	order, err := c.QRPay.Pay(ctx, "member-1", p, mwallet.StepUpResend(err)...)
	if err != nil {
		t.Fatalf("resend: %v", err)
	}
	if order.Status != qrpay.StatusProcessing || order.Response.IdempotencyKey != su.IdempotencyKey {
		t.Errorf("resent order %s under key %s, want processing under the first key %s", order.Status, order.Response.IdempotencyKey, su.IdempotencyKey)
	}

	notStepUp := []struct {
		name string
		err  error
	}{
		{"nil", nil},
		{"another service error", &mwallet.Error{Code: mwallet.CodeInsufficientBalance, HTTPStatus: 400}},
		{"a plain error", errors.New("connection reset")},
		{"step_up_required without a challenge", &mwallet.Error{Code: mwallet.CodeStepUpRequired, HTTPStatus: 400}},
	}
	for _, tt := range notStepUp {
		before := len(sim.Requests.List())
		_, err := c.QRPay.Pay(ctx, "member-1", p, mwallet.StepUpResend(tt.err)...)
		var pe *mwallet.ParamError
		if !errors.As(err, &pe) || pe.Param != "StepUpResend" || tt.err != nil && !errors.Is(err, tt.err) {
			t.Errorf("%s: resend = %v, want a *mwallet.ParamError wrapping the error", tt.name, err)
		}
		if n := len(sim.Requests.List()) - before; n != 0 {
			t.Errorf("%s: %d requests sent, want none", tt.name, n)
		}
	}
}
