package merchant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

func i64(v int64) *int64 { return &v }

// view is what the line shows of the merchant through its accessors.
type view struct {
	ID, Model, Status, Env   string
	MerchantHosted, Platform bool
	Active                   bool
	Fee                      int64
	Allow                    []string
	AllowsUSDT, AllowsBTC    bool
}

func viewOf(l *Line) view {
	return view{
		ID: l.ID(), Model: l.Model(), Status: l.Status(), Env: l.Env(),
		MerchantHosted: l.MerchantHosted(), Platform: l.PlatformHosted(), Active: l.Active(),
		Fee: l.FeeRateBps(), Allow: l.AllowlistCodes(),
		AllowsUSDT: l.Allows("USDT"), AllowsBTC: l.Allows("BTC"),
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
			l := New("mch_1", PlatformHosted, StatusActive, Sandbox)
			err := tc.change.Validate()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Validate = %v, want %q", err, tc.wantErr)
				}
				if diff := cmp.Diff(start, viewOf(l)); diff != "" {
					t.Fatalf("refused change moved the merchant (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate = %v", err)
			}
			l.Apply(tx, tc.change)
			if diff := cmp.Diff(tc.want(start), viewOf(l)); diff != "" {
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
	l := New("mch_1", MerchantHosted, StatusActive, Sandbox)
	l.Apply(tx, Change{AssetAllowlist: map[string]bool{"USDT": true}})
	got := l.AssetAllowlist()
	got["BTC"] = true
	delete(got, "USDT")
	if !l.Allows("USDT") || l.Allows("BTC") {
		t.Fatalf("changing the returned allowlist changed the merchant: %v", l.AllowlistCodes())
	}
	l.SetFeeRateBps(tx, 40)
	want := map[string]any{"id": "mch_1", "model": MerchantHosted, "status": StatusActive, "environment": Sandbox,
		"fee_rate_bps": int64(40), "asset_allowlist": []string{"USDT"}}
	if diff := cmp.Diff(want, l.Fields()); diff != "" {
		t.Errorf("Fields (-want +got):\n%s", diff)
	}
	for _, st := range []string{StatusActive, StatusSuspended, StatusFrozen, StatusClosed} {
		if !KnownStatus(st) {
			t.Errorf("KnownStatus(%q) = false", st)
		}
	}
}
