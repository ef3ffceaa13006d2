package merchant

import (
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Changing the merchant's settings (POST /_sim/merchant, Merchant.Set),
// over the declaring package's run of one op X: the Go method takes the
// declaring package's public settings, which it gives as a func value.

// SettingsIn is the body of POST /_sim/merchant, the fields of the
// declaring package's public merchant settings.
type SettingsIn struct {
	Model          string            `json:"model" dom:"merchant_model"`
	Status         string            `json:"status" dom:"merchant_status"`
	Environment    string            `json:"environment" dom:"environment"`
	FeeRateBps     *int64            `json:"fee_rate_bps" dom:"fee_rate"`
	AssetAllowlist []string          `json:"asset_allowlist" dom:"asset"`
	Prepaid        map[string]string `json:"prepaid" dom:"decimal,key=asset"`
}

// Settings are in as the line takes them.
func (in *SettingsIn) Settings() Settings {
	return Settings{Model: in.Model, Status: in.Status, Env: in.Environment, FeeRateBps: in.FeeRateBps,
		AssetAllowlist: in.AssetAllowlist, Prepaid: in.Prepaid}
}

// NewSettingsOp declares POST /_sim/merchant and Merchant.Set; at gives the
// line and the transaction of a run, settings the Go method's argument (the
// public settings), amounts refuses (naming field) a prepaid amount its
// asset cannot hold, before the transition runs.
func NewSettingsOp[X any](at func(X) (*Line, *kernel.Tx), settings func(SettingsIn) any,
	amounts func(x X, field string, amounts map[string]string) error) *control.Op[X] {
	return control.Def[X, SettingsIn]{
		Route: "POST /_sim/merchant", Name: "Merchant.Set",
		Args:  func(in *SettingsIn) []any { return []any{settings(*in)} },
		Rules: func(x X, in *SettingsIn) error { return amounts(x, "prepaid", in.Prepaid) },
		Run: func(x X, in *SettingsIn) (any, error) {
			l, tx := at(x)
			if err := l.Set(tx, in.Settings()); err != nil {
				return nil, err
			}
			return l.JSON(tx), nil
		},
	}.Op()
}
