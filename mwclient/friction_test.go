package mwclient_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestStepUpResendInOneCall resends a QR payment after its step-up with
// mwallet.StepUpResend(err) alone: the same idempotency key and the
// completed challenge. Given an error that is not a step-up challenge, the
// options refuse the call before sending, quoting that error (another
// call's, not the refusal's cause, so not wrapped), so that no resend goes
// out as a new payment.
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
		if !errors.As(err, &pe) || pe.Param != "StepUpResend" || mwallet.CodeOf(err) != "" ||
			tt.err != nil && (errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.err.Error())) {
			t.Errorf("%s: resend = %v, want a *mwallet.ParamError quoting the error, not wrapping it", tt.name, err)
		}
		if n := len(sim.Requests.List()) - before; n != 0 {
			t.Errorf("%s: %d requests sent, want none", tt.name, n)
		}
	}
}

// TestBoundedListsCollect collects every bounded list (boundedLists, the
// lists the list rule finds without ListParams) with mwallet.Collect
// against the simulator: the slice holds what the iterator yields, in
// order; a refused list gives its error and no items.
func TestBoundedListsCollect(t *testing.T) {
	t.Parallel()
	type collectFn func(ctx context.Context, c *mwclient.Client) (got, walked int, err error)
	count := func(n int, err error, seq func(yield func(int) bool)) (int, int, error) {
		walked := 0
		seq(func(int) bool { walked++; return true })
		return n, walked, err
	}
	lists := map[string]collectFn{
		"*cards.Client.Products": func(ctx context.Context, c *mwclient.Client) (int, int, error) {
			got, err := mwallet.Collect(c.Cards.Products(ctx))
			return count(len(got), err, func(y func(int) bool) {
				for _, err := range c.Cards.Products(ctx) {
					if err != nil || !y(0) {
						return
					}
				}
			})
		},
		"*qrpay.Client.Schemes": func(ctx context.Context, c *mwclient.Client) (int, int, error) {
			got, err := mwallet.Collect(c.QRPay.Schemes(ctx))
			return count(len(got), err, func(y func(int) bool) {
				for _, err := range c.QRPay.Schemes(ctx) {
					if err != nil || !y(0) {
						return
					}
				}
			})
		},
		"*remittance.Client.Products": func(ctx context.Context, c *mwclient.Client) (int, int, error) {
			got, err := mwallet.Collect(c.Remittances.Products(ctx))
			return count(len(got), err, func(y func(int) bool) {
				for _, err := range c.Remittances.Products(ctx) {
					if err != nil || !y(0) {
						return
					}
				}
			})
		},
		"*remittance.Client.ConversionDates": func(ctx context.Context, c *mwclient.Client) (int, int, error) {
			got, err := mwallet.Collect(c.Remittances.ConversionDates(ctx, "GBP"))
			return count(len(got), err, func(y func(int) bool) {
				for _, err := range c.Remittances.ConversionDates(ctx, "GBP") {
					if err != nil || !y(0) {
						return
					}
				}
			})
		},
	}
	var names []string
	for name := range lists {
		names = append(names, name)
	}
	var want []string
	for name := range boundedLists {
		want = append(want, name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("bounded lists (-list rule +this table):\n%s", diff)
	}
	for name, collect := range lists {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			ctx := context.Background()
			got, walked, err := collect(ctx, c)
			if err != nil || got == 0 || got != walked {
				t.Fatalf("Collect gave %d items (%v), the iterator %d", got, err, walked)
			}
			if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/*", Kind: simulator.FaultError, Status: 403, Code: "insufficient_scope", Count: 1}); err != nil {
				t.Fatal(err)
			}
			got, _, err = collect(ctx, c)
			if mwallet.CodeOf(err) != mwallet.CodeInsufficientScope || got != 0 {
				t.Errorf("refused list: Collect gave %d items, %v; want none and insufficient_scope", got, err)
			}
		})
	}
}
