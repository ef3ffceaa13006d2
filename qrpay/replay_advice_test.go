package qrpay_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// journalOf returns the journal's POST answers of the idempotency key that
// reached the payment handler (status 500): code, replay flag and the
// request whose answer was replayed.
type journalLine struct {
	Code     string
	Replay   bool
	ReplayOf string
}

func journalOf(sim *simulator.Simulator, path, key string) ([]journalLine, []string) {
	var out []journalLine
	var ids []string
	for _, r := range sim.Requests.List() {
		if r.Path == path && r.IdempotencyKey == key && r.Status == 500 {
			out = append(out, journalLine{Code: r.Code, Replay: r.Replay, ReplayOf: r.ReplayOf})
			ids = append(ids, r.RequestID)
		}
	}
	return out, ids
}

// TestReplayedBusinessFailureSaysNewKey: a QR payment refused for
// insufficient balance is a 500 api_error; the client retries it once with
// the same key and gets the stored failure replayed, which Error.Retry
// classes new-key. A caller following the advice stops at once; after the
// cause is fixed, a new key pays.
func TestReplayedBusinessFailureSaysNewKey(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "poor", KYCLevel: 1, Balances: map[string]string{"USDT": "5"}}))
	ctx := context.Background()
	p := qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00")}
	_, err := c.QRPay.Pay(ctx, "poor", p, mwallet.WithMaxAttempts(1))
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("first Pay: %v, want step_up_required", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	// Default attempts: the client retries api_error once with the same key.
	_, err = c.QRPay.Pay(ctx, "poor", p, su.Options()...)
	e := simtest.WantCode(t, err, mwallet.CodeAPIError)
	if !e.Replayed || e.Retry() != mwallet.RetryNewKey || e.Code.Retry() != mwallet.RetrySameKey {
		t.Fatalf("replayed %v, Retry %s (code's %s); want a replay classed new-key", e.Replayed, e.Retry(), e.Code.Retry())
	}
	lines, ids := journalOf(sim, "/v1/qrpay/payments", su.IdempotencyKey)
	want := []journalLine{{Code: "api_error"}, {Code: "api_error", Replay: true}}
	if len(ids) > 0 {
		want[1].ReplayOf = ids[0]
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("journal of the key (-want +got):\n%s", diff)
	}

	// A caller that follows the advice: resend while it says same-key.
	sends := 0
	for range 5 {
		sends++
		_, err = c.QRPay.Pay(ctx, "poor", p, su.Options()...)
		if e := simtest.AsError(t, err); e.Retry() != mwallet.RetrySameKey {
			break
		}
	}
	lines, _ = journalOf(sim, "/v1/qrpay/payments", su.IdempotencyKey)
	if sends != 1 || len(lines) != 3 || !lines[2].Replay {
		t.Fatalf("a caller following Retry sent %d more times (%d answers of the key), want 1 replay and a stop", sends, len(lines))
	}

	// Fix the cause, send with a new key.
	if _, err := c.Deposits.Create(ctx, "poor", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("100", 6), Reference: "top-up-1"}); err != nil {
		t.Fatal(err)
	}
	if o := payWithStepUp(t, sim, c, "poor", p); o.Response == nil || o.Response.IdempotencyKey == su.IdempotencyKey {
		t.Fatal("the new payment reused the failed key")
	}
}
