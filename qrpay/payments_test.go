package qrpay_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestStepUpRoundTrip(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	code := thaiMerchantCode(t, "250.00")
	p := qrpay.PayParams{CodeValue: code}
	before := books(sim)

	_, err := c.QRPay.Pay(ctx, member1, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("first Pay: %v, want step_up_required", err)
	}
	if e := simtest.AsError(t, err); e.HTTPStatus != http.StatusBadRequest {
		t.Errorf("status %d", e.HTTPStatus)
	}
	if su.ChallengeID == "" || su.HostedURL == "" || su.IdempotencyKey == "" || !su.ExpiresAt.Equal(sim.Clock.Now().Add(5*time.Minute)) {
		t.Fatalf("step-up %+v (now %s)", su, sim.Clock.Now())
	}
	if diff := cmp.Diff(before, books(sim)); diff != "" {
		t.Fatalf("step_up_required moved money:\n%s", diff)
	}
	// Not completed yet: a new challenge.
	_, err = c.QRPay.Pay(ctx, member1, p, su.Options()...)
	if again, ok := mwallet.AsStepUp(err); !ok || again.ChallengeID == su.ChallengeID {
		t.Fatalf("resend before completion: %v", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	// A completed challenge is bound to its code: another code needs its own.
	_, err = c.QRPay.Pay(ctx, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "251.00")}, mwallet.WithStepUp(su.ChallengeID))
	if _, ok := mwallet.AsStepUp(err); !ok {
		t.Fatalf("other code with this challenge: %v, want step_up_required", err)
	}
	o, err := c.QRPay.Pay(ctx, member1, p, su.Options()...)
	if err != nil {
		t.Fatalf("resend after completion: %v", err)
	}
	if o.Status != qrpay.StatusProcessing || o.Response.StatusCode != http.StatusCreated || o.Response.IdempotencyKey != su.IdempotencyKey {
		t.Fatalf("order %+v response %+v", o, o.Response)
	}
	if got, want := sim.QRPay.Trace(o.ID), []string{"step_up", "quote", "hold", "notice"}; !cmp.Equal(got, want) {
		t.Errorf("trace %v, want %v", got, want)
	}
	// Single use: a second payment of the same code with the same challenge
	// (and a new key) needs a new verification.
	_, err = c.QRPay.Pay(ctx, member1, p, mwallet.WithStepUp(su.ChallengeID))
	if _, ok := mwallet.AsStepUp(err); !ok {
		t.Fatalf("challenge reused: %v, want step_up_required", err)
	}
	// Expiry: a challenge completed but used after 5 minutes is refused.
	_, err = c.QRPay.Pay(ctx, member1, p)
	late, _ := mwallet.AsStepUp(err)
	if late == nil {
		t.Fatalf("Pay: %v", err)
	}
	if err := sim.StepUp.Complete(late.ChallengeID); err != nil {
		t.Fatal(err)
	}
	sim.Clock.Advance(5*time.Minute + time.Second)
	_, err = c.QRPay.Pay(ctx, member1, p, late.Options()...)
	if again, ok := mwallet.AsStepUp(err); !ok || again.ChallengeID == late.ChallengeID {
		t.Fatalf("expired challenge: %v, want a new step_up_required", err)
	}
	mid := simtest.MemberID(t, sim, member1)
	if got := balance(sim, simulator.MemberLocked(mid), "USDT"); got != "7.308109" {
		t.Errorf("locked %q, want exactly one payment held", got)
	}
}

func TestStepUpBoundToMember(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 1, Balances: map[string]string{"USDT": "100"}}))
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
	_, err = c.QRPay.Pay(ctx, "member-2", p, mwallet.WithStepUp(su.ChallengeID))
	if _, ok := mwallet.AsStepUp(err); !ok {
		t.Fatalf("member-2 with member-1's challenge: %v", err)
	}
}

// advancing is a WaitForOutcome sleep that moves the simulator clock instead
// of sleeping.
func advancing(sim *simulator.Simulator) qrpay.WaitOption {
	return qrpay.WithSleep(func(ctx context.Context, d time.Duration) error {
		sim.Clock.Advance(d)
		return ctx.Err()
	})
}

func TestTimeoutStaysProcessingUntilUpstreamCompletes(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	mid := simtest.MemberID(t, sim, member1)
	o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00")})
	if err := sim.QRPay.Timeout(o.ID); err != nil {
		t.Fatal(err)
	}
	got, err := c.QRPay.Order(ctx, member1, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != qrpay.StatusProcessing || balance(sim, simulator.MemberLocked(mid), "USDT") != "7.308109" {
		t.Fatalf("after notice timeout: %s, books %v", got.Status, books(sim))
	}
	// A wait cut short by its context is not a failure: the order is still
	// processing and the funds stay held.
	short, cancel := context.WithCancel(ctx)
	ticks := 0
	last, err := c.QRPay.WaitForOutcome(short, member1, o.ID, qrpay.WithSleep(func(ctx context.Context, d time.Duration) error {
		if ticks++; ticks == 3 {
			cancel()
		}
		return ctx.Err()
	}))
	if !errors.Is(err, context.Canceled) || last == nil || last.Status != qrpay.StatusProcessing {
		t.Fatalf("cancelled wait: %+v, %v", last, err)
	}
	// The upstream answers 45 s later on the simulator clock.
	if err := sim.Outcomes.SetObject(o.ID, simulator.After(45*time.Second)); err != nil {
		t.Fatal(err)
	}
	final, err := c.QRPay.WaitForOutcome(ctx, member1, o.ID, advancing(sim), qrpay.WithPollInterval(10*time.Second, 20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != qrpay.StatusCompleted {
		t.Fatalf("status %s", final.Status)
	}
	if got, want := sim.QRPay.Trace(o.ID), []string{"step_up", "quote", "hold", "notice", "timeout", "complete"}; !cmp.Equal(got, want) {
		t.Errorf("trace %v, want %v", got, want)
	}
	wantBooks := map[string]string{
		simulator.MemberAvailable(mid) + " USDT":     "992.691891",
		simulator.UpstreamAccount("qrpay") + " USDT": "7.271750",
		simulator.AccountRevenueFees + " USDT":       "0.036359",
	}
	b := books(sim)
	for k, v := range wantBooks {
		if b[k] != v {
			t.Errorf("%s = %q, want %s", k, b[k], v)
		}
	}
	if b[simulator.MemberLocked(mid)+" USDT"] != "" {
		t.Errorf("funds still locked: %v", b)
	}
}

func TestNoticeTimeoutScenario(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00", simulator.QRScenarioTimeout)})
	if o.Status != qrpay.StatusProcessing {
		t.Fatalf("status %s", o.Status)
	}
	if got, want := sim.QRPay.Trace(o.ID), []string{"step_up", "quote", "hold", "notice_timeout"}; !cmp.Equal(got, want) {
		t.Errorf("trace %v, want %v", got, want)
	}
	if got := sim.QRPay.UpstreamCalls(); got.Notices != 1 || got.Quotes != 1 {
		t.Errorf("upstream calls %+v", got)
	}
	// Immediate outcome: completes right after the next request.
	if err := sim.Outcomes.SetObject(o.ID, simulator.Immediate()); err != nil {
		t.Fatal(err)
	}
	final, err := c.QRPay.WaitForOutcome(context.Background(), member1, o.ID, advancing(sim))
	if err != nil || final.Status != qrpay.StatusCompleted {
		t.Fatalf("%+v %v", final, err)
	}
}

func TestFailureAndRefundReturnFunds(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	mid := simtest.MemberID(t, sim, member1)
	start := balance(sim, simulator.MemberAvailable(mid), "USDT")

	failed := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00")})
	if err := sim.QRPay.Fail(failed.ID); err != nil {
		t.Fatal(err)
	}
	if got := balance(sim, simulator.MemberAvailable(mid), "USDT"); got != start {
		t.Fatalf("after failure available %s, want %s", got, start)
	}
	if err := sim.QRPay.Refund(failed.ID); err == nil {
		t.Fatal("refund of a failed order accepted")
	}

	paid := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "120.50")})
	if err := sim.QRPay.Refund(paid.ID); err == nil {
		t.Fatal("refund of a processing order accepted")
	}
	if err := sim.QRPay.Complete(paid.ID); err != nil {
		t.Fatal(err)
	}
	if err := sim.QRPay.Fail(paid.ID); err == nil {
		t.Fatal("failure after completion accepted")
	}
	if err := sim.QRPay.Refund(paid.ID); err != nil {
		t.Fatal(err)
	}
	got, err := c.QRPay.Order(ctx, member1, paid.ID)
	if err != nil || got.Status != qrpay.StatusRefunded || !got.Status.IsFinal() {
		t.Fatalf("%+v %v", got, err)
	}
	if got := balance(sim, simulator.MemberAvailable(mid), "USDT"); got != start {
		t.Fatalf("after refund available %s, want %s", got, start)
	}
	b := books(sim)
	for _, k := range []string{simulator.MemberLocked(mid) + " USDT", simulator.UpstreamAccount("qrpay") + " USDT", simulator.AccountRevenueFees + " USDT"} {
		if b[k] != "" {
			t.Errorf("%s = %s, want zero", k, b[k])
		}
	}
	// Events carry the bare id and real, increasing versions.
	type ev struct {
		Type, ID, Status string
		Version          int64
	}
	var evs []ev
	for _, e := range qrEvents(sim) {
		evs = append(evs, ev{e.Type, e.ObjectID, e.Status, e.StatusVersion})
		if e.Object != "qrpay_order" || e.ExternalMemberID != member1 {
			t.Errorf("event %+v", e)
		}
	}
	want := []ev{
		{"qrpay.order.failed", failed.ID[len("qrp_"):], "failed", 3},
		{"qrpay.order.completed", paid.ID[len("qrp_"):], "completed", 3},
		{"qrpay.order.refunded", paid.ID[len("qrp_"):], "refunded", 4},
	}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// The bare event id reads the order.
	if o, err := c.QRPay.Order(ctx, member1, want[0].ID); err != nil || o.Status != qrpay.StatusFailed {
		t.Errorf("Order by bare id: %+v %v", o, err)
	}
}

func TestBusinessFailuresChangeNothing(t *testing.T) {
	t.Parallel()
	members := []simulator.Option{
		simulator.WithMember(simulator.MemberSeed{ExternalID: "poor", KYCLevel: 1, Balances: map[string]string{"USDT": "5"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "rich", KYCLevel: 2, Balances: map[string]string{"USDT": "10000"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "kyc1", KYCLevel: 1, Balances: map[string]string{"USDT": "3000"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "kyc0", KYCLevel: 0, Balances: map[string]string{"USDT": "100"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "frozen", KYCLevel: 1, Balances: map[string]string{"USDT": "100"}}),
	}
	cases := []struct {
		name     string
		member   string
		setup    func(*testing.T, *simulator.Simulator, *mwclient.Client)
		code     func(*testing.T) string
		p        qrpay.PayParams
		quote    mwallet.Code // what quotes say for the same request ("" when it quotes)
		blocked  string       // blocked_reason of the quote
		wantCode mwallet.Code
	}{
		{name: "insufficient member balance", member: "poor", code: func(t *testing.T) string { return thaiMerchantCode(t, "250.00") },
			quote: mwallet.CodeInsufficientBalance, wantCode: mwallet.CodeAPIError},
		{name: "no quote for preferred_asset", member: member1, code: func(t *testing.T) string { return khqrCode(t, "20000") },
			p: qrpay.PayParams{PreferredAsset: "ETH"}, quote: mwallet.CodeInvalidFields, wantCode: mwallet.CodeAPIError},
		{name: "below minimum", member: member1, code: func(t *testing.T) string { return thaiMerchantCode(t, "20.00") },
			blocked: "below_minimum", wantCode: mwallet.CodeAPIError},
		{name: "per-transaction maximum", member: "rich", code: func(t *testing.T) string { return thaiMerchantCode(t, "68800.00") },
			blocked: "limit_single", wantCode: mwallet.CodeAPIError},
		{name: "daily amount", member: "rich", code: func(t *testing.T) string { return thaiMerchantCode(t, "68750.00") },
			setup: func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) {
				// A first payment of principal 1999.73 USD today.
				payWithStepUp(t, sim, c, "rich", qrpay.PayParams{CodeValue: thaiMerchantCode(t, "68749.00")})
			},
			blocked: "limit_daily", wantCode: mwallet.CodeAPIError},
		{name: "KYC threshold", member: "kyc1", code: func(t *testing.T) string { return thaiMerchantCode(t, "40000.00") },
			blocked: "kyc_threshold", wantCode: mwallet.CodeAPIError},
		{name: "KYC level below the line", member: "kyc0", code: func(t *testing.T) string { return thaiMerchantCode(t, "250.00") },
			quote: mwallet.CodeKYCRequired, wantCode: mwallet.CodeAPIError},
		{name: "account frozen", member: "frozen", code: func(t *testing.T) string { return thaiMerchantCode(t, "250.00") },
			setup: func(t *testing.T, sim *simulator.Simulator, _ *mwclient.Client) {
				if err := sim.Members.SetStatus("frozen", "frozen"); err != nil {
					t.Fatal(err)
				}
			},
			blocked: "account_frozen", wantCode: mwallet.CodeAPIError},
		{name: "member blocked by upstream risk", member: member1, code: func(t *testing.T) string { return thaiMerchantCode(t, "250.00", simulator.QRScenarioBlocked) },
			blocked: "member_blocked", wantCode: mwallet.CodeAPIError},
		{name: "corridor unavailable", member: member1, code: func(t *testing.T) string { return thaiMerchantCode(t, "250.00", simulator.QRScenarioCorridor) },
			quote: mwallet.CodeCorridorNotSupported, wantCode: mwallet.CodeAPIError},
		{name: "amount outside code range", member: member1, code: func(t *testing.T) string { return thaiP2PCode(t, simulator.QRScenarioRange) },
			p: qrpay.PayParams{Currency: "THB", Amount: "600.00"}, quote: mwallet.CodeAmountOutOfRange, wantCode: mwallet.CodeAPIError},
		{name: "upstream rejects the code", member: member1, code: func(t *testing.T) string { return thaiMerchantCode(t, "250.00", simulator.QRScenarioReject) },
			quote: mwallet.CodeQRCodeInvalid, wantCode: mwallet.CodeQRCodeInvalid},
		{name: "no upstream", member: member1, code: func(t *testing.T) string {
			return thaiMerchantCode(t, "250.00", simulator.QRScenarioUpstreamError)
		}, quote: mwallet.CodeUpstreamError, wantCode: mwallet.CodeServiceUnavailable},
		{name: "line switched off", member: member1, code: func(t *testing.T) string { return thaiMerchantCode(t, "250.00") },
			setup: func(t *testing.T, sim *simulator.Simulator, _ *mwclient.Client) {
				if err := sim.QRPay.SetEnabled(false); err != nil {
					t.Fatal(err)
				}
			},
			quote: mwallet.CodeServiceUnavailable, wantCode: mwallet.CodeServiceUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t, members...)
			ctx := context.Background()
			if tc.setup != nil {
				tc.setup(t, sim, c)
			}
			p := tc.p
			p.CodeValue = tc.code(t)
			q, err := c.QRPay.Quote(ctx, tc.member, qrpay.QuoteParams(p), mwallet.WithMaxAttempts(1))
			switch {
			case tc.quote != "":
				if mwallet.CodeOf(err) != tc.quote {
					t.Errorf("quote: %v, want %s", err, tc.quote)
				}
			case err != nil:
				t.Errorf("quote: %v", err)
			case q.BlockedReason != tc.blocked:
				t.Errorf("blocked_reason %q, want %q", q.BlockedReason, tc.blocked)
			}
			before, entries, orders := books(sim), len(sim.LedgerEntries()), sim.QRPay.UpstreamCalls().Notices
			err = payExpectError(t, sim, c, tc.member, p)
			e := simtest.AsError(t, err)
			if e.Code != tc.wantCode || e.HTTPStatus != tc.wantCode.HTTPStatus() {
				t.Fatalf("Pay: %v, want %s", err, tc.wantCode)
			}
			if diff := cmp.Diff(before, books(sim)); diff != "" || len(sim.LedgerEntries()) != entries {
				t.Fatalf("a refused payment moved money:\n%s", diff)
			}
			if sim.QRPay.UpstreamCalls().Notices != orders {
				t.Fatal("a refused payment notified the upstream")
			}
		})
	}
}

func TestPayerFields(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	code := thaiMerchantCode(t, "99.00", simulator.QRScenarioPayerFields)
	err := payExpectError(t, sim, c, member1, qrpay.PayParams{CodeValue: code, Payer: &qrpay.Payer{CustName: "Somchai"}})
	e := simtest.AsError(t, err)
	var keys []string
	for _, f := range e.Fields {
		keys = append(keys, f.Key)
	}
	if e.Code != mwallet.CodeInvalidFields || !cmp.Equal(keys, []string{"payer.custNationCode", "payer.mobile"}) {
		t.Fatalf("Pay without payer data: %v", err)
	}
	o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: code, Payer: &qrpay.Payer{CustName: "Somchai", CustNationCode: "TH", Mobile: "+66812345678"}})
	if o.Status != qrpay.StatusProcessing || o.Acquirer != (qrpay.Fiat{Amount: "99.00", Currency: "THB"}) {
		t.Fatalf("order %+v", o)
	}
}

func TestOrderAndSchemes(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 1}))
	ctx := context.Background()
	o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00")})
	got, err := c.QRPay.Order(ctx, member1, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The payment answer carries the specification's fields only; the order
	// read adds ledger_scale.
	ignored := func(p cmp.Path) bool { s := p.Last().String(); return s == ".Response" || s == ".LedgerScale" }
	if diff := cmp.Diff(o, got, amountEq, cmp.FilterPath(ignored, cmp.Ignore())); diff != "" {
		t.Errorf("GET differs from the payment answer:\n%s", diff)
	}
	if o.LedgerScale != 6 {
		t.Errorf("payment answer LedgerScale %d, want 6 (USDT's ledger_scale from the asset catalogue; the payment order carries none)", o.LedgerScale)
	}
	if got.LedgerScale != 6 || got.Payee != "BAAN THAI KITCHEN" {
		t.Errorf("order %+v", got)
	}
	if _, err := c.QRPay.Order(ctx, "member-2", o.ID); mwallet.CodeOf(err) != mwallet.CodeNotFound {
		t.Errorf("another member's order: %v", err)
	}
	if _, err := c.QRPay.Order(ctx, member1, "qrp_"); !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Errorf("empty id: %v", err)
	}
	if _, err := c.QRPay.Order(ctx, member1, "../x"); !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Errorf("path id: %v", err)
	}
	var ids []string
	for s, err := range c.QRPay.Schemes(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if s.Name == "" || len(s.Country) != 2 || len(s.Currency) != 3 {
			t.Errorf("scheme %+v", s)
		}
		ids = append(ids, s.ID)
	}
	if want := []string{"duitnow", "fps", "khqr", "paynow", "promptpay", "qris", "qrph", "vietqr"}; !cmp.Equal(ids, want) {
		t.Errorf("schemes %v, want %v", ids, want)
	}
}

func TestPayCustomAmount(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	code := thaiP2PCode(t)
	// Currency may be left out; the amount is required.
	o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: code, Amount: "100"})
	if o.Acquirer != (qrpay.Fiat{Amount: "100.00", Currency: "THB"}) || o.CustomerTotal.String() != "2.923244" || o.Payee != "mobile +66801234567" {
		t.Fatalf("order %+v", o)
	}
	o2 := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: code, Currency: "THB", Amount: "100.00"})
	if o2.ID == o.ID || o2.CustomerTotal.String() != "2.923244" {
		t.Fatalf("second order %+v", o2)
	}
	if got := sim.QRPay.UpstreamCalls(); got != (simulator.QRUpstreamStats{Quotes: 2, Notices: 2}) {
		t.Errorf("upstream calls %+v: every payment re-quotes", got)
	}
}

// TestOrderScaleFromTheCatalogue: the QR payment order carries no
// ledger_scale (the contract lists none); the SDK takes it from the asset
// catalogue. A Key without merchant:read cannot read the catalogue: the
// order still comes back, with its printed scale and LedgerScale -1.
func TestOrderScaleFromTheCatalogue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		scopes    []string
		wantScale int
	}{
		{"catalogue readable", []string{"qrpay:write", "merchant:read"}, 6},
		{"no merchant:read", []string{"qrpay:write"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			if err := sim.Keys.Set(sim.Credentials().ClientID, simulator.KeySettings{Scopes: tt.scopes}); err != nil {
				t.Fatal(err)
			}
			o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: thaiMerchantCode(t, "250.00")})
			got, err := c.QRPay.Order(context.Background(), member1, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []*qrpay.Order{o, got} {
				if x.LedgerScale != tt.wantScale || x.CustomerTotal.Scale() != 6 || x.CustomerTotal.Sign() <= 0 {
					t.Errorf("order scale %d, customer_total %s at %d; want LedgerScale %d", x.LedgerScale, x.CustomerTotal, x.CustomerTotal.Scale(), tt.wantScale)
				}
			}
			// The catalogue is asked once: loaded and kept, or refused and
			// the refusal remembered.
			if _, err := c.QRPay.Order(context.Background(), member1, o.ID); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range sim.Requests.List() {
				if r.Method == "GET" && r.Path == "/v1/assets" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("GET /v1/assets sent %d times for a payment and two order reads, want 1", n)
			}
		})
	}
}
