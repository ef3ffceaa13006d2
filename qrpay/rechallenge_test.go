package qrpay_test

import (
	"context"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// A resend carrying a challenge the end user has not finished is answered
// step_up_required with a new challenge; the first one stays valid (the
// contract makes each challenge single use, bound to the member and the QR
// payload, for 5 minutes, and does not say a new one revokes it). Whichever
// the user completes authorises the payment, and under one idempotency key
// the payment executes once: the other challenge, resent with the same key,
// gets the replay. What the backend must do (docs/concepts.md): keep one key
// per payment across every resend, and send the user to the newest hosted
// URL, or keep waiting on the first.
func TestResendWithAnUnfinishedChallenge(t *testing.T) {
	t.Parallel()
	sim, client := simtest.New(t)
	ctx := context.Background()
	p := qrpay.PayParams{CodeValue: sampleqr.PromptPay}
	key := mwallet.WithIdempotencyKey(mwallet.NewIdempotencyKey())

	_, err := client.QRPay.Pay(ctx, member1, p, key)
	first, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("want step_up_required, got %v", err)
	}
	// The user has not finished: the resend is refused with a new challenge.
	_, err = client.QRPay.Pay(ctx, member1, p, key, mwallet.WithStepUp(first.ChallengeID))
	second, ok := mwallet.AsStepUp(err)
	if !ok || second.ChallengeID == first.ChallengeID {
		t.Fatalf("resend with an unfinished challenge: %v; want step_up_required with a new challenge", err)
	}
	// The user finishes the first screen after all: it still pays.
	if err := sim.StepUp.Complete(first.ChallengeID); err != nil {
		t.Fatal(err)
	}
	order, err := client.QRPay.Pay(ctx, member1, p, key, mwallet.WithStepUp(first.ChallengeID))
	if err != nil || order.Response.Replayed {
		t.Fatalf("resend with the first challenge completed: %+v, %v", order, err)
	}
	// The second challenge, completed too and resent with the same key:
	// the same order, replayed; nothing is paid twice.
	if err := sim.StepUp.Complete(second.ChallengeID); err != nil {
		t.Fatal(err)
	}
	again, err := client.QRPay.Pay(ctx, member1, p, key, mwallet.WithStepUp(second.ChallengeID))
	if err != nil || !again.Response.Replayed || again.ID != order.ID {
		t.Fatalf("resend with the second challenge: %+v, %v; want the replay of %s", again, err, order.ID)
	}
	if n := sim.QRPay.UpstreamCalls().Notices; n != 1 {
		t.Errorf("upstream notices = %d, want 1", n)
	}
	available, _, err := sim.Members.Balance(member1, "USDT")
	if err != nil || !available.Equal(money.MustParse("992.691891", 6)) {
		t.Errorf("available %s (%v); want one debit", available, err)
	}
}
