package qrpay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// fakeService is a scripted service on a loopback server: it issues tokens
// and answers every business call with body (status 200) or with err's
// envelope, recording each request as the wire carried it.
type fakeService struct {
	body string
	err  *mwallet.Error
	// assets, when set, answers GET /v1/assets (the asset catalogue).
	assets string

	mu   sync.Mutex
	reqs []fakeRequest
}

// fakeRequest is one business request as the fake service received it.
type fakeRequest struct {
	Method, Path, Member, IdempotencyKey string
	Body                                 string
}

func (f *fakeService) requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.reqs...)
}

// client starts the service for t and returns a qrpay client wired to it,
// without retries.
func (f *fakeService) client(t *testing.T) *qrpay.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/connect/token" {
			fmt.Fprintf(w, `{"auth_token":"tok","token_type":"Bearer","expired_at":%d}`, time.Now().Add(time.Hour).Unix())
			return
		}
		if r.URL.Path == "/v1/assets" && f.assets != "" {
			_, _ = io.WriteString(w, f.assets)
			return
		}
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs = append(f.reqs, fakeRequest{Method: r.Method, Path: r.URL.Path, Member: r.Header.Get("X-On-Behalf-Of"),
			IdempotencyKey: r.Header.Get("X-Idempotency-Key"), Body: string(b)})
		f.mu.Unlock()
		if f.err != nil {
			w.WriteHeader(f.err.HTTPStatus)
			_ = json.NewEncoder(w).Encode(map[string]any{"type": "invalid_request_error", "code": f.err.Code,
				"message": "scripted", "request_id": "req_1", "challenge_id": f.err.ChallengeID})
			return
		}
		_, _ = io.WriteString(w, f.body)
	}))
	t.Cleanup(srv.Close)
	c, err := mwallet.New(srv.URL, mwallet.Credentials{ClientID: "c", APIKey: "k", SigningKey: "s"},
		mwallet.WithDefaultMaxAttempts(1), mwallet.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return qrpay.New(c)
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
	for fs, known := range map[mwallet.FundingSource]bool{mwallet.FundingMember: true, mwallet.FundingMerchant: true, "wallet": false, "": false} {
		if fs.Known() != known {
			t.Errorf("%q.Known() = %v", fs, fs.Known())
		}
	}
}

func TestOrderID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"qrp_abc": "qrp_abc", "abc": "qrp_abc", " abc ": "qrp_abc", "": "", "8c1f0e5e-1d2b-4c6a-9a51-2b8e0c7d1f33": "qrp_8c1f0e5e-1d2b-4c6a-9a51-2b8e0c7d1f33"} {
		if got := qrpay.OrderID(in); got != want {
			t.Errorf("OrderID(%q) = %q, want %q", in, got, want)
		}
	}
	// The methods that take an order id refuse a malformed one before
	// sending anything.
	sim, c := simtest.New(t)
	before := len(sim.Requests.List())
	for _, in := range []string{"", "qrp_", " abc", "a/b", "a?b"} {
		if _, err := c.QRPay.Order(context.Background(), simulator.DefaultMemberExternalID, in); !errors.Is(err, mwallet.ErrInvalidParam) || mwallet.CodeOf(err) != mwallet.CodeNotFound {
			t.Errorf("Order(%q): %v", in, err)
		}
		if _, err := c.QRPay.WaitForOutcome(context.Background(), simulator.DefaultMemberExternalID, in); !errors.Is(err, mwallet.ErrInvalidParam) {
			t.Errorf("WaitForOutcome(%q): %v", in, err)
		}
	}
	if n := len(sim.Requests.List()) - before; n != 0 {
		t.Errorf("%d requests sent for malformed ids", n)
	}
}

func TestPayFillsIdempotencyKeyOfErrors(t *testing.T) {
	t.Parallel()
	f := &fakeService{err: &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeStepUpRequired, ChallengeID: "ch"}}
	c := f.client(t)
	_, err := c.Pay(context.Background(), "m", qrpay.PayParams{CodeValue: "x"})
	su, ok := mwallet.AsStepUp(err)
	r := f.requests()[0]
	if !ok || su.IdempotencyKey == "" || su.IdempotencyKey != r.IdempotencyKey {
		t.Fatalf("%+v %v; sent key %q", su, err, r.IdempotencyKey)
	}
	if r.Method != http.MethodPost || r.Member != "m" || r.Path != "/v1/qrpay/payments" {
		t.Errorf("request %+v", r)
	}
}

func TestRequestBodySendsExactlyWhatWasSet(t *testing.T) {
	t.Parallel()
	f := &fakeService{body: `{"chosen":{"asset":"USDT","ledger_scale":6,"customer_total":"1.000000","fee":"0.000000"}}`}
	c := f.client(t)
	ctx := context.Background()
	if _, err := c.Quote(ctx, "m", qrpay.QuoteParams{CodeValue: " raw text "}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Quote(ctx, "m", qrpay.QuoteParams{
		CodeValue: "c", FundingSource: mwallet.FundingMerchant, Currency: "THB", Amount: "10.50", PreferredAsset: "usdt",
		Payer: &qrpay.Payer{CustName: "A", LegalID: "X1"},
	}); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	got := []string{reqs[0].Body, reqs[1].Body}
	want := []string{
		`{"code_value":" raw text "}`,
		`{"amount":"10.50","code_value":"c","currency":"THB","funding_source":"merchant","payer":{"custName":"A","legalId":"X1"},"preferred_asset":"usdt"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	if reqs[0].IdempotencyKey != "" {
		t.Error("quotes sent with an idempotency key")
	}
}

func TestResponseAmountsUseTheirOwnScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	quote := func(body string) (*qrpay.Quote, error) {
		return (&fakeService{body: body}).client(t).Quote(ctx, "m", qrpay.QuoteParams{CodeValue: "c"})
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
	if !q.ExpiresAt.IsZero() || q.ExpiresAtText != "" {
		t.Error("empty expires_at parsed")
	}
	// expires_at in each encoding the upstream may send.
	for raw, want := range map[string]time.Time{
		"2026-01-02T03:04:05Z": time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"1767323045":           time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"soon":                 {},
	} {
		q, err := quote(`{"expires_at":"` + raw + `","chosen":{"asset":"USDT","ledger_scale":6,"customer_total":"1","fee":"0"}}`)
		if err != nil {
			t.Fatal(err)
		}
		if !q.ExpiresAt.Equal(want) || q.ExpiresAtText != raw {
			t.Errorf("expires_at %q: ExpiresAt %s, ExpiresAtText %q; want %s", raw, q.ExpiresAt, q.ExpiresAtText, want)
		}
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
	o, err := (&fakeService{body: `{"id":"qrp_1","status":"on_hold","asset":"USDT","customer_total":"7.308109","fee":"0.036359"}`}).client(t).Order(ctx, "m", "1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != "on_hold" || o.Status.Known() || o.LedgerScale != -1 || o.CustomerTotal.Scale() != 6 {
		t.Errorf("order %+v", o)
	}
}

func TestWaitForOutcomeStopsOnPermanentErrors(t *testing.T) {
	t.Parallel()
	f := &fakeService{err: &mwallet.Error{Code: mwallet.CodeNotFound, HTTPStatus: 404}}
	_, err := f.client(t).WaitForOutcome(context.Background(), "m", "qrp_1", qrpay.WithSleep(func(context.Context, time.Duration) error {
		t.Fatal("slept after a permanent error")
		return nil
	}))
	if mwallet.CodeOf(err) != mwallet.CodeNotFound || len(f.requests()) != 1 {
		t.Fatalf("%v after %d reads", err, len(f.requests()))
	}
	// Retryable errors keep polling, with a growing interval.
	f = &fakeService{err: &mwallet.Error{Code: mwallet.CodeUpstreamError, HTTPStatus: 502}}
	var waits []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = f.client(t).WaitForOutcome(ctx, "m", "qrp_1", qrpay.WithPollInterval(time.Second, 3*time.Second),
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

func TestOrderAmountsAtTheCatalogueScale(t *testing.T) {
	t.Parallel()
	order := func(body string) (*qrpay.Order, error) {
		f := &fakeService{body: body, assets: `{"assets":[` +
			`{"code":"USDT","name":"Tether","ledger_scale":6,"display_scale":2,"networks":[]},` +
			`{"code":"BTC","name":"Bitcoin","ledger_scale":8,"display_scale":6,"networks":[]}]}`}
		return f.client(t).Order(context.Background(), "m", "1")
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
