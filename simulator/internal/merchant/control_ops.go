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
// ("asset", "positive_decimal", ...) are the simulator's registry's;
// changing the settings (the public MerchantSettings), the upstream
// subaccount (the remittance line's) and the write quota (the gateway's)
// are declared beside it.

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
)

// ControlOps are the merchant ops declared here; View is GET
// /_sim/merchant, which no Go method mirrors.
type ControlOps[X any] struct {
	View, TopUpPrepaid, WithdrawPrepaid, PrepaidBalance *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run, amount refuses (naming field) an amount of asset the asset cannot
// hold, before the transition runs.
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx), amount func(x X, field, asset, amount string) error) *ControlOps[X] {
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
	}
}

// prepaidAnswer is the prepaid account in asset.
func (l *Line) prepaidAnswer(tx *kernel.Tx, asset string) map[string]any {
	asset = strings.ToUpper(strings.TrimSpace(asset))
	avail, locked := l.Prepaid(tx, asset)
	return map[string]any{"asset": asset, "available": avail.String(), "locked": locked.String()}
}
