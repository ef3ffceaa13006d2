package simulator_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withdrawOnlyKeys are the network fields the contract sends only when
// withdrawal is enabled.
var withdrawOnlyKeys = []string{
	"min_withdraw", "max_withdraw", "withdraw_fee_mode", "withdraw_fee_fixed",
	"withdraw_fee_bps", "withdraw_cooling_hours", "withdraw_eta_minutes", "withdraw_require_kyc_level",
}

// alwaysKeys are the network fields sent whatever the network's state.
var alwaysKeys = []string{
	"network", "network_name", "deposit_enabled", "deposit_unavailable_reason", "min_deposit",
	"confirmations_required", "memo_required", "deposit_eta_minutes", "withdraw_enabled", "withdraw_unavailable_reason",
}

// TestAssetsCatalogueFields checks GET /v1/assets over raw HTTP: the
// top-level key assets with no envelope, the asset fields, unavailable
// networks still listed, and the withdraw fields present exactly when
// withdrawal is enabled.
func TestAssetsCatalogueFields(t *testing.T) {
	t.Parallel()
	_, c := newRaw(t)
	r := c.get(c.token(), "/v1/assets", "")
	wantStatus(t, r, http.StatusOK)
	var keys []string
	for k := range r.body {
		keys = append(keys, k)
	}
	if diff := cmp.Diff([]string{"assets"}, keys); diff != "" {
		t.Fatalf("top-level keys (-want +got):\n%s", diff)
	}
	assets, _ := r.body["assets"].([]any)
	scales := map[string]float64{}
	var enabled, disabled int
	for _, a := range assets {
		asset := a.(map[string]any)
		code, _ := asset["code"].(string)
		for _, k := range []string{"code", "name", "ledger_scale", "display_scale", "networks"} {
			if _, ok := asset[k]; !ok {
				t.Errorf("%s: no %s", code, k)
			}
		}
		scales[code], _ = asset["ledger_scale"].(float64)
		nets, _ := asset["networks"].([]any)
		for _, n := range nets {
			net := n.(map[string]any)
			name := code + "/" + net["network"].(string)
			for _, k := range alwaysKeys {
				if _, ok := net[k]; !ok {
					t.Errorf("%s: no %s", name, k)
				}
			}
			on, _ := net["withdraw_enabled"].(bool)
			if on {
				enabled++
				if reason := net["withdraw_unavailable_reason"]; reason != "" {
					t.Errorf("%s: withdrawal enabled with reason %q", name, reason)
				}
			} else {
				disabled++
				if reason, _ := net["withdraw_unavailable_reason"].(string); reason == "" {
					t.Errorf("%s: withdrawal disabled without a reason", name)
				}
			}
			for _, k := range withdrawOnlyKeys {
				if _, ok := net[k]; ok != on {
					t.Errorf("%s: withdraw_enabled %v but %s present = %v", name, on, k, ok)
				}
			}
		}
	}
	if diff := cmp.Diff(map[string]float64{"USDT": 6, "USDC": 6, "BTC": 8, "ETH": 18}, scales); diff != "" {
		t.Errorf("ledger scales (-want +got):\n%s", diff)
	}
	if enabled == 0 || disabled == 0 {
		t.Errorf("fixture networks: %d with withdrawal enabled, %d without; want both kinds listed", enabled, disabled)
	}
}
