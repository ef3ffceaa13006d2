package merchant

import (
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The merchant's control operations that need only the merchant line and
// the transaction, in the control engine's form (internal/control), over
// the declaring package's run of one op X: the merchant as the operator
// API renders it and its prepaid account. The domains the inputs name
// ("asset", "positive_decimal", ...) are the simulator's registry's. The
// upstream subaccount (the remittance line's) and the write quota (the
// gateway's) are set through the declaring package's funcs; changing the
// settings (the public MerchantSettings) is declared beside it.

// The inputs of the merchant ops declared here.
type (
	// PrepaidTopUpIn is the body of the action merchant/prepaid/topup.
	PrepaidTopUpIn struct {
		Asset  string `json:"asset" dom:"asset,req"`
		Amount string `json:"amount" dom:"positive_decimal,req"`
	}
	// PrepaidWithdrawIn is the body of POST
	// /_sim/merchant/prepaid/withdraw (no amount: the whole available
	// balance).
	PrepaidWithdrawIn struct {
		Asset  string `json:"asset" dom:"asset,req"`
		Amount string `json:"amount" dom:"positive_decimal"`
	}
	// AssetName is the input of a read of one asset (any case; an asset
	// outside the catalogue reads as zero).
	AssetName struct {
		Asset string `json:"asset" dom:"name"`
	}
	// POBOIn sets whether the merchant has an active upstream subaccount.
	POBOIn struct {
		Active *bool `json:"active" dom:"boolean,req"`
	}
	// QuotaIn sets the merchant-level write quota (0 removes it).
	QuotaIn struct {
		PerMinute *int `json:"per_minute" dom:"quota,req"`
	}
)

// ControlOps are the merchant ops declared here; View is GET
// /_sim/merchant, which no Go method mirrors.
type ControlOps[X any] struct {
	View, TopUpPrepaid, WithdrawPrepaid, PrepaidBalance *control.Op[X]
	SetPOBOSubaccount, SetWriteQuota                    *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run, amount refuses (naming field) an amount of asset the asset cannot
// hold, before the transition runs; pobo sets whether the upstream
// subaccount is active (the remittance line's) and quota the write quota
// (the gateway's, which may refuse it).
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx), amount func(x X, field, asset, amount string) error,
	pobo func(x X, active bool), quota func(x X, perMinute int) error) *ControlOps[X] {
	return &ControlOps[X]{
		View: control.Def[X, control.NoInput]{Route: "GET /_sim/merchant", Run: func(x X, _ *control.NoInput) (any, error) {
			l, tx := at(x)
			return l.JSON(tx), nil
		}}.Op(),
		TopUpPrepaid: control.Def[X, PrepaidTopUpIn]{
			Route: "POST /_sim/merchant/prepaid/topup", Action: "merchant/prepaid/topup", Name: "Merchant.TopUpPrepaid",
			Args:  func(in *PrepaidTopUpIn) []any { return []any{in.Asset, in.Amount} },
			Rules: func(x X, in *PrepaidTopUpIn) error { return amount(x, "amount", in.Asset, in.Amount) },
			Run: func(x X, in *PrepaidTopUpIn) (any, error) {
				l, tx := at(x)
				if err := l.TopUpPrepaid(tx, in.Asset, in.Amount); err != nil {
					return nil, err
				}
				asset := strings.ToUpper(in.Asset)
				return map[string]any{"asset": asset, "prepaid": tx.Balance(kernel.AccountMerchantPrepaid, asset).String()}, nil
			},
		}.Op(),
		WithdrawPrepaid: control.Def[X, PrepaidWithdrawIn]{
			Route: "POST /_sim/merchant/prepaid/withdraw", Name: "Merchant.WithdrawPrepaid",
			Args: func(in *PrepaidWithdrawIn) []any { return []any{in.Asset, in.Amount} },
			Rules: func(x X, in *PrepaidWithdrawIn) error {
				if in.Amount == "" {
					return nil
				}
				return amount(x, "amount", in.Asset, in.Amount)
			},
			Run: func(x X, in *PrepaidWithdrawIn) (any, error) {
				l, tx := at(x)
				if err := l.WithdrawPrepaid(tx, in.Asset, in.Amount); err != nil {
					return nil, err
				}
				return l.prepaidAnswer(tx, in.Asset), nil
			},
		}.Op(),
		PrepaidBalance: control.Def[X, AssetName]{Name: "Merchant.PrepaidBalance", NoCall: true, Run: func(x X, in *AssetName) (any, error) {
			l, tx := at(x)
			a, locked := l.Prepaid(tx, in.Asset)
			return [2]money.Amount{a, locked}, nil
		}}.Op(),
		SetPOBOSubaccount: control.Def[X, POBOIn]{
			Route: "POST /_sim/merchant/pobo_subaccount", Name: "Merchant.SetPOBOSubaccount",
			Args: func(in *POBOIn) []any { return []any{*in.Active} },
			Run: func(x X, in *POBOIn) (any, error) {
				pobo(x, *in.Active)
				return map[string]any{"active": *in.Active}, nil
			},
		}.Op(),
		SetWriteQuota: control.Def[X, QuotaIn]{
			Route: "POST /_sim/merchant/write_quota", Name: "Merchant.SetWriteQuota",
			Args: func(in *QuotaIn) []any { return []any{*in.PerMinute} },
			Run: func(x X, in *QuotaIn) (any, error) {
				if err := quota(x, *in.PerMinute); err != nil {
					return nil, err
				}
				return map[string]any{"per_minute": *in.PerMinute}, nil
			},
		}.Op(),
	}
}

// prepaidAnswer is the prepaid account in asset.
func (l *Line) prepaidAnswer(tx *kernel.Tx, asset string) map[string]any {
	asset = strings.ToUpper(strings.TrimSpace(asset))
	avail, locked := l.Prepaid(tx, asset)
	return map[string]any{"asset": asset, "available": avail.String(), "locked": locked.String()}
}
