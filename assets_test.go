package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
)

const catalogueJSON = `{"assets":[
 {"code":"USDT","name":"Tether","ledger_scale":6,"display_scale":2,"networks":[
  {"network":"TRON","network_name":"Tron (TRC20)","deposit_enabled":true,"deposit_unavailable_reason":"","min_deposit":"1.5","confirmations_required":20,"memo_required":false,"deposit_eta_minutes":3,
   "withdraw_enabled":true,"withdraw_unavailable_reason":"","min_withdraw":"10","max_withdraw":"50000.000000","withdraw_fee_mode":"fixed","withdraw_fee_fixed":"1","withdraw_fee_bps":0,"withdraw_cooling_hours":24,"withdraw_eta_minutes":30,"withdraw_require_kyc_level":1},
  {"network":"ETH","network_name":"Ethereum (ERC20)","deposit_enabled":false,"deposit_unavailable_reason":"maintenance","min_deposit":"10","confirmations_required":12,"memo_required":false,"deposit_eta_minutes":15,
   "withdraw_enabled":false,"withdraw_unavailable_reason":"not_open"}]},
 {"code":"BTC","name":"Bitcoin","ledger_scale":8,"display_scale":6,"networks":[]}]}`

func assetsAPI(t *testing.T) (*fakeAPI, *atomic.Int64) {
	f := newFakeAPI(t)
	var loads atomic.Int64
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if r.URL.Path != "/v1/assets" {
			writeTestJSON(w, 404, errBody("not_found"))
			return
		}
		loads.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(catalogueJSON))
	}
	return f, &loads
}

func TestAssetsTyped(t *testing.T) {
	t.Parallel()
	f, _ := assetsAPI(t)
	c := f.client()
	list, err := c.Assets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ptr := func(i int) *int { return &i }
	dur := func(d time.Duration) *time.Duration { return &d }
	amt := func(s string) *money.Amount { a := money.MustParse(s, 6); return &a }
	want := []Asset{
		{Code: "USDT", Name: "Tether", LedgerScale: 6, DisplayScale: 2, Networks: []Network{
			{Network: "TRON", NetworkName: "Tron (TRC20)", DepositEnabled: true, MinDeposit: money.MustParse("1.5", 6), ConfirmationsRequired: 20, DepositETA: 3 * time.Minute,
				WithdrawEnabled: true, MinWithdraw: amt("10"), MaxWithdraw: amt("50000"), WithdrawFeeMode: FeeModeFixed, WithdrawFeeFixed: amt("1"),
				WithdrawFeeBps: ptr(0), WithdrawCooling: dur(24 * time.Hour), WithdrawETA: dur(30 * time.Minute), WithdrawRequireKYCLevel: ptr(1)},
			{Network: "ETH", NetworkName: "Ethereum (ERC20)", DepositUnavailableReason: "maintenance", MinDeposit: money.MustParse("10", 6), ConfirmationsRequired: 12, DepositETA: 15 * time.Minute,
				WithdrawUnavailableReason: "not_open"},
		}},
		{Code: "BTC", Name: "Bitcoin", LedgerScale: 8, DisplayScale: 6, Networks: []Network{}},
	}
	if diff := cmp.Diff(want, list.Assets, cmp.Comparer(money.Amount.Equal)); diff != "" {
		t.Errorf("assets (-want +got):\n%s", diff)
	}
	if list.Response == nil || list.Response.RequestID == "" {
		t.Errorf("no Response: %+v", list.Response)
	}
	usdt, _ := list.Find("USDT")
	// A Network marshals as the service sends it, durations in its units,
	// and reads back unchanged.
	raw, err := json.Marshal(usdt.Networks[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"deposit_eta_minutes":3`, `"withdraw_cooling_hours":24`, `"withdraw_eta_minutes":30`, `"network":"TRON"`} {
		if !strings.Contains(string(raw), field) {
			t.Errorf("marshalled network %s lacks %s", raw, field)
		}
	}
	var back Network
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(usdt.Networks[0], back, cmp.Comparer(money.Amount.Equal)); diff != "" {
		t.Errorf("network after a JSON round trip (-want +got):\n%s", diff)
	}
	if got := usdt.Networks[0].MinDeposit.Scale(); got != 6 {
		t.Errorf("min_deposit scale %d, want the ledger scale 6", got)
	}
	if n, ok := usdt.Network("ETH"); !ok || n.WithdrawEnabled || n.MinWithdraw != nil {
		t.Errorf("ETH network %+v", n)
	}
	if _, ok := usdt.Network("eth"); ok {
		t.Errorf("network codes are case-sensitive")
	}
}

func TestParseAmountUsesLedgerScale(t *testing.T) {
	t.Parallel()
	f, loads := assetsAPI(t)
	c := f.client()
	tests := []struct {
		asset, in string
		want      string
		wantErr   error
		code      Code
	}{
		{"USDT", "12.5", "12.500000", nil, ""},
		{"USDT", "0.000001", "0.000001", nil, ""},
		{"usdt", "1", "1.000000", nil, ""},
		{"BTC", "0.00000001", "0.00000001", nil, ""},
		{"USDT", "0.0000001", "", money.ErrPrecision, CodeInvalidRequest},
		{"USDT", "1e3", "", money.ErrSyntax, CodeInvalidRequest},
		{"DOGE", "1", "", nil, CodeAssetNotAllowed},
		{"", "1", "", nil, CodeInvalidRequest},
	}
	for _, tt := range tests {
		got, err := c.ParseAmount(context.Background(), tt.asset, tt.in)
		if tt.code != "" {
			if CodeOf(err) != tt.code || !errors.Is(err, ErrInvalidParam) {
				t.Errorf("ParseAmount(%s, %s) err = %v, want %s", tt.asset, tt.in, err, tt.code)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("ParseAmount(%s, %s) err = %v, want wrapping %v", tt.asset, tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseAmount(%s, %s) = %s, %v; want %s", tt.asset, tt.in, got, err, tt.want)
		}
	}
	// One load for all the lookups: the unknown code came after a load less
	// than a minute old.
	if n := loads.Load(); n != 1 {
		t.Errorf("catalogue loads = %d, want 1", n)
	}
	s, err := c.DisplayAmount(context.Background(), "USDT", money.MustParse("12.349999", 6))
	if err != nil || s != "12.34" {
		t.Errorf("DisplayAmount = %q, %v; want truncation to 12.34", s, err)
	}
}

func TestAssetCacheSharedLoad(t *testing.T) {
	t.Parallel()
	f, loads := assetsAPI(t)
	c := f.client()
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.ParseAmount(context.Background(), "USDT", "1.25"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("catalogue loads = %d, want 1", n)
	}
	// The cache hands out copies.
	a, _ := c.Asset(context.Background(), "USDT")
	a.Networks[0].Network = "changed"
	b, _ := c.Asset(context.Background(), "USDT")
	if b.Networks[0].Network != "TRON" {
		t.Errorf("cache modified through a returned asset")
	}
}

func TestAssetsRejectsBadCatalogue(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"assets":[{"code":"USDT","ledger_scale":6,"networks":[{"network":"TRON","min_deposit":"1.0000001"}]}]}`))
	}
	_, err := f.client().Assets(context.Background())
	if !errors.Is(err, money.ErrPrecision) {
		t.Fatalf("err = %v, want the precision error of min_deposit", err)
	}
}

// TestAssetRefusalRemembered: a catalogue load the service refuses (403,
// 401) is remembered, so reads that only consult the catalogue do not send
// it again; a failure that may pass on retry (500) is not; an explicit
// Assets call always asks.
func TestAssetRefusalRemembered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		code      string
		wantLoads int64
	}{
		{"insufficient scope", 403, "insufficient_scope", 1},
		{"invalid credentials", 401, "invalid_credentials", 1},
		{"server error", 500, "api_error", 2 * 2}, // api_error is retried once per call
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			var loads atomic.Int64
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
				loads.Add(1)
				writeTestJSON(w, tt.status, errBody(tt.code))
			}
			c := f.client()
			for i := 0; i < 2; i++ {
				_, err := c.ParseAmount(context.Background(), "USDT", "1.25")
				var e *Error
				if !errors.As(err, &e) || string(e.Code) != tt.code {
					t.Fatalf("call %d: %v, want %s", i+1, err, tt.code)
				}
			}
			if n := loads.Load(); n != tt.wantLoads {
				t.Errorf("catalogue requests = %d, want %d", n, tt.wantLoads)
			}
			before := loads.Load()
			if _, err := c.Assets(context.Background()); err == nil {
				t.Fatal("Assets succeeded against a refusing service")
			}
			if loads.Load() == before {
				t.Error("an explicit Assets call was answered from the remembered refusal")
			}
		})
	}
}
