package qrpay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestPaymentReplaysWithTheSameKey(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "poor", KYCLevel: 1, Balances: map[string]string{"USDT": "5"}}))
	ctx := context.Background()
	p := qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00")}

	_, err := c.QRPay.Pay(ctx, member1, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatal(err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	first, err := c.QRPay.Pay(ctx, member1, p, su.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	held := books(sim)
	// A resend with the same key (after a lost answer, say) replays the
	// order: no second hold, no second notice.
	again, err := c.QRPay.Pay(ctx, member1, p, mwallet.WithIdempotencyKey(su.IdempotencyKey))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || !again.Response.Replayed || first.Response.Replayed {
		t.Fatalf("replay %s (replayed %v), first %s", again.ID, again.Response.Replayed, first.ID)
	}
	if diff := cmp.Diff(held, books(sim)); diff != "" || sim.QRPay.UpstreamCalls().Notices != 1 {
		t.Fatalf("replay moved money or notified again:\n%s", diff)
	}

	// A business failure replays too, and the client's own retry of the 500
	// gets the stored failure rather than a new step-up.
	_, err = c.QRPay.Pay(ctx, "poor", p)
	su, ok = mwallet.AsStepUp(err)
	if !ok {
		t.Fatal(err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	_, err = c.QRPay.Pay(ctx, "poor", p, su.Options()...)
	if e := simtest.AsError(t, err); e.Code != mwallet.CodeAPIError {
		t.Fatalf("Pay: %v, want the 500 business failure", err)
	}
	_, err = c.QRPay.Pay(ctx, "poor", p, mwallet.WithIdempotencyKey(su.IdempotencyKey), mwallet.WithMaxAttempts(1))
	if e := simtest.AsError(t, err); e.Code != mwallet.CodeAPIError || !e.Replayed {
		t.Fatalf("resend with the same key: %v (replayed %v), want the replayed failure", err, e.Replayed)
	}
}

func TestControlActionsOverHTTP(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00")})
	bare := strings.TrimPrefix(o.ID, "qrp_")
	post := func(path string) (int, map[string]any) {
		resp, err := http.Post(sim.URL()+path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	steps := []struct {
		path   string
		status int
		want   string // order status or error code
	}{
		{"/_sim/qrpay/orders/" + bare + "/timeout", 200, "processing"},
		{"/_sim/qrpay/orders/" + o.ID + "/refund", 400, "state_invalid"},
		{"/_sim/qrpay/orders/" + bare + "/complete", 200, "completed"},
		{"/_sim/qrpay/orders/" + o.ID + "/refund", 200, "refunded"},
		{"/_sim/qrpay/orders/qrp_unknown/complete", 404, "not_found"},
	}
	for _, s := range steps {
		status, out := post(s.path)
		got, _ := out["status"].(string)
		if status != 200 {
			got, _ = out["code"].(string)
		}
		if status != s.status || got != s.want {
			t.Errorf("POST %s: %d %v, want %d %s", s.path, status, out, s.status, s.want)
		}
	}
	if got, want := sim.QRPay.Trace(o.ID), []string{"step_up", "quote", "hold", "notice", "timeout", "complete", "refund"}; !cmp.Equal(got, want) {
		t.Errorf("trace %v, want %v", got, want)
	}
}
