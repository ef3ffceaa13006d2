package merchant

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

func i64(v int64) *int64 { return &v }

// fakeHost counts the advances of the remittances waiting for merchant funds.
type fakeHost struct {
	svc      *kerneltest.Services
	advances int
}

func (h *fakeHost) AdvanceQueued(*kernel.Tx) { h.advances++ }

// view is what the line shows of the merchant through its accessors.
type view struct {
	ID, Model, Status, Env   string
	MerchantHosted, Platform bool
	Active                   bool
	Fee                      int64
	Allow                    []string
	AllowsUSDT, AllowsBTC    bool
}

func viewOf(tx *kernel.Tx, l *Line) view {
	return view{
		ID: l.ID(tx), Model: l.Model(tx), Status: l.Status(tx), Env: l.Env(tx),
		MerchantHosted: l.MerchantHosted(tx), Platform: l.PlatformHosted(tx), Active: l.Active(tx),
		Fee: l.FeeRateBps(tx), Allow: l.AllowlistCodes(tx),
		AllowsUSDT: l.Allows(tx, "USDT"), AllowsBTC: l.Allows(tx, "BTC"),
	}
}

// TestLineOnItsOwn: every setting of the merchant line, valid and invalid;
// a change Validate refuses is never applied, an empty change changes
// nothing, and the accessors show each setting.
func TestLineOnItsOwn(t *testing.T) {
	t.Parallel()
	start := view{ID: "mch_1", Model: PlatformHosted, Status: StatusActive, Env: Sandbox,
		Platform: true, Active: true, Allow: []string{}, AllowsUSDT: true, AllowsBTC: true}
	tests := []struct {
		name    string
		change  Change
		wantErr string
		want    func(v view) view
	}{
		{name: "empty change", want: func(v view) view { return v }},
		{name: "merchant hosted", change: Change{Model: MerchantHosted},
			want: func(v view) view { v.Model, v.MerchantHosted, v.Platform = MerchantHosted, true, false; return v }},
		{name: "unknown model", change: Change{Model: "self_hosted"},
			wantErr: `model "self_hosted": want platform_hosted or merchant_hosted`},
		{name: "suspended", change: Change{Status: StatusSuspended},
			want: func(v view) view { v.Status, v.Active = StatusSuspended, false; return v }},
		{name: "frozen", change: Change{Status: StatusFrozen},
			want: func(v view) view { v.Status, v.Active = StatusFrozen, false; return v }},
		{name: "closed", change: Change{Status: StatusClosed},
			want: func(v view) view { v.Status, v.Active = StatusClosed, false; return v }},
		{name: "unknown status", change: Change{Status: "paused"},
			wantErr: `status "paused": want active, suspended, frozen or closed`},
		{name: "production", change: Change{Env: Production},
			want: func(v view) view { v.Env = Production; return v }},
		{name: "unknown environment", change: Change{Env: "staging"},
			wantErr: `environment "staging": want sandbox or production`},
		{name: "fee 25", change: Change{FeeRateBps: i64(25)},
			want: func(v view) view { v.Fee = 25; return v }},
		{name: "fee max", change: Change{FeeRateBps: i64(MaxFeeRateBps)},
			want: func(v view) view { v.Fee = MaxFeeRateBps; return v }},
		{name: "fee negative", change: Change{FeeRateBps: i64(-1)},
			wantErr: "fee_rate_bps must be between 0 and 10000"},
		{name: "fee above max", change: Change{FeeRateBps: i64(MaxFeeRateBps + 1)},
			wantErr: "fee_rate_bps must be between 0 and 10000"},
		{name: "allowlist", change: Change{AssetAllowlist: map[string]bool{"USDT": true, "ETH": true}},
			want: func(v view) view { v.Allow, v.AllowsBTC = []string{"ETH", "USDT"}, false; return v }},
		{name: "fee and allowlist with a bad status", change: Change{Status: "x", FeeRateBps: i64(5), AssetAllowlist: map[string]bool{"BTC": true}},
			wantErr: `status "x": want active, suspended, frozen or closed`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc := kerneltest.New()
			tx := svc.Begin()
			defer tx.End()
			l := New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", PlatformHosted, StatusActive, Sandbox)
			err := tc.change.Validate()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Validate = %v, want %q", err, tc.wantErr)
				}
				if diff := cmp.Diff(start, viewOf(tx, l)); diff != "" {
					t.Fatalf("refused change moved the merchant (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate = %v", err)
			}
			l.Apply(tx, tc.change)
			if diff := cmp.Diff(tc.want(start), viewOf(tx, l)); diff != "" {
				t.Errorf("after Apply (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAccessorsDoNotShareState: the allowlist a caller gets is a copy, and
// the fee setter and the rendered fields show the state.
func TestAccessorsDoNotShareState(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	l := New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", MerchantHosted, StatusActive, Sandbox)
	l.Apply(tx, Change{AssetAllowlist: map[string]bool{"USDT": true}})
	got := l.AssetAllowlist(tx)
	got["BTC"] = true
	delete(got, "USDT")
	if !l.Allows(tx, "USDT") || l.Allows(tx, "BTC") {
		t.Fatalf("changing the returned allowlist changed the merchant: %v", l.AllowlistCodes(tx))
	}
	l.SetFeeRateBps(tx, 40)
	want := map[string]any{"id": "mch_1", "model": MerchantHosted, "status": StatusActive, "environment": Sandbox,
		"fee_rate_bps": int64(40), "asset_allowlist": []string{"USDT"}}
	if diff := cmp.Diff(want, l.Fields(tx)); diff != "" {
		t.Errorf("Fields (-want +got):\n%s", diff)
	}
	for _, st := range []string{StatusActive, StatusSuspended, StatusFrozen, StatusClosed} {
		if !KnownStatus(st) {
			t.Errorf("KnownStatus(%q) = false", st)
		}
	}
}

// TestPrepaid: the prepaid top-up and withdrawal, in order against one
// account; a refused one moves nothing and advances nothing, a top-up
// advances the waiting remittances once.
func TestPrepaid(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	h := &fakeHost{svc: svc}
	l := New(svc.Kernel(), h, "mch_1", PlatformHosted, StatusActive, Sandbox)
	steps := []struct {
		name     string
		withdraw bool
		asset    string
		amount   string
		wantCode string // the api.Error code; "" for success
		wantErr  error  // a ledger error instead
		balance  string // prepaid USDT after the step
		advances int
	}{
		{name: "top up", asset: " usdt ", amount: "100", balance: "100.000000", advances: 1},
		{name: "top up zero", asset: "USDT", amount: "0", wantCode: "invalid_request", balance: "100.000000", advances: 1},
		{name: "top up negative", asset: "USDT", amount: "-5", wantCode: "invalid_request", balance: "100.000000", advances: 1},
		{name: "top up not an amount", asset: "USDT", amount: "ten", wantCode: "invalid_request", balance: "100.000000", advances: 1},
		{name: "top up unknown asset", asset: "XYZ", amount: "1", wantCode: "invalid_request", balance: "100.000000", advances: 1},
		{name: "top up too precise", asset: "USDT", amount: "1.0000001", wantCode: "invalid_request", balance: "100.000000", advances: 1},
		{name: "withdraw part", withdraw: true, asset: "usdt", amount: "30.5", balance: "69.500000", advances: 1},
		{name: "withdraw unknown asset", withdraw: true, asset: "XYZ", amount: "1", wantCode: "invalid_request", balance: "69.500000", advances: 1},
		{name: "withdraw zero", withdraw: true, asset: "USDT", amount: "0", wantCode: "invalid_request", balance: "69.500000", advances: 1},
		{name: "withdraw more than there is", withdraw: true, asset: "USDT", amount: "70", wantErr: kerneltest.ErrInsufficient, balance: "69.500000", advances: 1},
		{name: "withdraw all", withdraw: true, asset: "USDT", balance: "0.000000", advances: 1},
		{name: "top up again", asset: "USDT", amount: "2", balance: "2.000000", advances: 2},
	}
	for _, st := range steps {
		var err error
		if st.withdraw {
			err = l.WithdrawPrepaid(tx, st.asset, st.amount)
		} else {
			err = l.TopUpPrepaid(tx, st.asset, st.amount)
		}
		var ae *api.Error
		switch {
		case st.wantCode != "":
			if !errors.As(err, &ae) || ae.Code != st.wantCode {
				t.Errorf("%s: err = %v, want %s", st.name, err, st.wantCode)
			}
		case st.wantErr != nil:
			if !errors.Is(err, st.wantErr) {
				t.Errorf("%s: err = %v, want %v", st.name, err, st.wantErr)
			}
		case err != nil:
			t.Errorf("%s: err = %v", st.name, err)
		}
		got := []any{svc.Read(kernel.AccountMerchantPrepaid, "USDT").String(), h.advances}
		if diff := cmp.Diff([]any{st.balance, st.advances}, got); diff != "" {
			t.Errorf("%s: balance, advances (-want +got):\n%s", st.name, diff)
		}
	}
}

// TestSet: the operator's change of the merchant, every field and every
// refusal; a refused change moves no setting, no balance, no credentials
// and advances nothing.
func TestSet(t *testing.T) {
	t.Parallel()
	type after struct {
		View     view
		Prepaid  string
		World    string
		Advances int
		Memos    []string
	}
	start := after{
		View: view{ID: "mch_1", Model: PlatformHosted, Status: StatusSuspended, Env: Sandbox,
			Platform: true, Allow: []string{}, AllowsUSDT: true, AllowsBTC: true},
		Prepaid: "10.000000", World: "0.000000",
	}
	tests := []struct {
		name    string
		set     Settings
		wantErr string
		want    func(a after) after
	}{
		{name: "nothing", want: func(a after) after { return a }},
		{name: "model and environment", set: Settings{Model: MerchantHosted, Env: Production},
			want: func(a after) after {
				a.View.Model, a.View.MerchantHosted, a.View.Platform, a.View.Env = MerchantHosted, true, false, Production
				return a
			}},
		{name: "active advances the waiting remittances", set: Settings{Status: StatusActive},
			want: func(a after) after { a.View.Status, a.View.Active, a.Advances = StatusActive, true, 1; return a }},
		{name: "frozen advances nothing", set: Settings{Status: StatusFrozen},
			want: func(a after) after { a.View.Status = StatusFrozen; return a }},
		{name: "fee", set: Settings{FeeRateBps: i64(30)},
			want: func(a after) after { a.View.Fee = 30; return a }},
		{name: "allowlist is upper-cased and trimmed", set: Settings{AssetAllowlist: []string{" usdt "}},
			want: func(a after) after { a.View.Allow, a.View.AllowsBTC = []string{"USDT"}, false; return a }},
		{name: "prepaid up", set: Settings{Prepaid: map[string]string{"usdt": "25"}},
			want: func(a after) after {
				a.Prepaid, a.World, a.Advances = "25.000000", "-15.000000", 1
				a.Memos = []string{"operator: set merchant prepaid"}
				return a
			}},
		{name: "prepaid down to zero", set: Settings{Prepaid: map[string]string{"USDT": "0"}},
			want: func(a after) after {
				a.Prepaid, a.World, a.Advances = "0.000000", "10.000000", 1
				a.Memos = []string{"operator: set merchant prepaid"}
				return a
			}},
		{name: "prepaid unchanged posts nothing but advances", set: Settings{Prepaid: map[string]string{"USDT": "10"}},
			want: func(a after) after { a.Advances = 1; return a }},
		{name: "unknown allowlist asset", set: Settings{FeeRateBps: i64(5), AssetAllowlist: []string{"USDT", "DOGE"}},
			wantErr: `invalid_request: asset_allowlist: unknown asset "DOGE"`},
		{name: "negative prepaid", set: Settings{Model: MerchantHosted, Prepaid: map[string]string{"USDT": "-1"}},
			wantErr: "invalid_request: prepaid USDT: negative"},
		{name: "prepaid of an unknown asset", set: Settings{Status: StatusActive, Prepaid: map[string]string{"XYZ": "1"}},
			wantErr: "invalid_request: prepaid XYZ: kerneltest: unknown asset XYZ"},
		{name: "bad model", set: Settings{Model: "x", Prepaid: map[string]string{"USDT": "5"}},
			wantErr: `invalid_request: model "x": want platform_hosted or merchant_hosted`},
		{name: "bad environment", set: Settings{Env: "dev"},
			wantErr: `invalid_request: environment "dev": want sandbox or production`},
		{name: "bad fee", set: Settings{FeeRateBps: i64(10001)},
			wantErr: "invalid_request: fee_rate_bps must be between 0 and 10000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc := kerneltest.New()
			svc.Scales["BTC"] = 8
			tx := svc.Begin()
			defer tx.End()
			ten, err := tx.Amount("USDT", "10")
			if err != nil {
				t.Fatal(err)
			}
			svc.Set(kernel.AccountMerchantPrepaid, "USDT", ten)
			svc.Set(kernel.AccountWorld, "USDT", money.Zero(6))
			h := &fakeHost{svc: svc}
			l := New(svc.Kernel(), h, "mch_1", PlatformHosted, StatusSuspended, Sandbox)
			err = l.Set(tx, tc.set)
			got := after{
				View:     viewOf(tx, l),
				Prepaid:  svc.Read(kernel.AccountMerchantPrepaid, "USDT").String(),
				World:    svc.Read(kernel.AccountWorld, "USDT").String(),
				Advances: h.advances, Memos: svc.Memos,
			}
			want := start
			if tc.wantErr != "" {
				var ae *api.Error
				if !errors.As(err, &ae) || err.Error() != tc.wantErr {
					t.Fatalf("Set = %v, want %q", err, tc.wantErr)
				}
			} else {
				if err != nil {
					t.Fatalf("Set = %v", err)
				}
				want = tc.want(start)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after Set (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSON: the operator API's merchant carries the settings and, per
// catalogue asset, the prepaid balances.
func TestJSON(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	l := New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", PlatformHosted, StatusActive, Production)
	if err := l.TopUpPrepaid(tx, "USDT", "7.5"); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "mch_1", "model": PlatformHosted, "status": StatusActive, "environment": Production,
		"fee_rate_bps": int64(0), "asset_allowlist": []string{},
		"prepaid": map[string]any{"USDT": map[string]string{"available": "7.500000", "locked": "0.000000"}}}
	if diff := cmp.Diff(want, l.JSON(tx)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	available, locked := l.Prepaid(tx, "usdt")
	if got := []string{available.String(), locked.String()}; !cmp.Equal(got, []string{"7.500000", "0.000000"}) {
		t.Errorf("Prepaid(usdt) = %v", got)
	}
}
