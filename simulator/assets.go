package simulator

import "net/http"

func (s *Simulator) registerAssets() {
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/assets", scope: "merchant:read", handle: s.listAssets})
}

func (s *Simulator) listAssets(c *rc) (int, any, error) {
	out := make([]map[string]any, 0, len(s.assets))
	for _, a := range s.assets {
		if !a.Enabled {
			continue
		}
		if len(s.merchant.AssetAllowlist) > 0 && !s.merchant.AssetAllowlist[a.Code] {
			continue
		}
		nets := make([]map[string]any, 0, len(a.Networks))
		for _, n := range a.Networks {
			item := map[string]any{
				"network": n.Network, "network_name": n.NetworkName,
				"deposit_enabled": n.DepositEnabled, "deposit_unavailable_reason": n.DepositUnavailableReason,
				"min_deposit": n.MinDeposit, "confirmations_required": n.ConfirmationsRequired,
				"memo_required": n.MemoRequired, "deposit_eta_minutes": n.DepositETAMinutes,
				"withdraw_enabled": n.WithdrawEnabled, "withdraw_unavailable_reason": n.WithdrawUnavailableReason,
			}
			if n.WithdrawEnabled {
				item["min_withdraw"] = n.MinWithdraw
				item["max_withdraw"] = n.MaxWithdraw
				item["withdraw_fee_mode"] = "fixed"
				item["withdraw_fee_fixed"] = n.WithdrawFeeFixed
				item["withdraw_fee_bps"] = n.WithdrawFeeBps
				item["withdraw_cooling_hours"] = n.WithdrawCoolingHours
				item["withdraw_eta_minutes"] = n.WithdrawETAMinutes
				item["withdraw_require_kyc_level"] = n.WithdrawRequireKYCLevel
			}
			nets = append(nets, item)
		}
		out = append(out, map[string]any{
			"code": a.Code, "name": a.Name, "ledger_scale": a.LedgerScale, "display_scale": a.DisplayScale, "networks": nets,
		})
	}
	return http.StatusOK, map[string]any{"assets": out}, nil
}
