package qrpay_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestOptionsAreTheAssetsEnabledHere checks quote rule 4: options lists every
// asset the upstream quoted that is enabled for the merchant, and that set is
// exactly the valid set for preferred_asset.
func TestOptionsAreTheAssetsEnabledHere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		allowlist []string
		want      []string
	}{
		{name: "no allowlist", want: []string{"USDT", "USDC", "BTC", "ETH"}},
		{name: "stablecoins only", allowlist: []string{"USDC", "USDT"}, want: []string{"USDT", "USDC"}},
		{name: "one asset", allowlist: []string{"USDC"}, want: []string{"USDC"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			ctx := context.Background()
			if tt.allowlist != nil {
				if err := sim.Merchant.Set(simulator.MerchantSettings{AssetAllowlist: tt.allowlist}); err != nil {
					t.Fatal(err)
				}
			}
			code := thaiMerchantCode(t, "250.00")
			q, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range q.Options {
				got = append(got, o.Asset)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
			if q.Chosen.Asset != tt.want[0] {
				t.Errorf("chosen %s, want %s (first sufficient by payment priority)", q.Chosen.Asset, tt.want[0])
			}
			enabled := map[string]bool{}
			for _, a := range tt.want {
				enabled[a] = true
			}
			for _, a := range []string{"USDT", "USDC", "BTC", "ETH"} {
				q, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: code, PreferredAsset: a})
				if enabled[a] {
					if err != nil || q.Chosen.Asset != a {
						t.Errorf("preferred %s: chosen %v, %v", a, q, err)
					}
					continue
				}
				e := simtest.WantCode(t, err, mwallet.CodeInvalidFields)
				if len(e.Fields) == 0 || e.Fields[0].Key != "preferred_asset" {
					t.Errorf("preferred %s: fields %+v, want preferred_asset", a, e.Fields)
				}
			}
		})
	}
}
