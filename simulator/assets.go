package simulator

import "net/http"

// assetsEndpoint is GET /v1/assets: every enabled asset of the catalogue
// in st, narrowed by the merchant's allowlist when it has one
// (catalogue.listing).
func assetsEndpoint(st *simState) endpoint {
	return endpoint{Method: http.MethodGet, Pattern: "/v1/assets", Scope: "merchant:read", Handle: func(c *rc) (int, any, error) {
		b, err := st.cat.listing(c.Tx, st.merchant.AssetAllowlist(c.Tx))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, b, nil
	}}
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
