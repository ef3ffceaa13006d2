package qrpay_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	cases := []struct {
		name string
		code string
		want qrpay.Decoded
	}{
		{"fixed amount PromptPay merchant", thaiMerchantCode(t, "250.00"), qrpay.Decoded{
			Payee: "BAAN THAI KITCHEN", Amount: qrpay.Fiat{Amount: "250.00", Currency: "THB"}, RequiredPayerFields: []string{},
		}},
		{"custom amount PromptPay P2P", thaiP2PCode(t), qrpay.Decoded{
			Payee: "mobile +66801234567", Amount: qrpay.Fiat{Currency: "THB"}, AmountEditable: true, RequiredPayerFields: []string{},
		}},
		{"published PromptPay reference", "00020101021129370016A000000677010111011300668012345675802TH530376463046197", qrpay.Decoded{
			Payee: "mobile +66801234567", Amount: qrpay.Fiat{Currency: "THB"}, AmountEditable: true, RequiredPayerFields: []string{},
		}},
		{"custom amount with range", thaiP2PCode(t, simulator.QRScenarioRange), qrpay.Decoded{
			Payee: "mobile +66801234567", Amount: qrpay.Fiat{Currency: "THB"}, AmountEditable: true,
			MinAmount: "10.00", MaxAmount: "500.00", RequiredPayerFields: []string{},
		}},
		{"payer fields", thaiMerchantCode(t, "99.00", simulator.QRScenarioPayerFields), qrpay.Decoded{
			Payee: "BAAN THAI KITCHEN", Amount: qrpay.Fiat{Amount: "99.00", Currency: "THB"},
			RequiredPayerFields: []string{"custName", "custNationCode", "mobile"},
		}},
		{"KHQR", khqrCode(t, "20000"), qrpay.Decoded{
			Payee: "Sokha Cafe", Amount: qrpay.Fiat{Amount: "20000", Currency: "KHR"}, RequiredPayerFields: []string{},
		}},
	}
	for _, tc := range cases {
		got, err := c.QRPay.Decode(ctx, member1, qrpay.DecodeParams{CodeValue: tc.code})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Response == nil || got.Response.RequestID == "" {
			t.Errorf("%s: no response metadata", tc.name)
		}
		if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(qrpay.Decoded{}, "Response")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	valid := thaiMerchantCode(t, "250.00")
	bad := []struct {
		name string
		code string
		want mwallet.Code
	}{
		{"bad CRC", valid[:len(valid)-1] + "0", mwallet.CodeQRCodeInvalid},
		{"unsupported scheme (EMVCo sample)", "00020101021229300012D156000000000510A93FO3230Q31280012D15600000001030812345678520441115802CN5914BEST TRANSPORT6007BEIJING64200002ZH0104最佳运输0202北京540523.7253031565502016233030412340603***0708A60086670902ME91320016A0112233449988770708123456786304A13A", mwallet.CodeQRCodeInvalid},
		{"not a QR payload", "https://example.com/pay", mwallet.CodeQRCodeInvalid},
		{"trimmed payload", " " + valid, mwallet.CodeQRCodeInvalid},
		{"upstream rejection", thaiMerchantCode(t, "250.00", simulator.QRScenarioReject), mwallet.CodeQRCodeInvalid},
		{"upstream unavailable", thaiMerchantCode(t, "250.00", simulator.QRScenarioUpstreamError), mwallet.CodeServiceUnavailable},
	}
	for _, tc := range bad {
		_, err := c.QRPay.Decode(ctx, member1, qrpay.DecodeParams{CodeValue: tc.code})
		if e := simtest.AsError(t, err); e.Code != tc.want || e.HTTPStatus != http.StatusBadRequest {
			t.Errorf("%s: %v, want %s 400", tc.name, err, tc.want)
		}
	}
	// The same qr_code_invalid answer for every cause.
	if _, err := c.QRPay.Decode(ctx, member1, qrpay.DecodeParams{}); !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Errorf("empty code: %v, want a ParamError", err)
	}
	if _, err := c.QRPay.Decode(ctx, "  ", qrpay.DecodeParams{CodeValue: valid}); mwallet.CodeOf(err) != mwallet.CodeMemberContextRequired {
		t.Errorf("blank member: %v", err)
	}
	_ = sim
}

func TestQuoteFixedAndCustomAmount(t *testing.T) {
	t.Parallel()
	_, c := simtest.New(t)
	ctx := context.Background()
	mp := money.MustParse
	opt := func(asset string, scale, display int, total, fee string) qrpay.QuoteOption {
		return qrpay.QuoteOption{Asset: asset, LedgerScale: scale, DisplayScale: display, CustomerTotal: mp(total, scale), Fee: mp(fee, scale), Sufficient: asset == "USDT" || asset == "USDC"}
	}
	// 250.00 THB at 0.029 USD is 7.25 USD; principal adds 0.30 % cost
	// protection (rounded up to the asset scale), the member fee is 0.50 % of
	// the principal (rounded up), customer_total is both.
	got, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: thaiMerchantCode(t, "250.00")})
	if err != nil {
		t.Fatal(err)
	}
	want := qrpay.Quote{
		Payee: "BAAN THAI KITCHEN", Acquirer: qrpay.Fiat{Amount: "250.00", Currency: "THB"},
		Chosen: opt("USDT", 6, 2, "7.308109", "0.036359"),
		Options: []qrpay.QuoteOption{
			opt("USDT", 6, 2, "7.308109", "0.036359"),
			opt("USDC", 6, 2, "7.308109", "0.036359"),
			opt("BTC", 8, 6, "0.00007309", "0.00000037"),
			opt("ETH", 18, 6, "0.0029232435", "0.0000145435"),
		},
	}
	if diff := cmp.Diff(want, *got, amountEq, cmpopts.IgnoreFields(qrpay.Quote{}, "Response", "ExpiresAt", "ExpiresAtText")); diff != "" {
		t.Errorf("fixed quote (-want +got):\n%s", diff)
	}
	if exp := got.ExpiresAt; !exp.After(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("expires_at %s", got.ExpiresAt)
	}

	custom := thaiP2PCode(t)
	got, err = c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: custom, Currency: "THB", Amount: "100"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(opt("USDT", 6, 2, "2.923244", "0.014544"), got.Chosen, amountEq); diff != "" || got.Acquirer != (qrpay.Fiat{Amount: "100.00", Currency: "THB"}) {
		t.Errorf("custom quote %v (-want +got):\n%s", got.Acquirer, diff)
	}

	bad := []struct {
		name   string
		p      qrpay.QuoteParams
		code   mwallet.Code
		fields []string
	}{
		{"amount on a fixed code", qrpay.QuoteParams{CodeValue: thaiMerchantCode(t, "250.00"), Amount: "250.00"}, mwallet.CodeInvalidFields, []string{"amount"}},
		{"currency and amount on a fixed code", qrpay.QuoteParams{CodeValue: thaiMerchantCode(t, "250.00"), Currency: "THB", Amount: "250.00"}, mwallet.CodeInvalidFields, []string{"currency", "amount"}},
		{"custom code without amount", qrpay.QuoteParams{CodeValue: custom}, mwallet.CodeInvalidRequest, nil},
		{"custom code, too many decimals", qrpay.QuoteParams{CodeValue: custom, Amount: "1.005"}, mwallet.CodeInvalidRequest, nil},
		{"custom code, other currency", qrpay.QuoteParams{CodeValue: custom, Currency: "SGD", Amount: "10"}, mwallet.CodeInvalidFields, []string{"currency"}},
		{"preferred asset not quoted", qrpay.QuoteParams{CodeValue: khqrCode(t, "20000"), PreferredAsset: "ETH"}, mwallet.CodeInvalidFields, []string{"preferred_asset"}},
		{"payer fields needed", qrpay.QuoteParams{CodeValue: thaiMerchantCode(t, "99.00", simulator.QRScenarioPayerFields)}, mwallet.CodeProductNotAvailable, nil},
		{"corridor", qrpay.QuoteParams{CodeValue: thaiMerchantCode(t, "99.00", simulator.QRScenarioCorridor)}, mwallet.CodeCorridorNotSupported, nil},
		{"outside the code range", qrpay.QuoteParams{CodeValue: thaiP2PCode(t, simulator.QRScenarioRange), Amount: "600"}, mwallet.CodeAmountOutOfRange, nil},
		{"upstream error", qrpay.QuoteParams{CodeValue: thaiMerchantCode(t, "99.00", simulator.QRScenarioUpstreamError)}, mwallet.CodeUpstreamError, nil},
		{"unknown funding source", qrpay.QuoteParams{CodeValue: custom, Amount: "10", FundingSource: "wallet"}, mwallet.CodeInvalidFields, []string{"funding_source"}},
		{"merchant funding on platform_hosted", qrpay.QuoteParams{CodeValue: custom, Amount: "10", FundingSource: mwallet.FundingMerchant}, mwallet.CodeInvalidFields, []string{"funding_source"}},
	}
	for _, tc := range bad {
		_, err := c.QRPay.Quote(ctx, member1, tc.p, mwallet.WithMaxAttempts(1))
		e := simtest.AsError(t, err)
		var keys []string
		for _, f := range e.Fields {
			keys = append(keys, f.Key)
		}
		if e.Code != tc.code || !cmp.Equal(keys, tc.fields) {
			t.Errorf("%s: %v, want %s %v", tc.name, err, tc.code, tc.fields)
		}
	}
	// Checked before sending.
	for _, p := range []qrpay.QuoteParams{
		{CodeValue: custom, Amount: "abc"},
		{CodeValue: custom, Amount: "-1"},
		{CodeValue: custom, Amount: "1e3"},
		{CodeValue: custom, Amount: "10", Currency: "thb"},
		{CodeValue: custom, Amount: "10", PreferredAsset: " USDT"},
		{},
	} {
		if _, err := c.QRPay.Quote(ctx, member1, p); !errors.Is(err, mwallet.ErrInvalidParam) {
			t.Errorf("%+v: %v, want a ParamError", p, err)
		}
	}
}

func TestQuoteMemoReusesUpstreamOrder(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	code := thaiMerchantCode(t, "250.00")
	first, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code})
	if err != nil {
		t.Fatal(err)
	}
	sim.Clock.Advance(59 * time.Second)
	second, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code})
	if err != nil {
		t.Fatal(err)
	}
	if got := sim.QRPay.UpstreamCalls().Quotes; got != 1 {
		t.Fatalf("upstream quotes after a reuse at 59 s = %d, want 1", got)
	}
	// The reused quote is the same upstream order: same expiry, now 1 s away.
	if !second.ExpiresAt.Equal(first.ExpiresAt) {
		t.Errorf("expires_at %s then %s", first.ExpiresAt, second.ExpiresAt)
	}
	if exp := second.ExpiresAt; exp.Sub(sim.Clock.Now()) != time.Second {
		t.Errorf("reused quote expires %s after now", exp.Sub(sim.Clock.Now()))
	}
	// Another amount, another member: other upstream orders.
	if _, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: thaiMerchantCode(t, "251.00")}); err != nil {
		t.Fatal(err)
	}
	if got := sim.QRPay.UpstreamCalls().Quotes; got != 2 {
		t.Fatalf("upstream quotes after another code = %d, want 2", got)
	}
	sim.Clock.Advance(2 * time.Second) // 61 s after the first
	third, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code})
	if err != nil {
		t.Fatal(err)
	}
	if got := sim.QRPay.UpstreamCalls().Quotes; got != 3 {
		t.Fatalf("upstream quotes after 61 s = %d, want 3", got)
	}
	if third.ExpiresAt.Equal(first.ExpiresAt) {
		t.Errorf("a new upstream order kept expires_at %s", third.ExpiresAt)
	}
	if got := sim.QRPay.UpstreamCalls().Notices; got != 0 {
		t.Errorf("quotes sent %d payment notices", got)
	}
}

func TestQuoteRateLimit(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 1, Balances: map[string]string{"USDT": "100"}}))
	ctx := context.Background()
	code := thaiMerchantCode(t, "250.00")
	for i := 0; i < 30; i++ {
		if _, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code}); err != nil {
			t.Fatalf("quote %d: %v", i+1, err)
		}
		if i == 9 {
			sim.Clock.Advance(10 * time.Second)
		}
	}
	var resp *mwallet.Response
	_, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code}, mwallet.WithMaxAttempts(1), mwallet.WithResponse(&resp))
	e := simtest.AsError(t, err)
	// The ten first quotes leave the window 50 s from now.
	if e.Code != mwallet.CodeRateLimited || e.HTTPStatus != http.StatusTooManyRequests || e.RetryDelay != 50*time.Second {
		t.Fatalf("31st quote: %v (retry_after %s), want rate_limited 429 retry_after 50s", err, e.RetryDelay)
	}
	if resp == nil || resp.Header.Get("Retry-After") != "50" {
		t.Fatalf("Retry-After header missing: %+v", resp)
	}
	// Other members have their own quota.
	if _, err := c.QRPay.Quote(ctx, "member-2", qrpay.QuoteParams{CodeValue: code}); err != nil {
		t.Fatalf("member-2: %v", err)
	}
	sim.Clock.Advance(50 * time.Second)
	for i := 0; i < 10; i++ {
		if _, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code}, mwallet.WithMaxAttempts(1)); err != nil {
			t.Fatalf("quote %d after the window moved: %v", i+1, err)
		}
	}
	if _, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code}, mwallet.WithMaxAttempts(1)); mwallet.CodeOf(err) != mwallet.CodeRateLimited {
		t.Fatalf("quote 41: %v, want rate_limited", err)
	}
}

func TestMerchantFundedFees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mp := money.MustParse
	usdt := func(s string) money.Amount { return mp(s, 6) }
	type want struct {
		asset, total, fee   string
		feeAsset, feeAmount string
		sufficient          bool
	}
	cases := []struct {
		name      string
		rateBps   int64
		prepaid   map[string]string // asset -> prepaid balance to set
		preferred string
		want      want
	}{
		// Principal 7.271750 USDT (250.00 THB).
		{"zero rate charges nothing", 0, nil, "", want{"USDT", "7.271750", "0.000000", "USDT", "0.000000", true}},
		{"fee inside customer_total when in the debit asset", 100, nil, "", want{"USDT", "7.344468", "0.072718", "USDT", "0.072718", true}},
		{"minimum fee 0.01", 1, nil, "", want{"USDT", "7.281750", "0.010000", "USDT", "0.010000", true}},
		{"fee in USDT beside a BTC principal", 100, map[string]string{"BTC": "1"}, "BTC", want{"BTC", "0.00007272", "0.00000000", "USDT", "0.072718", true}},
		{"whole fee in USDC when USDT after principal cannot cover it", 100, map[string]string{"USDT": "7.300000"}, "", want{"USDT", "7.271750", "0.000000", "USDC", "0.072718", true}},
		{"insufficient in both assets", 100, map[string]string{"USDT": "7.300000", "USDC": "0.050000"}, "", want{"USDT", "7.344468", "0.072718", "USDT", "0.072718", false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
			if err := sim.QRPay.SetMerchantFeeRate(tc.rateBps); err != nil {
				t.Fatal(err)
			}
			for asset, amt := range tc.prepaid {
				if err := sim.Merchant.WithdrawPrepaid(asset, ""); err != nil && asset != "BTC" {
					t.Fatal(err)
				}
				if err := sim.Merchant.TopUpPrepaid(asset, amt); err != nil {
					t.Fatal(err)
				}
			}
			code := thaiMerchantCode(t, "250.00")
			p := qrpay.QuoteParams{CodeValue: code, FundingSource: mwallet.FundingMerchant, PreferredAsset: tc.preferred}
			q, err := c.QRPay.Quote(ctx, member1, p)
			if err != nil {
				t.Fatal(err)
			}
			scale := q.Chosen.LedgerScale
			w := tc.want
			gotWant := qrpay.QuoteOption{
				Asset: w.asset, LedgerScale: scale, DisplayScale: q.Chosen.DisplayScale,
				CustomerTotal: mp(w.total, scale), Fee: mp(w.fee, scale), Sufficient: w.sufficient,
				MerchantFee: &qrpay.MerchantFee{Asset: w.feeAsset, Amount: usdt(w.feeAmount), LedgerScale: 6},
			}
			if diff := cmp.Diff(gotWant, q.Chosen, amountEq); diff != "" {
				t.Fatalf("chosen (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(q.Chosen.MerchantFee, q.MerchantFee, amountEq); diff != "" {
				t.Errorf("top-level fee differs from chosen:\n%s", diff)
			}
			before := books(sim)
			pay := qrpay.PayParams{CodeValue: code, FundingSource: mwallet.FundingMerchant, PreferredAsset: tc.preferred}
			if !w.sufficient {
				err := payExpectError(t, sim, c, member1, pay)
				if e := simtest.AsError(t, err); e.Code != mwallet.CodeServiceUnavailable {
					t.Fatalf("Pay: %v, want service_unavailable", err)
				}
				if diff := cmp.Diff(before, books(sim)); diff != "" {
					t.Fatalf("a refused payment moved money:\n%s", diff)
				}
				return
			}
			o := payWithStepUp(t, sim, c, member1, pay)
			if diff := cmp.Diff(gotWant.MerchantFee, o.MerchantFee, amountEq); diff != "" || !o.CustomerTotal.Equal(gotWant.CustomerTotal) {
				t.Fatalf("order %+v fee (-want +got):\n%s", o, diff)
			}
			// Held from the prepaid account, member untouched.
			mid := simtest.MemberID(t, sim, member1)
			if balance(sim, simulator.MemberLocked(mid), "USDT") != "" || balance(sim, simulator.MemberAvailable(mid), "USDT") != "1000.000000" {
				t.Fatalf("member funds moved: %v", books(sim))
			}
			if got := balance(sim, simulator.AccountMerchantPrepaidLocked, w.asset); got != w.total {
				t.Errorf("prepaid locked %s = %q, want %s", w.asset, got, w.total)
			}
			if err := sim.QRPay.Complete(o.ID); err != nil {
				t.Fatal(err)
			}
			wantRevenue := ""
			if w.feeAmount != "0.000000" {
				wantRevenue = w.feeAmount
			}
			principal := mp(w.total, scale)
			if w.feeAsset == w.asset {
				principal, _ = principal.Sub(mp(w.feeAmount, scale))
			}
			got := map[string]string{
				"upstream":      balance(sim, simulator.UpstreamAccount("qrpay"), w.asset),
				"revenue":       balance(sim, simulator.AccountRevenueFees, w.feeAsset),
				"locked asset":  balance(sim, simulator.AccountMerchantPrepaidLocked, w.asset),
				"locked feeast": balance(sim, simulator.AccountMerchantPrepaidLocked, w.feeAsset),
			}
			wantBooks := map[string]string{"upstream": principal.String(), "revenue": wantRevenue, "locked asset": "", "locked feeast": ""}
			if diff := cmp.Diff(wantBooks, got); diff != "" {
				t.Errorf("books after completion (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFundingSourceRule(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
	ctx := context.Background()
	code := thaiMerchantCode(t, "250.00")
	before := books(sim)
	for _, fs := range []mwallet.FundingSource{"", mwallet.FundingMember, "MERCHANT"} {
		_, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code, FundingSource: fs})
		if e := simtest.AsError(t, err); e.Code != mwallet.CodeInvalidFields || len(e.Fields) == 0 || e.Fields[0].Key != "funding_source" {
			t.Errorf("quote with funding_source %q: %v", fs, err)
		}
		_, err = c.QRPay.Pay(ctx, member1, qrpay.PayParams{CodeValue: code, FundingSource: fs})
		if e := simtest.AsError(t, err); e.Code != mwallet.CodeInvalidFields || len(e.Fields) == 0 || e.Fields[0].Key != "funding_source" {
			t.Errorf("pay with funding_source %q: %v", fs, err)
		}
	}
	if diff := cmp.Diff(before, books(sim)); diff != "" {
		t.Errorf("money moved:\n%s", diff)
	}
	if got := sim.QRPay.UpstreamCalls(); got != (simulator.QRUpstreamStats{}) {
		t.Errorf("upstream called: %+v", got)
	}
}

func TestLimitsCountPrincipalOnly(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "rich", KYCLevel: 2, Balances: map[string]string{"USDT": "10000"}}))
	// 68750.00 THB: principal 1999.731250 USDT (under the 2000 USD
	// per-transaction maximum), customer_total 2009.729907 with the fee.
	o := payWithStepUp(t, sim, c, "rich", qrpay.PayParams{CodeValue: thaiMerchantCode(t, "68750.00")})
	if o.Status != qrpay.StatusProcessing || o.CustomerTotal.String() != "2009.729907" || o.Fee.String() != "9.998657" {
		t.Fatalf("order %+v", o)
	}
}

func TestPreferredAssetNeverReplaced(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "usdc-only", KYCLevel: 1, Balances: map[string]string{"USDC": "500"}}))
	ctx := context.Background()
	code := thaiMerchantCode(t, "250.00")
	q, err := c.QRPay.Quote(ctx, "usdc-only", qrpay.QuoteParams{CodeValue: code})
	if err != nil {
		t.Fatal(err)
	}
	if q.Chosen.Asset != "USDC" || !q.Chosen.Sufficient {
		t.Errorf("payment priority chose %s (sufficient %v), want USDC", q.Chosen.Asset, q.Chosen.Sufficient)
	}
	q, err = c.QRPay.Quote(ctx, "usdc-only", qrpay.QuoteParams{CodeValue: code, PreferredAsset: "USDT"})
	if err != nil {
		t.Fatal(err)
	}
	if q.Chosen.Asset != "USDT" || q.Chosen.Sufficient {
		t.Errorf("preferred USDT became %s (sufficient %v)", q.Chosen.Asset, q.Chosen.Sufficient)
	}
	before := books(sim)
	err = payExpectError(t, sim, c, "usdc-only", qrpay.PayParams{CodeValue: code, PreferredAsset: "USDT"})
	if e := simtest.AsError(t, err); e.Code != mwallet.CodeAPIError || e.HTTPStatus != 500 {
		t.Fatalf("Pay preferred USDT: %v, want 500 api_error", err)
	}
	if diff := cmp.Diff(before, books(sim)); diff != "" {
		t.Fatalf("money moved:\n%s", diff)
	}
	o := payWithStepUp(t, sim, c, "usdc-only", qrpay.PayParams{CodeValue: code})
	if o.Asset != "USDC" || o.CustomerTotal.String() != "7.308109" {
		t.Fatalf("order %+v", o)
	}
}
