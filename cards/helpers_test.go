package cards_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

const member = simulator.DefaultMemberExternalID

// goodPIN follows the simulated issuer's rules (six digits, not repeated,
// not consecutive).
const goodPIN = cards.PIN("135790")

var ctx = context.Background()

// checkBooks asserts that the simulator's books balance and that money sits
// only on live objects.
func checkBooks(t *testing.T, sim *simulator.Simulator) {
	t.Helper()
	if err := sim.CheckLedger(); err != nil {
		t.Fatalf("books do not balance: %v", err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Fatalf("invariants: %v", err)
	}
}

func usdt(s string) money.Amount { return money.MustParse(s, 6) }

// wantParam asserts that err was raised by the SDK before sending anything.
func wantParam(t *testing.T, err error, param string) {
	t.Helper()
	var pe *mwallet.ParamError
	if !errors.As(err, &pe) || !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Fatalf("error = %v, want a *mwallet.ParamError", err)
	}
	if pe.Param != param {
		t.Fatalf("param = %q (%v), want %q", pe.Param, err, param)
	}
}

// funds returns a member's (or, for "", the merchant prepaid's) available and
// locked balances.
func funds(t *testing.T, sim *simulator.Simulator, who, asset string) (money.Amount, money.Amount) {
	t.Helper()
	a, l, err := sim.Cards.Funds(who, asset)
	if err != nil {
		t.Fatal(err)
	}
	return a, l
}

func wantFunds(t *testing.T, sim *simulator.Simulator, who, asset, avail, locked string) {
	t.Helper()
	a, l := funds(t, sim, who, asset)
	if !a.Equal(usdt(avail)) || !l.Equal(usdt(locked)) {
		t.Fatalf("%s %s: available %s locked %s, want %s and %s", who, asset, a, l, avail, locked)
	}
}

// apply applies with a fresh client key.
func apply(t *testing.T, cl *mwclient.Client, p cards.ApplyParams) *cards.Application {
	t.Helper()
	if p.ClientKey == "" {
		p.ClientKey = cards.NewClientKey()
	}
	if p.SourceAsset == "" {
		p.SourceAsset = "USDT"
	}
	app, err := cl.Cards.Apply(ctx, member, p)
	if err != nil {
		t.Fatalf("apply %s: %v", p.ProductID, err)
	}
	return app
}

// issue applies for product, approves, and returns the card id.
func issue(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, p cards.ApplyParams) string {
	t.Helper()
	app := apply(t, cl, p)
	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	got, err := cl.Cards.GetApplication(ctx, member, app.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != cards.ApplicationIssued || got.CardID == "" {
		t.Fatalf("application after approval = %+v, want issued with a card", got)
	}
	return got.CardID
}

func issueVirtual(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, first string) string {
	t.Helper()
	p := cards.ApplyParams{ProductID: "cpd_virtual_std"}
	if first != "" {
		p.FirstTopUp = usdt(first)
	}
	return issue(t, sim, cl, p)
}

// activePhysical issues a physical card, ships it and activates it with
// goodPIN.
func activePhysical(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client) string {
	t.Helper()
	if err := sim.Cards.SetLimit("physical", 50); err != nil {
		t.Fatal(err)
	}
	id := issue(t, sim, cl, cards.ApplyParams{ProductID: "cpd_physical_std"})
	if err := sim.Cards.Ship(id); err != nil {
		t.Fatal(err)
	}
	activate(t, sim, cl, id)
	return id
}

func activate(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) {
	t.Helper()
	pl, err := sim.Cards.Plastic(id)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: pl.Expiry, PIN: goodPIN})
	if err != nil {
		t.Fatalf("activate: %v", err)
	}
	if res.Status != cards.CardActive {
		t.Fatalf("status after activation = %s", res.Status)
	}
}

// withStepUp makes a call that needs strong authentication: the first
// attempt must answer step_up_required; the end user completes the
// challenge; the same call is resent with the same idempotency key and
// x-step-up.
func withStepUp[T any](t *testing.T, sim *simulator.Simulator, call func(opts ...mwallet.CallOption) (T, error)) (T, error) {
	t.Helper()
	key := uuid.NewString()
	_, err := call(mwallet.WithIdempotencyKey(key))
	apiErr := simtest.WantCode(t, err, mwallet.CodeStepUpRequired)
	if apiErr.ChallengeID == "" || apiErr.HostedURL == "" || apiErr.ExpiresAt.IsZero() {
		t.Fatalf("step_up_required without challenge fields: %+v", apiErr)
	}
	if err := sim.StepUp.Complete(apiErr.ChallengeID); err != nil {
		t.Fatal(err)
	}
	return call(mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(apiErr.ChallengeID))
}

func getCard(t *testing.T, cl *mwclient.Client, id string) *cards.Card {
	t.Helper()
	c, err := cl.Cards.Get(ctx, member, id)
	if err != nil {
		t.Fatalf("get card: %v", err)
	}
	return c
}

func asErr(err error, target **mwallet.Error) bool { return errors.As(err, target) }
