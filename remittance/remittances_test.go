package remittance_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

var amountCmp = cmp.Comparer(money.Amount.Equal)

func validParams(payee remittance.Payee) remittance.CreateParams {
	return remittance.CreateParams{
		PayeeID: payee.ID, PayoutAmount: "100.00", PayoutCurrency: payee.Currency,
		SlippageBps: 200, PurposeCode: remittance.PurposeFamilySupport,
	}
}

func TestCreateRejectedLocally(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	gbp := payeeOf(t, c, member1, "GBP")
	tests := []struct {
		name  string
		edit  func(p *remittance.CreateParams)
		param string
		code  mwallet.Code
	}{
		{"payee empty", func(p *remittance.CreateParams) { p.PayeeID = "" }, "PayeeID", mwallet.CodeInvalidRequest},
		{"payee letters", func(p *remittance.CreateParams) { p.PayeeID = "pye_12a" }, "PayeeID", mwallet.CodeInvalidRequest},
		{"payee prefix only", func(p *remittance.CreateParams) { p.PayeeID = "pye_" }, "PayeeID", mwallet.CodeInvalidRequest},
		{"payout empty", func(p *remittance.CreateParams) { p.PayoutAmount = "" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout one decimal for GBP", func(p *remittance.CreateParams) { p.PayoutAmount = "10.5" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout no decimals for GBP", func(p *remittance.CreateParams) { p.PayoutAmount = "10" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout three decimals for GBP", func(p *remittance.CreateParams) { p.PayoutAmount = "10.500" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout decimals for JPY", func(p *remittance.CreateParams) { p.PayoutAmount, p.PayoutCurrency = "1000.00", "JPY" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout two decimals for BHD", func(p *remittance.CreateParams) { p.PayoutAmount, p.PayoutCurrency = "1.25", "BHD" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout zero", func(p *remittance.CreateParams) { p.PayoutAmount = "0.00" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout negative", func(p *remittance.CreateParams) { p.PayoutAmount = "-1.00" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout exponent", func(p *remittance.CreateParams) { p.PayoutAmount = "1e2" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"payout over 32 chars", func(p *remittance.CreateParams) { p.PayoutAmount = strings.Repeat("1", 30) + ".00" }, "PayoutAmount", mwallet.CodeInvalidRequest},
		{"currency unknown", func(p *remittance.CreateParams) { p.PayoutCurrency = "XYZ" }, "PayoutCurrency", mwallet.CodeInvalidRequest},
		{"slippage missing", func(p *remittance.CreateParams) { p.SlippageBps = 0 }, "SlippageBps", mwallet.CodeInvalidFields},
		{"slippage 49", func(p *remittance.CreateParams) { p.SlippageBps = 49 }, "SlippageBps", mwallet.CodeInvalidFields},
		{"slippage 1001", func(p *remittance.CreateParams) { p.SlippageBps = 1001 }, "SlippageBps", mwallet.CodeInvalidFields},
		{"purpose missing", func(p *remittance.CreateParams) { p.PurposeCode = "" }, "PurposeCode", mwallet.CodeInvalidRequest},
		{"purpose lower case", func(p *remittance.CreateParams) { p.PurposeCode = "family_support" }, "PurposeCode", mwallet.CodeInvalidRequest},
		{"funding source unknown", func(p *remittance.CreateParams) { p.FundingSource = "bank" }, "FundingSource", mwallet.CodeInvalidFields},
		{"line unknown", func(p *remittance.CreateParams) { p.Line = "POBO" }, "Line", mwallet.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validParams(gbp)
			tt.edit(&p)
			_, err := c.Remittances.Create(ctx, member1, p)
			var pe *mwallet.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *mwallet.ParamError", err)
			}
			if pe.Param != tt.param || pe.Code != tt.code {
				t.Fatalf("ParamError{%s %s}, want {%s %s}: %v", pe.Param, pe.Code, tt.param, tt.code, err)
			}
			if !errors.Is(err, mwallet.ErrInvalidParam) {
				t.Fatalf("errors.Is(err, ErrInvalidParam) = false")
			}
		})
	}
	if n := len(listOrders(t, c, member1)); n != 0 {
		t.Fatalf("%d orders exist after local rejections", n)
	}
	if got := simtest.Available(t, sim, member1, "USDT"); got != "1000.000000" {
		t.Fatalf("available = %s", got)
	}
}

// rawCreate sends a body the SDK would refuse, to check the server side.
func rawCreate(ctx context.Context, c *mwclient.Client, member string, body any) error {
	_, err := c.Do(ctx, &mwallet.Request{Method: http.MethodPost, Path: "/v1/remittances", MemberScoped: true, Member: member, Body: body, Idempotent: true}, nil)
	return err
}

func TestCreateRejectedByService(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t,
		simulator.WithMember(simulator.MemberSeed{ExternalID: "rich", KYCLevel: 2, Balances: map[string]string{"USDT": "50000"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "nokyc", KYCLevel: 0, Balances: map[string]string{"USDT": "500"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "banned", KYCLevel: 2, Balances: map[string]string{"USDT": "500"}}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "other", KYCLevel: 1}),
	)
	ctx := context.Background()
	if err := sim.Members.SetStatus("banned", "banned"); err != nil {
		t.Fatal(err)
	}
	gbp := payeeOf(t, c, member1, "GBP")
	ngn := payeeOf(t, c, member1, "NGN")
	otherGBP := payeeOf(t, c, "other", "GBP")
	richGBP := payeeOf(t, c, "rich", "GBP")
	blocked, err := c.Remittances.CreatePayee(ctx, member1, remittance.PayeeParams{Country: "GB", Currency: "GBP", HolderName: "Blocked Holder Ltd", AccountNumber: "GB00BLCK00000012345678"})
	if err != nil {
		t.Fatal(err)
	}
	body := func(edit func(m map[string]any)) map[string]any {
		m := map[string]any{"payee_id": gbp.ID, "payout_amount": "100.00", "slippage_bps": 200, "purpose_code": "FAMILY_SUPPORT"}
		edit(m)
		return m
	}
	type tc struct {
		name   string
		member string
		send   func() error
		code   mwallet.Code
		field  string
		limitT string
		limitS string
	}
	raw := func(name string, edit func(m map[string]any), code mwallet.Code, field string) tc {
		return tc{name: name, member: member1, send: func() error { return rawCreate(ctx, c, member1, body(edit)) }, code: code, field: field}
	}
	sdk := func(name, member string, p remittance.CreateParams, code mwallet.Code, field string) tc {
		return tc{name: name, member: member, send: func() error { _, err := c.Remittances.Create(ctx, member, p); return err }, code: code, field: field}
	}
	with := func(p remittance.CreateParams, edit func(p *remittance.CreateParams)) remittance.CreateParams {
		edit(&p)
		return p
	}
	tests := []tc{
		{name: "body not an object", member: member1, send: func() error { return rawCreate(ctx, c, member1, "not an object") }, code: mwallet.CodeInvalidRequest},
		raw("payee_id missing", func(m map[string]any) { delete(m, "payee_id") }, mwallet.CodeInvalidRequest, ""),
		raw("payee_id not numeric", func(m map[string]any) { m["payee_id"] = "pye_abc" }, mwallet.CodeInvalidRequest, ""),
		raw("payout_amount missing", func(m map[string]any) { delete(m, "payout_amount") }, mwallet.CodeInvalidRequest, ""),
		raw("payout_amount over 32 chars", func(m map[string]any) { m["payout_amount"] = strings.Repeat("1", 31) + ".00" }, mwallet.CodeInvalidRequest, ""),
		raw("payout_amount one decimal for GBP", func(m map[string]any) { m["payout_amount"] = "100.5" }, mwallet.CodeInvalidRequest, ""),
		raw("slippage missing", func(m map[string]any) { delete(m, "slippage_bps") }, mwallet.CodeInvalidFields, "slippage_bps"),
		raw("slippage string", func(m map[string]any) { m["slippage_bps"] = "200" }, mwallet.CodeInvalidFields, "slippage_bps"),
		raw("slippage below 50", func(m map[string]any) { m["slippage_bps"] = 49 }, mwallet.CodeInvalidFields, "slippage_bps"),
		raw("slippage above 1000", func(m map[string]any) { m["slippage_bps"] = 1001 }, mwallet.CodeInvalidFields, "slippage_bps"),
		raw("slippage fraction", func(m map[string]any) { m["slippage_bps"] = 100.5 }, mwallet.CodeInvalidFields, "slippage_bps"),
		raw("purpose unknown", func(m map[string]any) { m["purpose_code"] = "LOTTERY" }, mwallet.CodeInvalidRequest, ""),
		sdk("purpose not permitted for express", member1, with(validParams(gbp), func(p *remittance.CreateParams) { p.PurposeCode = remittance.PurposeRoyaltiesLicenseFees }), mwallet.CodeInvalidFields, "purpose_code"),
		sdk("purpose not permitted for pobo", "rich", with(validParams(richGBP), func(p *remittance.CreateParams) { p.Line = remittance.LinePOBO }), mwallet.CodeInvalidFields, "purpose_code"),
		sdk("funding merchant on platform_hosted", member1, with(validParams(gbp), func(p *remittance.CreateParams) { p.FundingSource = mwallet.FundingMerchant }), mwallet.CodeInvalidFields, "funding_source"),
		sdk("debit asset not offered", member1, with(validParams(gbp), func(p *remittance.CreateParams) { p.Asset = "BTC" }), mwallet.CodeProductNotAvailable, ""),
		sdk("payee of another member", member1, validParams(otherGBP), mwallet.CodeResourceNotFound, ""),
		sdk("payee unknown", member1, with(validParams(gbp), func(p *remittance.CreateParams) { p.PayeeID = "999999999" }), mwallet.CodeResourceNotFound, ""),
		sdk("corridor not served", member1, validParams(ngn), mwallet.CodeCorridorNotSupported, ""),
		sdk("currency given wrong, payee's wins", member1, with(validParams(gbp), func(p *remittance.CreateParams) { p.PayoutAmount, p.PayoutCurrency = "1000", "JPY" }), mwallet.CodeInvalidRequest, ""),
		sdk("express needs KYC 1", "nokyc", validParams(payeeOf(t, c, "nokyc", "GBP")), mwallet.CodeKYCRequired, ""),
		sdk("pobo needs KYC 2", member1, with(validParams(gbp), func(p *remittance.CreateParams) {
			p.Line, p.PurposeCode = remittance.LinePOBO, remittance.PurposeGoodsPurchased
		}), mwallet.CodeKYCRequired, ""),
		sdk("banned member", "banned", validParams(payeeOf(t, c, "banned", "GBP")), mwallet.CodeRequestRejected, ""),
		sdk("risk-listed payee", member1, validParams(remittance.Payee{ID: blocked.ID, Currency: "GBP"}), mwallet.CodeRequestRejected, ""),
		sdk("below line minimum", member1, with(validParams(gbp), func(p *remittance.CreateParams) { p.PayoutAmount = "5.00" }), mwallet.CodeAmountOutOfRange, ""),
		{name: "over per-order maximum", member: "rich", send: func() error {
			_, err := c.Remittances.Create(ctx, "rich", with(validParams(richGBP), func(p *remittance.CreateParams) { p.PayoutAmount = "4000.00" }))
			return err
		}, code: mwallet.CodeLimitExceeded, limitT: "single", limitS: "member"},
		sdk("insufficient balance", member1, with(validParams(gbp), func(p *remittance.CreateParams) { p.PayoutAmount = "900.00" }), mwallet.CodeInsufficientBalance, ""),
	}
	before := map[string]string{}
	for _, m := range []string{member1, "rich", "nokyc", "banned"} {
		before[m] = simtest.Available(t, sim, m, "USDT")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := simtest.WantCode(t, tt.send(), tt.code)
			if tt.field != "" && (len(e.Fields) == 0 || e.Fields[0].Key != tt.field) {
				t.Fatalf("fields = %q, want first key %s", fieldKeys(e), tt.field)
			}
			if e.LimitType != tt.limitT || e.LimitScope != tt.limitS {
				t.Fatalf("limit_type/scope = %q/%q, want %q/%q", e.LimitType, e.LimitScope, tt.limitT, tt.limitS)
			}
		})
	}
	for m, want := range before {
		if got := simtest.Available(t, sim, m, "USDT"); got != want {
			t.Errorf("%s available = %s after refusals, want %s", m, got, want)
		}
		if got := simtest.Locked(t, sim, m, "USDT"); got != "0" && got != "0.000000" {
			t.Errorf("%s locked = %s after refusals", m, got)
		}
		if n := len(listOrders(t, c, m)); n != 0 {
			t.Errorf("%s has %d orders after refusals", m, n)
		}
	}
}

func TestDailyLimitPerMember(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "rich", KYCLevel: 1, Balances: map[string]string{"USDT": "50000"}}))
	ctx := context.Background()
	p := validParams(payeeOf(t, c, "rich", "GBP"))
	p.PayoutAmount = "3500.00" // about 4460 USDT with the fee
	for i := 0; i < 2; i++ {
		if _, err := c.Remittances.Create(ctx, "rich", p); err != nil {
			t.Fatalf("order %d: %v", i, err)
		}
	}
	_, err := c.Remittances.Create(ctx, "rich", p)
	e := simtest.WantCode(t, err, mwallet.CodeLimitExceeded)
	if e.LimitType != "daily" || e.LimitScope != "member" {
		t.Fatalf("limit = %s/%s, want daily/member", e.LimitType, e.LimitScope)
	}
	// A failed order frees its share of the day; the next UTC day starts over.
	orders := listOrders(t, c, "rich")
	if err := sim.Remittances.Fail(orders[0].ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remittances.Create(ctx, "rich", p); err != nil {
		t.Fatalf("after a failure: %v", err)
	}
	sim.Clock.Advance(24 * time.Hour)
	if _, err := c.Remittances.Create(ctx, "rich", p); err != nil {
		t.Fatalf("next day: %v", err)
	}
}

func TestSlippageHoldAndSettlement(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	gbp := payeeOf(t, c, member1, "GBP")
	res, err := c.Remittances.Create(ctx, member1, validParams(gbp))
	if err != nil {
		t.Fatal(err)
	}
	// 100.00 GBP / 0.7850 = 127.388535031... rounded up to 127.388536, plus the
	// 2 USDT express fee; locked = 129.388536 × 1.02 = 131.97630672, rounded up.
	wantQuote := &remittance.Quote{
		SourceAsset: "USDT", CustomerTotal: money.MustParse("129.388536", 6), Fee: money.MustParse("2.000000", 6),
		LockedAmount: money.MustParse("131.976307", 6), IndicativeRate: "0.7850", AppliedRate: "0.7850",
	}
	if diff := cmp.Diff(wantQuote, res.Quote, amountCmp); diff != "" {
		t.Fatalf("quote (-want +got):\n%s", diff)
	}
	if res.Status != remittance.StatusDispatching || res.Duplicated || res.Response.Replayed || res.Response.StatusCode != 201 {
		t.Fatalf("result = %+v, response %+v", res, res.Response)
	}
	if !strings.HasPrefix(res.ID, "rmt_") {
		t.Fatalf("id %q", res.ID)
	}
	if a, l := simtest.Available(t, sim, member1, "USDT"), simtest.Locked(t, sim, member1, "USDT"); a != "868.023693" || l != "131.976307" {
		t.Fatalf("after create available %s locked %s", a, l)
	}
	o, err := c.Remittances.Get(ctx, member1, strings.TrimPrefix(res.ID, "rmt_"))
	if err != nil {
		t.Fatal(err)
	}
	if o.PayoutDate != "" || o.RateIsDealt || o.StatusVersion != 1 || !o.SettledAmount.IsZero() || o.SettledAmount.Scale() != 6 {
		t.Fatalf("before dispatch: %+v", *o)
	}
	if err := sim.Remittances.Dispatch(res.ID); err != nil {
		t.Fatal(err)
	}
	o, err = c.Remittances.Get(ctx, member1, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	// payout_date is set at dispatch, long before the payee is paid.
	if o.PayoutDate != "2026-01-01" || !o.RateIsDealt || o.Status != remittance.StatusProcessing || o.IsCompleted() || o.IsFinal() {
		t.Fatalf("after dispatch: %+v", *o)
	}
	if err := sim.Remittances.Complete(res.ID, ""); err != nil {
		t.Fatal(err)
	}
	o, err = c.Remittances.Get(ctx, member1, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := remittance.Order{
		ID: res.ID, Line: remittance.LineExpress, Status: remittance.StatusCompleted, StatusVersion: 3,
		SourceAsset: "USDT", LedgerScale: 6, LockedAmount: money.MustParse("131.976307", 6),
		SettledAmount: money.MustParse("129.388536", 6), Fee: money.MustParse("2", 6),
		PayoutCurrency: "GBP", PayoutAmount: "100.00", Rate: "0.7850", RateIsDealt: true,
		PurposeCode: remittance.PurposeFamilySupport, PayoutDate: "2026-01-01",
		Payee:     remittance.PayeeRef{Summary: "GBP ****6819", Holder: "Alice Smith"},
		CreatedAt: simulator.DefaultStart, UpdatedAt: simulator.DefaultStart,
	}
	if diff := cmp.Diff(want, *o, amountCmp, cmpopts.IgnoreTypes(mwallet.Meta{})); diff != "" {
		t.Fatalf("completed order (-want +got):\n%s", diff)
	}
	payout, err := o.Payout()
	if err != nil || payout.String() != "100.00" {
		t.Fatalf("Payout() = %s, %v", payout, err)
	}
	// The slippage excess went back to available; the rest left for upstream and fees.
	if a, l := simtest.Available(t, sim, member1, "USDT"), simtest.Locked(t, sim, member1, "USDT"); a != "870.611464" || l != "0.000000" {
		t.Fatalf("after completion available %s locked %s", a, l)
	}
	if got := simtest.Journal(t, sim, simulator.UpstreamAccount("remit"), "USDT"); got != "127.388536" {
		t.Fatalf("upstream = %s", got)
	}
	if err := sim.Remittances.Refund(res.ID); err != nil {
		t.Fatal(err)
	}
	if a := simtest.Available(t, sim, member1, "USDT"); a != "1000.000000" {
		t.Fatalf("after refund available %s", a)
	}
	var types []string
	for _, e := range sim.Events.List() {
		if e.Object == "remittance" {
			types = append(types, e.Type)
			if e.ObjectID != strings.TrimPrefix(res.ID, "rmt_") || e.ExternalMemberID != member1 {
				t.Errorf("event %s data.id %s member %s", e.Type, e.ObjectID, e.ExternalMemberID)
			}
		}
	}
	if diff := cmp.Diff([]string{"remittance.order.completed", "remittance.order.refunded"}, types); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
}

func TestSettlementAtHigherCostUsesSlippage(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	res, err := c.Remittances.Create(ctx, member1, validParams(payeeOf(t, c, member1, "GBP")))
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Dispatch(res.ID); err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Complete(res.ID, "131.976308"); err == nil {
		t.Fatal("a cost above locked_amount was accepted")
	}
	if err := sim.Remittances.Complete(res.ID, "130.500000"); err != nil {
		t.Fatal(err)
	}
	if a := simtest.Available(t, sim, member1, "USDT"); a != "869.500000" {
		t.Fatalf("available %s", a)
	}
}

func TestFailureReturnsEverything(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	jpy := payeeOf(t, c, member1, "JPY")
	res, err := c.Remittances.Create(ctx, member1, remittance.CreateParams{
		PayeeID: strings.TrimPrefix(jpy.ID, "pye_"), PayoutAmount: "15000", PayoutCurrency: "JPY", SlippageBps: 50,
		PurposeCode: remittance.PurposeEducationTraining, Reference: strings.Repeat("r", 250),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Dispatch(res.ID); err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Fail(res.ID, "beneficiary_account_closed"); err != nil {
		t.Fatal(err)
	}
	o, err := c.Remittances.Get(ctx, member1, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != remittance.StatusFailed || o.FailureCode != "beneficiary_account_closed" || len(o.Reference) != 200 || !o.SettledAmount.IsZero() {
		t.Fatalf("failed order: %+v", *o)
	}
	if a, l := simtest.Available(t, sim, member1, "USDT"), simtest.Locked(t, sim, member1, "USDT"); a != "1000.000000" || l != "0.000000" {
		t.Fatalf("available %s locked %s", a, l)
	}
	for _, action := range []func(string) error{sim.Remittances.Dispatch, sim.Remittances.Refund} {
		if err := action(res.ID); err == nil {
			t.Fatal("a failed order moved again")
		}
	}
	evs := simtest.EventsOf(sim, "remittance.order.failed")
	if len(evs) != 1 || "rmt_"+evs[0].ObjectID != o.ID || evs[0].Status != "failed" || evs[0].StatusVersion != o.StatusVersion {
		t.Fatalf("remittance.order.failed events %+v, want one for %s v%d", evs, o.ID, o.StatusVersion)
	}
}

func TestReplayReportsCurrentStatus(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	p := validParams(payeeOf(t, c, member1, "GBP"))
	key := "6f1c2a4e-0b7d-4c3e-9a51-2d8f7e6b5a40"
	first, err := c.Remittances.Create(ctx, member1, p, mwallet.WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.Dispatch(first.ID); err != nil {
		t.Fatal(err)
	}
	again, err := c.Remittances.Create(ctx, member1, p, mwallet.WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || !again.Duplicated || again.Quote != nil || again.Status != remittance.StatusProcessing || !again.Response.Replayed || again.Response.StatusCode != 201 {
		t.Fatalf("replay = %+v (response %+v)", again, again.Response)
	}
	if n := len(listOrders(t, c, member1)); n != 1 {
		t.Fatalf("%d orders after a replay", n)
	}
	p.PayoutAmount = "101.00"
	_, err = c.Remittances.Create(ctx, member1, p, mwallet.WithIdempotencyKey(key))
	simtest.WantCode(t, err, mwallet.CodeIdempotencyKeyReused)
	if a := simtest.Available(t, sim, member1, "USDT"); a != "868.023693" {
		t.Fatalf("available %s: held more than once", a)
	}
}

func TestMerchantFundedPendingAdvancesOnTopUp(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithModel(simulator.MerchantHosted),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "biz", KYCLevel: 2}))
	ctx := context.Background()
	if err := sim.Merchant.WithdrawPrepaid("USDT", ""); err != nil {
		t.Fatal(err)
	}
	gbp := payeeOf(t, c, member1, "GBP")
	p := validParams(gbp)

	// funding_source must be merchant on merchant_hosted accounts.
	for _, fs := range []mwallet.FundingSource{"", mwallet.FundingMember} {
		p.FundingSource = fs
		_, err := c.Remittances.Create(ctx, member1, p)
		if e := simtest.WantCode(t, err, mwallet.CodeInvalidFields); fieldKeys(e) != "funding_source" {
			t.Fatalf("fields %q", fieldKeys(e))
		}
	}
	p.FundingSource = mwallet.FundingMerchant

	// pobo does not queue.
	pobo := validParams(payeeOf(t, c, "biz", "GBP"))
	pobo.Line, pobo.PurposeCode, pobo.FundingSource = remittance.LinePOBO, remittance.PurposeGoodsPurchased, mwallet.FundingMerchant
	_, err := c.Remittances.Create(ctx, "biz", pobo)
	simtest.WantCode(t, err, mwallet.CodeServiceUnavailable)

	// express queues: 201 pending, nothing moved.
	res, err := c.Remittances.Create(ctx, member1, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != remittance.StatusPending || res.Quote == nil || res.Response.StatusCode != 201 {
		t.Fatalf("queued result %+v", res)
	}
	if got := simtest.Journal(t, sim, simulator.AccountMerchantPrepaidLocked, "USDT"); got != "0" {
		t.Fatalf("prepaid locked %s while pending", got)
	}
	if a := simtest.Available(t, sim, member1, "USDT"); a != "1000.000000" {
		t.Fatalf("member available %s: merchant funding must not touch it", a)
	}
	orders := listOrders(t, c, member1)
	if len(orders) != 1 || orders[0].Status != remittance.StatusPending || orders[0].StatusVersion != 1 {
		t.Fatalf("listed %+v", orders)
	}
	if _, err := sim.Remittances.Advance(res.ID); err == nil {
		t.Fatal("advanced without merchant funds")
	}

	// A top-up too small leaves it waiting; enough moves it on by itself.
	if err := sim.Merchant.TopUpPrepaid("USDT", "100"); err != nil {
		t.Fatal(err)
	}
	if o, _ := c.Remittances.Get(ctx, member1, res.ID); o.Status != remittance.StatusPending {
		t.Fatalf("status %s after a short top-up", o.Status)
	}
	// The control API's top-up does the same as sim.Merchant.TopUpPrepaid.
	resp, err := http.Post(sim.URL()+"/_sim/merchant/prepaid/topup", "application/json", strings.NewReader(`{"asset":"USDT","amount":"900"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("top-up: HTTP %d", resp.StatusCode)
	}
	o, err := c.Remittances.Get(ctx, member1, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != remittance.StatusPlatformReviewing || o.StatusVersion != 2 {
		t.Fatalf("after top-up %s v%d", o.Status, o.StatusVersion)
	}
	if got := simtest.Journal(t, sim, simulator.AccountMerchantPrepaidLocked, "USDT"); got != "131.976307" {
		t.Fatalf("prepaid locked %s", got)
	}
	for _, want := range []remittance.Status{remittance.StatusDispatching, remittance.StatusProcessing, remittance.StatusCompleted} {
		st, err := sim.Remittances.Advance(res.ID)
		if err != nil || st != string(want) {
			t.Fatalf("advance = %s, %v; want %s", st, err, want)
		}
	}
	if got := simtest.Journal(t, sim, simulator.AccountMerchantPrepaid, "USDT"); got != "870.611464" {
		t.Fatalf("prepaid after settlement %s", got)
	}
	if a := simtest.Available(t, sim, member1, "USDT"); a != "1000.000000" {
		t.Fatalf("member available %s", a)
	}
}

func TestMergeByStatusVersionOutOfOrder(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	res, err := c.Remittances.Create(ctx, member1, validParams(payeeOf(t, c, member1, "GBP")))
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*remittance.Order
	snap := func() {
		o, err := c.Remittances.Get(ctx, member1, res.ID)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, o)
	}
	snap()
	for _, step := range []func(string) error{sim.Remittances.Dispatch, func(id string) error { return sim.Remittances.Complete(id, "") }, sim.Remittances.Refund} {
		if err := step(res.ID); err != nil {
			t.Fatal(err)
		}
		snap()
	}
	// Snapshots fed newest first, or shuffled, still end at the newest.
	for _, order := range [][]int{{3, 2, 1, 0}, {1, 3, 0, 2}, {0, 1, 2, 3}} {
		var cur *remittance.Order
		for _, i := range order {
			cur = remittance.Merge(cur, snaps[i])
		}
		if cur.Status != remittance.StatusRefunded || cur.StatusVersion != 4 {
			t.Fatalf("merge %v ended at %s v%d", order, cur.Status, cur.StatusVersion)
		}
	}
	// Events delivered in reverse: only the newest moves the local copy.
	var evs []simulator.Event
	for _, e := range sim.Events.List() {
		if e.Object == "remittance" {
			evs = append(evs, e)
		}
	}
	local := *snaps[1] // processing, v2
	var applied []string
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if remittance.OrderID(e.ObjectID) != local.ID {
			t.Fatalf("event id %s does not map to %s", e.ObjectID, local.ID)
		}
		if local.ApplyEvent(remittance.Status(e.Status), e.StatusVersion) {
			applied = append(applied, e.Type)
		}
	}
	if diff := cmp.Diff([]string{"remittance.order.refunded"}, applied); diff != "" {
		t.Fatalf("applied (-want +got):\n%s", diff)
	}
	if local.Status != remittance.StatusRefunded || local.StatusVersion != 4 {
		t.Fatalf("local %s v%d", local.Status, local.StatusVersion)
	}
	if got := remittance.Merge(&local, snaps[0]); got.StatusVersion != 4 {
		t.Fatal("an older snapshot moved the order backward")
	}
	other := *snaps[0]
	other.ID, other.StatusVersion = "rmt_other", 99
	if got := remittance.Merge(&local, &other); got.ID != local.ID {
		t.Fatal("merged a different order")
	}
	if got := remittance.Merge(nil, &local); got != &local {
		t.Fatal("Merge(nil, u) is not u")
	}
	if got := remittance.Merge(&local, nil); got != &local {
		t.Fatal("Merge(c, nil) is not c")
	}
}

func TestNeedsReconfirm(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	res, err := c.Remittances.Create(ctx, member1, validParams(payeeOf(t, c, member1, "EUR")))
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Remittances.NeedsReconfirm(res.ID); err != nil {
		t.Fatal(err)
	}
	o, err := c.Remittances.Get(ctx, member1, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Status.NeedsAction() || o.StatusVersion != 2 {
		t.Fatalf("status %s v%d", o.Status, o.StatusVersion)
	}
	evs := sim.Events.List()
	last := evs[len(evs)-1]
	if last.Type != "remittance.order.action_required" || last.Status != "needs_reconfirm" || last.StatusVersion != 2 {
		t.Fatalf("event %+v", last)
	}
	if err := sim.Remittances.Fail(res.ID, ""); err != nil {
		t.Fatal(err)
	}
	if a := simtest.Available(t, sim, member1, "USDT"); a != "1000.000000" {
		t.Fatalf("available %s", a)
	}
}

func TestImmediateOutcomeCompletes(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	if err := sim.Outcomes.Set(simulator.CollectionRemittances, simulator.Immediate()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := validParams(payeeOf(t, c, member1, "PHP"))
	p.PayoutAmount = "1000.00"
	res, err := c.Remittances.Create(ctx, member1, p)
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.Remittances.Get(ctx, member1, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !o.IsCompleted() || o.StatusVersion != 3 || o.PayoutDate == "" {
		t.Fatalf("order %s v%d", o.Status, o.StatusVersion)
	}
}

func TestLargeOrderGoesToReview(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "rich", KYCLevel: 1, Balances: map[string]string{"USDC": "5000"}}))
	res, err := c.Remittances.Create(context.Background(), "rich", remittance.CreateParams{
		PayeeID: payeeOf(t, c, "rich", "USD").ID, PayoutAmount: "1000.00", PayoutCurrency: "USD", SlippageBps: 1000,
		PurposeCode: remittance.PurposeGift, Asset: "usdc",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != remittance.StatusReviewing || res.Quote.SourceAsset != "USDC" {
		t.Fatalf("%+v", res)
	}
	if st, err := sim.Remittances.Advance(res.ID); err != nil || st != "dispatching" {
		t.Fatalf("advance %s %v", st, err)
	}
}

func TestKYCUpdateStopsRemittances(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	p := validParams(payeeOf(t, c, member1, "GBP"))
	if err := sim.KYC.Update(member1); err != nil {
		t.Fatal(err)
	}
	_, err := c.Remittances.Create(ctx, member1, p)
	simtest.WantCode(t, err, mwallet.CodeKYCRequired)
	if err := sim.KYC.Approve(member1, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remittances.Create(ctx, member1, p); err != nil {
		t.Fatal(err)
	}
}

func TestListNewestFirst(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	p := validParams(payeeOf(t, c, member1, "GBP"))
	p.PayoutAmount = "10.00"
	var ids []string
	for i := 0; i < 23; i++ {
		res, err := c.Remittances.Create(ctx, member1, p)
		if err != nil {
			t.Fatal(err)
		}
		ids = append([]string{res.ID}, ids...)
		sim.Clock.Advance(time.Second)
	}
	var got []string
	for o, err := range c.Remittances.List(ctx, member1, mwallet.ListParams{Limit: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.ID)
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Fatalf("list order (-want +got):\n%s", diff)
	}
	// An invalid limit falls back to 20.
	var page mwallet.Page[json.RawMessage]
	if _, err := c.Do(ctx, &mwallet.Request{Method: http.MethodGet, Path: "/v1/remittances", Query: url.Values{"limit": {"many"}}, MemberScoped: true, Member: member1}, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 20 || !page.HasMore {
		t.Fatalf("invalid limit gave %d items, has_more %v", len(page.Data), page.HasMore)
	}
	// Get of another member's order is not found.
	_, err := c.Remittances.Get(ctx, "nobody-else", ids[0])
	simtest.WantCode(t, err, mwallet.CodeMemberNotFound)
	_, err = c.Remittances.Get(ctx, member1, "rmt_00000000-0000-4000-8000-000000000000")
	simtest.WantCode(t, err, mwallet.CodeNotFound)
	if _, err := c.Remittances.Get(ctx, member1, ""); !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Fatalf("empty id: %v", err)
	}
}

func TestPOBONeedsSubaccount(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "biz", KYCLevel: 2, Balances: map[string]string{"USDT": "1000"}}))
	ctx := context.Background()
	p := validParams(payeeOf(t, c, "biz", "EUR"))
	p.Line, p.PurposeCode = remittance.LinePOBO, remittance.PurposeServicesPurchased
	if err := sim.Merchant.SetPOBOSubaccount(false); err != nil {
		t.Fatal(err)
	}
	_, err := c.Remittances.Create(ctx, "biz", p)
	simtest.WantCode(t, err, mwallet.CodeProductNotAvailable)
	if err := sim.Merchant.SetPOBOSubaccount(true); err != nil {
		t.Fatal(err)
	}
	res, err := c.Remittances.Create(ctx, "biz", p)
	if err != nil {
		t.Fatal(err)
	}
	// 100.00 EUR / 0.9150 = 109.289617486... up to 109.289618, plus the 5 USDT pobo fee.
	if res.Quote.CustomerTotal.String() != "114.289618" || res.Quote.Fee.String() != "5.000000" {
		t.Fatalf("quote %+v", res.Quote)
	}
}

func TestControlAPIDrivesOrders(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	res, err := c.Remittances.Create(ctx, member1, validParams(payeeOf(t, c, member1, "GBP")))
	if err != nil {
		t.Fatal(err)
	}
	bare := strings.TrimPrefix(res.ID, "rmt_")
	for i, step := range []struct{ id, action, want string }{
		{bare, "dispatch", "processing"},
		{res.ID, "complete", "completed"},
		{bare, "refund", "refunded"},
	} {
		resp, err := http.Post(sim.URL()+"/_sim/remittances/"+step.id+"/"+step.action, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			ID            string `json:"id"`
			Status        string `json:"status"`
			StatusVersion int64  `json:"status_version"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || out.ID != res.ID || out.Status != step.want || out.StatusVersion != int64(i+2) {
			t.Fatalf("%s: HTTP %d %+v %v", step.action, resp.StatusCode, out, err)
		}
	}
	resp, err := http.Post(sim.URL()+"/_sim/remittances/"+bare+"/complete", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("completing a refunded order: HTTP %d", resp.StatusCode)
	}
}

func TestSetMerchantPrepaidAdvancesQueue(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
	ctx := context.Background()
	if err := sim.Merchant.Set(simulator.MerchantSettings{Prepaid: map[string]string{"USDT": "0"}}); err != nil {
		t.Fatal(err)
	}
	p := validParams(payeeOf(t, c, member1, "GBP"))
	p.FundingSource = mwallet.FundingMerchant
	var ids []string
	for i := 0; i < 2; i++ {
		res, err := c.Remittances.Create(ctx, member1, p)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
		sim.Clock.Advance(time.Second)
	}
	// Enough for the oldest only: it advances, the other keeps waiting.
	if err := sim.Merchant.Set(simulator.MerchantSettings{Prepaid: map[string]string{"USDT": "200"}}); err != nil {
		t.Fatal(err)
	}
	var got []remittance.Status
	for _, id := range ids {
		o, err := c.Remittances.Get(ctx, member1, id)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.Status)
	}
	if diff := cmp.Diff([]remittance.Status{remittance.StatusPlatformReviewing, remittance.StatusPending}, got); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	avail, held := sim.Merchant.PrepaidBalance("USDT")
	if avail.String() != "68.023693" || held.String() != "131.976307" {
		t.Fatalf("prepaid %s held %s", avail, held)
	}
}

func TestListNeedsRemittancesRead(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	if err := sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{Scopes: []string{"members:read"}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range c.Remittances.List(context.Background(), member1, mwallet.ListParams{}) {
		simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
		n++
	}
	if n != 1 {
		t.Fatalf("List yielded %d times, want the error once", n)
	}
	_, err := c.Remittances.QueryVPApplications(context.Background(), []string{member1})
	simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
}

// The service side of the body rules the SDK cannot express: an
// unrecognised line falls back to express, and a corridor sent in the body
// is ignored in favour of the payee's.
func TestServiceLineFallbackAndPayeeCorridor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(m map[string]any)
	}{
		{name: "line in upper case", edit: func(m map[string]any) { m["line"] = "POBO" }},
		{name: "line unknown", edit: func(m map[string]any) { m["line"] = "wire" }},
		{name: "line empty", edit: func(m map[string]any) { m["line"] = "" }},
		{name: "corridor sent", edit: func(m map[string]any) { m["corridor"] = "JP-JPY"; m["payout_currency"] = "JPY" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			ctx := context.Background()
			gbp := payeeOf(t, c, member1, "GBP")
			body := map[string]any{"payee_id": gbp.ID, "payout_amount": "100.00", "slippage_bps": 200, "purpose_code": "FAMILY_SUPPORT"}
			tt.edit(body)
			if err := rawCreate(ctx, c, member1, body); err != nil {
				t.Fatalf("create: %v", err)
			}
			orders := listOrders(t, c, member1)
			if len(orders) != 1 {
				t.Fatalf("%d orders, want 1", len(orders))
			}
			o := orders[0]
			if o.Line != remittance.LineExpress || o.PayoutCurrency != "GBP" || o.PayoutAmount != "100.00" {
				t.Fatalf("order line %q payout %s %s, want express 100.00 GBP", o.Line, o.PayoutAmount, o.PayoutCurrency)
			}
			if got := simtest.Locked(t, sim, member1, "USDT"); got == "0" || got == "0.000000" {
				t.Fatalf("locked = %s, want the order's hold", got)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Fatal(err)
			}
			if err := sim.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The service has no single-payee read; FindPayee walks the list.
func TestFindPayee(t *testing.T) {
	t.Parallel()
	_, client := simtest.New(t)
	ctx := context.Background()
	var last remittance.Payee
	for py, err := range client.Remittances.Payees(ctx, "member-1", mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		last = py
	}
	for _, id := range []string{last.ID, strings.TrimPrefix(last.ID, "pye_")} {
		got, err := client.Remittances.FindPayee(ctx, "member-1", id)
		if err != nil || got.ID != last.ID || got.Currency != last.Currency {
			t.Fatalf("FindPayee(%s) = %+v, %v; want %s", id, got, err, last.ID)
		}
	}
	if _, err := client.Remittances.FindPayee(ctx, "member-1", "pye_999999"); !errors.Is(err, remittance.ErrPayeeNotFound) {
		t.Fatalf("FindPayee of an unknown id: %v", err)
	}
}
