package simulator

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
)

func (s *Simulator) registerAssets() {
	s.register(endpoint{method: http.MethodGet, pattern: "/v1/assets", scope: "merchant:read", handle: s.listAssets})
}

// assetJSON and networkJSON are the wire shapes of GET /v1/assets items.
type assetJSON struct {
	Code         string        `json:"code"`
	Name         string        `json:"name"`
	LedgerScale  int           `json:"ledger_scale"`
	DisplayScale int           `json:"display_scale"`
	Networks     []networkJSON `json:"networks"`
}

type networkJSON struct {
	Network                   string `json:"network"`
	NetworkName               string `json:"network_name"`
	DepositEnabled            bool   `json:"deposit_enabled"`
	DepositUnavailableReason  string `json:"deposit_unavailable_reason"`
	MinDeposit                string `json:"min_deposit"`
	ConfirmationsRequired     int    `json:"confirmations_required"`
	MemoRequired              bool   `json:"memo_required"`
	DepositETAMinutes         int    `json:"deposit_eta_minutes"`
	WithdrawEnabled           bool   `json:"withdraw_enabled"`
	WithdrawUnavailableReason string `json:"withdraw_unavailable_reason"`
	// Present only when withdrawal is enabled.
	MinWithdraw             string `json:"min_withdraw,omitempty"`
	MaxWithdraw             string `json:"max_withdraw,omitempty"`
	WithdrawFeeMode         string `json:"withdraw_fee_mode,omitempty"`
	WithdrawFeeFixed        string `json:"withdraw_fee_fixed,omitempty"`
	WithdrawFeeBps          *int   `json:"withdraw_fee_bps,omitempty"`
	WithdrawCoolingHours    *int   `json:"withdraw_cooling_hours,omitempty"`
	WithdrawETAMinutes      *int   `json:"withdraw_eta_minutes,omitempty"`
	WithdrawRequireKYCLevel *int   `json:"withdraw_require_kyc_level,omitempty"`
}

// assetsCache holds the encoded catalogue for one allowlist.
type assetsCache struct {
	key  string
	body json.RawMessage
}

// listAssets answers GET /v1/assets: every enabled asset, narrowed by the
// merchant's allowlist when it has one. The catalogue is fixed after listing,
// so the encoded answer is kept until the allowlist changes.
func (s *Simulator) listAssets(*rc) (int, any, error) {
	key := allowlistKey(s.merchant.AssetAllowlist)
	if s.assetsCache == nil || s.assetsCache.key != key {
		b, err := json.Marshal(map[string]any{"assets": s.catalogue()})
		if err != nil {
			return 0, nil, err
		}
		s.assetsCache = &assetsCache{key: key, body: b}
	}
	return http.StatusOK, s.assetsCache.body, nil
}

func allowlistKey(allow map[string]bool) string {
	codes := make([]string, 0, len(allow))
	for c, ok := range allow {
		if ok {
			codes = append(codes, c)
		}
	}
	sort.Strings(codes)
	return strings.Join(codes, ",")
}

func (s *Simulator) catalogue() []assetJSON {
	out := make([]assetJSON, 0, len(s.assets))
	for _, a := range s.assets {
		if !a.Enabled {
			continue
		}
		if len(s.merchant.AssetAllowlist) > 0 && !s.merchant.AssetAllowlist[a.Code] {
			continue
		}
		nets := make([]networkJSON, 0, len(a.Networks))
		for _, n := range a.Networks {
			item := networkJSON{
				Network: n.Network, NetworkName: n.NetworkName,
				DepositEnabled: n.DepositEnabled, DepositUnavailableReason: n.DepositUnavailableReason,
				MinDeposit: n.MinDeposit, ConfirmationsRequired: n.ConfirmationsRequired,
				MemoRequired: n.MemoRequired, DepositETAMinutes: n.DepositETAMinutes,
				WithdrawEnabled: n.WithdrawEnabled, WithdrawUnavailableReason: n.WithdrawUnavailableReason,
			}
			if n.WithdrawEnabled {
				n := n
				item.MinWithdraw = n.MinWithdraw
				item.MaxWithdraw = n.MaxWithdraw
				item.WithdrawFeeMode = "fixed"
				item.WithdrawFeeFixed = n.WithdrawFeeFixed
				item.WithdrawFeeBps = &n.WithdrawFeeBps
				item.WithdrawCoolingHours = &n.WithdrawCoolingHours
				item.WithdrawETAMinutes = &n.WithdrawETAMinutes
				item.WithdrawRequireKYCLevel = &n.WithdrawRequireKYCLevel
			}
			nets = append(nets, item)
		}
		out = append(out, assetJSON{Code: a.Code, Name: a.Name, LedgerScale: a.LedgerScale, DisplayScale: a.DisplayScale, Networks: nets})
	}
	return out
}
