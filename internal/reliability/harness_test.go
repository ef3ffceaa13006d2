// Package reliability_test holds the cross-cutting reliability and security
// tests of the SDK and the simulator: exactly-once execution under injected
// faults and concurrency, ledger properties over random operation
// sequences, secret hygiene, bounded reads and hostile input, and an
// optional soak run (go test ./internal/reliability -run Soak -soak=60s).
package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// newKey returns a fresh idempotency key.
func newKey() string { return uuid.NewString() }

// asset is the one asset the members hold and every operation debits.
const asset = "USDT"

func usdt(s string) money.Amount { return money.MustParse(s, 6) }

// world is a simulator with members that each have a GBP payee and an
// active virtual card, set up without faults.
type world struct {
	sim      *simulator.Simulator
	members  []string          // external ids
	memID    map[string]string // external id -> mem_ id
	payee    map[string]string // external id -> GBP payee id
	card     map[string]string // external id -> card id
	seeded   map[string]money.Amount
	issueFee money.Amount // virtual card issuance fee, USDT
	feeBps   int64        // card top-up fee rate
	setupIDs map[string]bool
}

// clientOpts are the options of every test client: short retry waits, so
// faults cost milliseconds.
func clientOpts(extra ...mwallet.Option) []mwallet.Option {
	return append([]mwallet.Option{
		mwallet.WithRetryBackoff(time.Millisecond, 4*time.Millisecond),
		mwallet.WithDefaultMaxAttempts(4),
	}, extra...)
}

func newWorld(t testing.TB, seed int64, nMembers int, balance string, extra ...simulator.Option) *world {
	t.Helper()
	opts := append([]simulator.Option{simulator.WithSeed(seed), simulator.WithoutFixtureMember()}, extra...)
	w := &world{memID: map[string]string{}, payee: map[string]string{}, card: map[string]string{}, seeded: map[string]money.Amount{}, setupIDs: map[string]bool{}}
	for i := 1; i <= nMembers; i++ {
		ext := "rel-member-" + strconv.Itoa(i)
		w.members = append(w.members, ext)
		opts = append(opts, simulator.WithMember(simulator.MemberSeed{ExternalID: ext, KYCLevel: 2, Balances: map[string]string{asset: balance}}))
		w.seeded[ext] = usdt(balance)
	}
	w.sim = simulator.MustNew(opts...)
	t.Cleanup(w.sim.Close)
	t.Cleanup(func() {
		if err := w.sim.CheckLedger(); err != nil {
			t.Errorf("CheckLedger at cleanup: %v", err)
		}
		if err := w.sim.CheckInvariants(); err != nil {
			t.Errorf("CheckInvariants at cleanup: %v", err)
		}
	})
	if err := w.sim.Cards.SetLimit("virtual", 10_000); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := w.sim.Client(clientOpts()...)
	inv, err := c.Cards.Quote(ctx, w.members[0], "cpd_virtual_std", cards.QuoteParams{})
	if err != nil {
		t.Fatalf("card quote: %v", err)
	}
	// Quoted in the fee asset (USDT); held at USDT's ledger scale.
	if inv.FeeAsset != asset {
		t.Fatalf("virtual card fee asset %s", inv.FeeAsset)
	}
	if w.issueFee, err = money.Parse(inv.IssueFee.String(), 6); err != nil || w.issueFee.IsZero() {
		t.Fatalf("issue fee %s: %v", inv.IssueFee, err)
	}
	for _, m := range w.members {
		info, ok := w.sim.Members.Get(m)
		if !ok {
			t.Fatalf("member %s missing", m)
		}
		w.memID[m] = info.ID
		for p, err := range c.Remittances.Payees(ctx, m, mwallet.ListParams{}) {
			if err != nil {
				t.Fatalf("payees: %v", err)
			}
			if p.Currency == "GBP" {
				w.payee[m] = p.ID
			}
		}
		app, err := c.Cards.Apply(ctx, m, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: asset, ProductID: "cpd_virtual_std"})
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		if err := w.sim.Cards.ApproveApplication(app.ID); err != nil {
			t.Fatal(err)
		}
		got, err := c.Cards.GetApplication(ctx, m, app.ID)
		if err != nil || got.CardID == "" {
			t.Fatalf("application %s: %+v, %v", app.ID, got, err)
		}
		w.card[m] = got.CardID
		w.setupIDs[app.ID], w.setupIDs[got.CardID] = true, true
		w.seeded[m], _ = w.seeded[m].Sub(w.issueFee)
	}
	est, err := c.Cards.EstimateTopUp(ctx, w.members[0], w.card[w.members[0]], cards.EstimateParams{Amount: usdt("100")})
	if err != nil {
		t.Fatalf("estimate: %v", err)
	}
	// The fee of 100 USDT in basis points: fee × 100.
	bps, err := est.Fee.MulRatio(100, 1, money.RoundDown)
	if err == nil {
		bps, err = bps.Rescale(0)
	}
	if err == nil {
		w.feeBps, err = strconv.ParseInt(bps.String(), 10, 64)
	}
	if err != nil {
		t.Fatalf("fee rate from %s: %v", est.Fee, err)
	}
	return w
}

// thaiCode is a dynamic PromptPay code for amount THB.
func thaiCode(amount string) string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER" + strings.ReplaceAll(amount, ".", "")},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: amount, Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
}

// opKind names the money-moving operations.
type opKind string

const (
	opDeposit opKind = "deposit"
	opQR      opKind = "qr_payment"
	opTopUp   opKind = "card_topup"
	opRemit   opKind = "remittance"
	opApply   opKind = "card_application"
)

var allKinds = []opKind{opDeposit, opQR, opTopUp, opRemit, opApply}

// outcome is one logical operation that the service accepted.
type outcome struct {
	kind   opKind
	member string
	id     string // REST id of the created object (dep_ for deposits)
	key    string // x-idempotency-key of the creating call
	ref    string // deposit reference
	credit money.Amount
	hold   money.Amount // held (locked) while the outcome is unknown
	charge money.Amount // taken at once (fees)
	total  money.Amount // remittance customer_total, the cost once completed (zero when answered by a replay)
	status string       // status when created
	resp   *mwallet.Response
}

// runner performs operations for one client, resending a call whose
// outcome is unknown with the same idempotency key until it gets an answer,
// as the SDK documentation tells users to.
type runner struct {
	w       *world
	c       *mwclient.Client
	resends int
	stepUps int
}

// maxResends bounds the resends of one call; the fault rates make reaching
// it practically impossible, and reaching it fails the test.
const maxResends = 25

// unknownOutcome reports an error after which the call may or may not have
// executed.
func unknownOutcome(err error) bool {
	var te *mwallet.TransportError
	if errors.As(err, &te) {
		return true
	}
	var ae *mwallet.Error
	if errors.As(err, &ae) {
		switch ae.Code {
		case mwallet.CodeUpstreamError, mwallet.CodeUpstreamTimeout, mwallet.CodeIdempotencyInProgress, mwallet.CodeRateLimited:
			return true
		}
	}
	return false
}

// settle calls f with the key (and extra options) until the outcome is
// known.
func settle[T any](r *runner, key string, f func(opts ...mwallet.CallOption) (T, error), extra ...mwallet.CallOption) (T, error) {
	opts := append([]mwallet.CallOption{mwallet.WithIdempotencyKey(key)}, extra...)
	for i := 0; ; i++ {
		v, err := f(opts...)
		if err == nil || !unknownOutcome(err) {
			return v, err
		}
		if i == maxResends {
			return v, fmt.Errorf("outcome still unknown after %d resends: %w", maxResends, err)
		}
		r.resends++
	}
}

func (r *runner) deposit(ctx context.Context, member, ref string, amount money.Amount) (outcome, error) {
	key := newKey()
	d, err := settle(r, key, func(opts ...mwallet.CallOption) (*deposits.Deposit, error) {
		return r.c.Deposits.Create(ctx, member, deposits.CreateParams{Asset: asset, Amount: amount, Reference: ref}, opts...)
	})
	if err != nil {
		return outcome{}, err
	}
	return outcome{kind: opDeposit, member: member, id: d.ID, key: key, ref: ref, credit: amount, status: "credited", resp: d.Response}, nil
}

func (r *runner) qrPay(ctx context.Context, member, thb string) (outcome, error) {
	key := newKey()
	p := qrpay.PayParams{CodeValue: thaiCode(thb)}
	pay := func(opts ...mwallet.CallOption) (*qrpay.Order, error) { return r.c.QRPay.Pay(ctx, member, p, opts...) }
	_, err := settle(r, key, pay)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		return outcome{}, fmt.Errorf("first payment call: %v, want step_up_required", err)
	}
	if err := r.w.sim.StepUp.Complete(su.ChallengeID); err != nil {
		return outcome{}, err
	}
	r.stepUps++
	o, err := settle(r, key, pay, mwallet.WithStepUp(su.ChallengeID))
	if err != nil {
		return outcome{}, err
	}
	if o.Asset != asset {
		return outcome{}, fmt.Errorf("order %s debits %s", o.ID, o.Asset)
	}
	return outcome{kind: opQR, member: member, id: o.ID, key: key, hold: o.CustomerTotal, status: string(o.Status), resp: o.Response}, nil
}

func (r *runner) topUp(ctx context.Context, member string, amount money.Amount) (outcome, error) {
	key := newKey()
	card := r.w.card[member]
	tp, err := settle(r, key, func(opts ...mwallet.CallOption) (*cards.TopUp, error) {
		return r.c.Cards.TopUp(ctx, member, card, cards.TopUpParams{Amount: amount, SourceAsset: asset}, opts...)
	})
	if err != nil {
		return outcome{}, err
	}
	// The price list: a fee of feeBps basis points, rounded up.
	fee, err := amount.MulRatio(r.w.feeBps, 10000, money.RoundUp)
	if err != nil {
		return outcome{}, err
	}
	hold, _ := amount.Add(fee)
	return outcome{kind: opTopUp, member: member, id: tp.ID, key: key, hold: hold, status: string(tp.Status), resp: tp.Response}, nil
}

func (r *runner) remit(ctx context.Context, member, gbp string) (outcome, error) {
	key := newKey()
	res, err := settle(r, key, func(opts ...mwallet.CallOption) (*remittance.CreateResult, error) {
		return r.c.Remittances.Create(ctx, member, remittance.CreateParams{
			PayeeID: r.w.payee[member], PayoutAmount: gbp, PayoutCurrency: "GBP", SlippageBps: 100,
			PurposeCode: remittance.PurposeFamilySupport, Asset: asset,
		}, opts...)
	})
	if err != nil {
		return outcome{}, err
	}
	out := outcome{kind: opRemit, member: member, id: res.ID, key: key, status: string(res.Status), resp: res.Response}
	if res.Quote != nil {
		out.hold, out.total = res.Quote.LockedAmount, res.Quote.CustomerTotal
		return out, nil
	}
	// A replay carries no quote: read the order.
	o, err := settle(r, newKey(), func(opts ...mwallet.CallOption) (*remittance.Order, error) {
		return r.c.Remittances.Get(ctx, member, res.ID)
	})
	if err != nil {
		return outcome{}, err
	}
	out.hold = o.LockedAmount
	return out, nil
}

func (r *runner) apply(ctx context.Context, member string) (outcome, error) {
	key := newKey()
	p := cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: asset, ProductID: "cpd_virtual_std"}
	app, err := settle(r, key, func(opts ...mwallet.CallOption) (*cards.Application, error) {
		return r.c.Cards.Apply(ctx, member, p, opts...)
	})
	if err != nil {
		return outcome{}, err
	}
	return outcome{kind: opApply, member: member, id: app.ID, key: key, charge: r.w.issueFee, status: string(app.Status), resp: app.Response}, nil
}
