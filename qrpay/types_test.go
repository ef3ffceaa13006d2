package qrpay_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/internal/api"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
)

// fakeCaller answers every call with body and records the request.
type fakeCaller struct {
	body string
	err  error
	reqs []*api.Request
}

func (f *fakeCaller) Do(_ context.Context, r *api.Request, out any, opts ...api.CallOption) (*api.Response, error) {
	f.reqs = append(f.reqs, r)
	o := api.Apply(opts)
	resp := &api.Response{StatusCode: 200, IdempotencyKey: o.IdempotencyKey}
	if r.Idempotent && resp.IdempotencyKey == "" {
		resp.IdempotencyKey = "0d9f5b1e-4f4a-4c53-9a53-3f1c2b7d8e90"
	}
	if f.err != nil {
		return resp, f.err
	}
	return resp, json.Unmarshal([]byte(f.body), out)
}

func TestStatusAndFundingSource(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s            qrpay.Status
		known, final bool
	}{
		{qrpay.StatusPending, true, false},
		{qrpay.StatusProcessing, true, false},
		{qrpay.StatusCompleted, true, true},
		{qrpay.StatusFailed, true, true},
		{qrpay.StatusRefunded, true, true},
		{qrpay.StatusExpired, true, true},
		{qrpay.StatusCanceled, true, true},
		{"on_hold", false, false},
		{"", false, false},
	}
	for _, tc := range cases {
		if tc.s.Known() != tc.known || tc.s.IsFinal() != tc.final {
			t.Errorf("%q: Known %v IsFinal %v", tc.s, tc.s.Known(), tc.s.IsFinal())
		}
	}
	for fs, known := range map[qrpay.FundingSource]bool{qrpay.FundingMember: true, qrpay.FundingMerchant: true, "wallet": false, "": false} {
		if fs.Known() != known {
			t.Errorf("%q.Known() = %v", fs, fs.Known())
		}
	}
}

func TestOrderID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"qrp_abc": "qrp_abc", "abc": "qrp_abc", "8c1f0e5e-1d2b-4c6a-9a51-2b8e0c7d1f33": "qrp_8c1f0e5e-1d2b-4c6a-9a51-2b8e0c7d1f33"} {
		if got, err := qrpay.OrderID(in); err != nil || got != want {
			t.Errorf("OrderID(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "qrp_", " abc", "a/b", "a?b"} {
		if _, err := qrpay.OrderID(in); !errors.Is(err, mwallet.ErrInvalidParam) {
			t.Errorf("OrderID(%q): %v", in, err)
		}
	}
}

func TestAsStepUp(t *testing.T) {
	t.Parallel()
	if _, ok := qrpay.AsStepUp(errors.New("boom")); ok {
		t.Error("plain error read as step-up")
	}
	if _, ok := qrpay.AsStepUp(&api.Error{Code: api.CodeAPIError}); ok {
		t.Error("api_error read as step-up")
	}
	err := &api.Error{Code: api.CodeStepUpRequired, ChallengeID: "ch1", HostedURL: "https://verify.example/ch1", ExpiresAt: 1767225900, IdempotencyKey: "k1"}
	su, ok := qrpay.AsStepUp(errors.Join(errors.New("wrapped"), err))
	if !ok {
		t.Fatal("wrapped step_up_required not found")
	}
	want := qrpay.StepUp{ChallengeID: "ch1", HostedURL: "https://verify.example/ch1", ExpiresAt: time.Unix(1767225900, 0).UTC(), IdempotencyKey: "k1"}
	if diff := cmp.Diff(want, *su); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	o := api.Apply(su.Options())
	if o.IdempotencyKey != "k1" || o.StepUp != "ch1" {
		t.Errorf("options %+v", o)
	}
}

func TestPayFillsIdempotencyKeyOfErrors(t *testing.T) {
	t.Parallel()
	f := &fakeCaller{err: &api.Error{Code: api.CodeStepUpRequired, ChallengeID: "ch"}}
	c := qrpay.New(f)
	_, err := c.Pay(context.Background(), "m", qrpay.PayParams{CodeValue: "x"})
	su, ok := qrpay.AsStepUp(err)
	if !ok || su.IdempotencyKey != "0d9f5b1e-4f4a-4c53-9a53-3f1c2b7d8e90" {
		t.Fatalf("%+v %v", su, err)
	}
	r := f.reqs[0]
	if !r.Idempotent || !r.MemberScoped || r.Member != "m" || r.Path != "/v1/qrpay/payments" {
		t.Errorf("request %+v", r)
	}
}

func TestRequestBodySendsExactlyWhatWasSet(t *testing.T) {
	t.Parallel()
	f := &fakeCaller{body: `{"chosen":{"asset":"USDT","ledger_scale":6,"customer_total":"1.000000","fee":"0.000000"}}`}
	c := qrpay.New(f)
	ctx := context.Background()
	if _, err := c.Quote(ctx, "m", qrpay.QuoteParams{CodeValue: " raw text "}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Quote(ctx, "m", qrpay.QuoteParams{
		CodeValue: "c", FundingSource: qrpay.FundingMerchant, Currency: "THB", Amount: "10.50", PreferredAsset: "usdt",
		Payer: &qrpay.Payer{CustName: "A", LegalID: "X1"},
	}); err != nil {
		t.Fatal(err)
	}
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	got := []string{enc(f.reqs[0].Body), enc(f.reqs[1].Body)}
	want := []string{
		`{"code_value":" raw text "}`,
		`{"amount":"10.50","code_value":"c","currency":"THB","funding_source":"merchant","payer":{"custName":"A","legalId":"X1"},"preferred_asset":"usdt"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	if f.reqs[0].Idempotent {
		t.Error("quotes sent with an idempotency key")
	}
}

func TestResponseAmountsUseTheirOwnScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	quote := func(body string) (*qrpay.Quote, error) {
		return qrpay.New(&fakeCaller{body: body}).Quote(ctx, "m", qrpay.QuoteParams{CodeValue: "c"})
	}
	q, err := quote(`{"payee":"P","acquirer_currency":"THB","acquirer_amount":"250.00","expires_at":"",
		"chosen":{"asset":"BTC","ledger_scale":8,"display_scale":6,"customer_total":"0.00007309","fee":"0.00000037","sufficient":true,
			"fee_asset":"USDT","fee_amount":"0.072718","fee_ledger_scale":6},
		"options":[{"asset":"ETH","ledger_scale":18,"customer_total":"0.002923243500000000","fee":"0"}],"blocked_reason":""}`)
	if err != nil {
		t.Fatal(err)
	}
	if !q.Chosen.CustomerTotal.Equal(money.MustParse("0.00007309", 8)) || q.Chosen.MerchantFee.Amount.Scale() != 6 ||
		q.Options[0].CustomerTotal.Scale() != 18 || q.Options[0].Fee.Scale() != 18 {
		t.Errorf("scales: %+v", q)
	}
	if _, ok := q.Expiry(); ok {
		t.Error("empty expires_at parsed")
	}
	for name, body := range map[string]string{
		"more decimals than ledger_scale": `{"chosen":{"asset":"USDT","ledger_scale":2,"customer_total":"1.005","fee":"0"}}`,
		"ledger_scale missing":            `{"chosen":{"asset":"USDT","customer_total":"1.00","fee":"0"}}`,
		"negative total":                  `{"chosen":{"asset":"USDT","ledger_scale":2,"customer_total":"-1.00","fee":"0"}}`,
		"fee without its scale":           `{"chosen":{"asset":"USDT","ledger_scale":2,"customer_total":"1.00","fee":"0","fee_asset":"USDT","fee_amount":"0.01"}}`,
		"bad option":                      `{"chosen":{"asset":"USDT","ledger_scale":2,"customer_total":"1.00","fee":"0"},"options":[{"asset":"X","ledger_scale":2,"customer_total":"1e2","fee":"0"}]}`,
		"no chosen":                       `{"options":[]}`,
	} {
		if _, err := quote(body); err == nil || !strings.Contains(err.Error(), "qrpay: quote response") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Orders: an unknown status is kept verbatim; without ledger_scale the
	// printed scale is kept.
	o, err := qrpay.New(&fakeCaller{body: `{"id":"qrp_1","status":"on_hold","asset":"USDT","customer_total":"7.308109","fee":"0.036359"}`}).Order(ctx, "m", "1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != "on_hold" || o.Status.Known() || o.LedgerScale != -1 || o.CustomerTotal.Scale() != 6 {
		t.Errorf("order %+v", o)
	}
}

func TestWaitForOutcomeStopsOnPermanentErrors(t *testing.T) {
	t.Parallel()
	f := &fakeCaller{err: &api.Error{Code: api.CodeNotFound, HTTPStatus: 404}}
	_, err := qrpay.New(f).WaitForOutcome(context.Background(), "m", "qrp_1", qrpay.WithSleep(func(context.Context, time.Duration) error {
		t.Fatal("slept after a permanent error")
		return nil
	}))
	if mwallet.CodeOf(err) != mwallet.CodeNotFound || len(f.reqs) != 1 {
		t.Fatalf("%v after %d reads", err, len(f.reqs))
	}
	// Retryable errors keep polling, with a growing interval.
	f = &fakeCaller{err: &api.Error{Code: api.CodeUpstreamError, HTTPStatus: 502}}
	var waits []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = qrpay.New(f).WaitForOutcome(ctx, "m", "qrp_1", qrpay.WithPollInterval(time.Second, 3*time.Second),
		qrpay.WithSleep(func(ctx context.Context, d time.Duration) error {
			if waits = append(waits, d); len(waits) == 5 {
				cancel()
			}
			return ctx.Err()
		}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
	if want := []time.Duration{time.Second, 1500 * time.Millisecond, 2250 * time.Millisecond, 3 * time.Second, 3 * time.Second}; !cmp.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
}

// fakeCatalogue is a caller that also parses amounts at fixed ledger scales,
// as the root client does from the asset catalogue.
type fakeCatalogue struct {
	fakeCaller
	scales map[string]int
}

func (f *fakeCatalogue) ParseAmount(_ context.Context, asset, s string) (money.Amount, error) {
	sc, ok := f.scales[asset]
	if !ok {
		return money.Amount{}, errors.New("asset not in the catalogue")
	}
	return money.Parse(s, sc)
}

func TestOrderAmountsAtTheCatalogueScale(t *testing.T) {
	t.Parallel()
	order := func(body string) (*qrpay.Order, error) {
		f := &fakeCatalogue{fakeCaller: fakeCaller{body: body}, scales: map[string]int{"USDT": 6, "BTC": 8}}
		return qrpay.New(f).Order(context.Background(), "m", "1")
	}
	o, err := order(`{"id":"qrp_1","status":"processing","asset":"BTC","customer_total":"0.0001","fee":"0"}`)
	if err != nil {
		t.Fatal(err)
	}
	if o.LedgerScale != 8 || !o.CustomerTotal.Equal(money.MustParse("0.0001", 8)) || o.Fee.Scale() != 8 {
		t.Errorf("order %+v", o)
	}
	// An amount finer than the catalogue's scale is an error, never rounded.
	if _, err := order(`{"id":"qrp_1","status":"processing","asset":"USDT","customer_total":"1.0000001","fee":"0"}`); !errors.Is(err, money.ErrPrecision) {
		t.Errorf("finer than the scale: %v", err)
	}
	// An asset the catalogue does not know keeps the printed scale.
	o, err = order(`{"id":"qrp_1","status":"processing","asset":"XYZ","customer_total":"1.50","fee":"0.01"}`)
	if err != nil || o.LedgerScale != -1 || o.CustomerTotal.Scale() != 2 {
		t.Errorf("unknown asset: %+v %v", o, err)
	}
}
