package cards_test

import (
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func setPIN(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string, p cards.SetPINParams) (*cards.PINResult, error) {
	t.Helper()
	return withStepUp(t, sim, func(o ...mwallet.CallOption) (*cards.PINResult, error) {
		return cl.Cards.SetPIN(ctx, member, id, p, o...)
	})
}

func TestSetPIN(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := activePhysical(t, sim, cl)
	pl, err := sim.Cards.Plastic(id)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		p         cards.SetPINParams
		code      mwallet.Code // "" for success
		stepUp    bool         // the error comes after strong authentication
		hasFields bool
	}{
		{name: "wrong length", p: cards.SetPINParams{NewPIN: "2468", CurrentPIN: goodPIN}, code: mwallet.CodeCardPinInvalid},
		{name: "sequential digits", p: cards.SetPINParams{NewPIN: "456789", CurrentPIN: goodPIN}, code: mwallet.CodeCardPinRejected},
		{name: "repeated digit", p: cards.SetPINParams{NewPIN: "777777", CVV: cards.CVV(pl.CVV)}, code: mwallet.CodeCardPinRejected},
		{name: "wrong current PIN", p: cards.SetPINParams{NewPIN: "246809", CurrentPIN: "999990"}, code: mwallet.CodeInvalidFields, stepUp: true},
		{name: "change with current PIN", p: cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN}, stepUp: true},
		{name: "old PIN no longer valid", p: cards.SetPINParams{NewPIN: "975310", CurrentPIN: goodPIN}, code: mwallet.CodeInvalidFields, stepUp: true},
		{name: "reset with CVV", p: cards.SetPINParams{NewPIN: "975310", CVV: cards.CVV(pl.CVV)}, stepUp: true},
	}
	for _, tt := range tests {
		var res *cards.PINResult
		var err error
		if tt.stepUp {
			res, err = setPIN(t, sim, cl, id, tt.p)
		} else {
			res, err = cl.Cards.SetPIN(ctx, member, id, tt.p)
		}
		if tt.code == "" {
			if err != nil || !res.Updated || res.ID != id {
				t.Fatalf("%s: %+v, %v", tt.name, res, err)
			}
			continue
		}
		apiErr := simtest.WantCode(t, err, tt.code)
		if tt.code == mwallet.CodeInvalidFields && len(apiErr.Fields) != 0 {
			t.Fatalf("%s: a wrong PIN or CVV must not name fields: %+v", tt.name, apiErr.Fields)
		}
	}
	// A wrong CVV is refused the same way as a wrong PIN.
	wrong := "000"
	if pl.CVV == wrong {
		wrong = "001"
	}
	_, err = setPIN(t, sim, cl, id, cards.SetPINParams{NewPIN: "864209", CVV: cards.CVV(wrong)})
	if apiErr := simtest.WantCode(t, err, mwallet.CodeInvalidFields); len(apiErr.Fields) != 0 {
		t.Fatalf("wrong CVV named fields %+v", apiErr.Fields)
	}
	checkBooks(t, sim)
}

func TestPINRateLimit(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	// Two cards: the quota is per member across all cards.
	a := activePhysical(t, sim, cl)
	b := issueVirtual(t, sim, cl, "")
	cvvB, _ := sim.Cards.Plastic(b)
	pins := []cards.PIN{"246809", "975310", "864209", "531086", "208642"}
	for i, pin := range pins {
		id, p := a, cards.SetPINParams{NewPIN: pin}
		if i == 0 {
			p.CurrentPIN = goodPIN
		} else if i%2 == 1 {
			id, p.CVV = b, cards.CVV(cvvB.CVV)
		} else {
			p.CVV = mustCVV(t, sim, a)
		}
		if _, err := setPIN(t, sim, cl, id, p); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		sim.Clock.Advance(time.Minute)
	}
	// The sixth call within the hour is refused before any step-up.
	_, err := cl.Cards.SetPIN(ctx, member, b, cards.SetPINParams{NewPIN: "135702", CVV: cards.CVV(cvvB.CVV)})
	apiErr := simtest.WantCode(t, err, mwallet.CodeRateLimited)
	if apiErr.RetryDelay != 55*time.Minute {
		t.Fatalf("retry_after = %s, want %s (the first call leaves the window then)", apiErr.RetryDelay, 55*time.Minute)
	}
	sim.Clock.Advance(apiErr.RetryDelay)
	if _, err := setPIN(t, sim, cl, b, cards.SetPINParams{NewPIN: "135702", CVV: cards.CVV(cvvB.CVV)}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	checkBooks(t, sim)
}

func mustCVV(t *testing.T, sim *simulator.Simulator, id string) cards.CVV {
	t.Helper()
	pl, err := sim.Cards.Plastic(id)
	if err != nil {
		t.Fatal(err)
	}
	return cards.CVV(pl.CVV)
}

func TestPINStepUpIsPerCall(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := activePhysical(t, sim, cl)
	key := "5b1f0c62-3f6a-4d0e-9a55-0b8a9b2f7e11"
	_, err := cl.Cards.SetPIN(ctx, member, id, cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN}, mwallet.WithIdempotencyKey(key))
	ch := simtest.WantCode(t, err, mwallet.CodeStepUpRequired).ChallengeID
	// Resending before the end user completed the screen is refused again.
	_, err = cl.Cards.SetPIN(ctx, member, id, cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN}, mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(ch))
	simtest.WantCode(t, err, mwallet.CodeStepUpRequired)
	if err := sim.StepUp.Complete(ch); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Cards.SetPIN(ctx, member, id, cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN}, mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(ch)); err != nil {
		t.Fatal(err)
	}
	// The challenge is single use: the next PIN call needs a new one.
	_, err = cl.Cards.SetPIN(ctx, member, id, cards.SetPINParams{NewPIN: "975310", CurrentPIN: "246809"}, mwallet.WithStepUp(ch))
	simtest.WantCode(t, err, mwallet.CodeStepUpRequired)
	checkBooks(t, sim)
}

// TestStepUpResendWithTheErrorsKey follows the documented flow without
// choosing a key up front: the key of the first call comes back on the error.
func TestStepUpResendWithTheErrorsKey(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := activePhysical(t, sim, cl)
	p := cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN}
	_, err := cl.Cards.SetPIN(ctx, member, id, p)
	apiErr := simtest.WantCode(t, err, mwallet.CodeStepUpRequired)
	if apiErr.IdempotencyKey == "" {
		t.Fatal("step_up_required carries no idempotency key to resend with")
	}
	if err := sim.StepUp.Complete(apiErr.ChallengeID); err != nil {
		t.Fatal(err)
	}
	res, err := cl.Cards.SetPIN(ctx, member, id, p, mwallet.WithIdempotencyKey(apiErr.IdempotencyKey), mwallet.WithStepUp(apiErr.ChallengeID))
	if err != nil || !res.Updated || res.Response.IdempotencyKey != apiErr.IdempotencyKey {
		t.Fatalf("resend = %+v, %v", res, err)
	}
	checkBooks(t, sim)
}
