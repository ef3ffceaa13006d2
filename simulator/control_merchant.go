package simulator

import (
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/merchant"
)

// MerchantControl changes the simulated merchant (sim.Merchant): custody
// model, status, environment, fee rate, asset allowlist, prepaid account
// and upstream subaccount. Control API: GET and POST /_sim/merchant and the
// merchant/prepaid actions.
type MerchantControl struct{ s *Simulator }

// Set changes the merchant as ms says. It changes nothing when any
// setting is invalid.
func (m *MerchantControl) Set(ms MerchantSettings) error {
	return m.s.wiring.ctl.perform(opMerchantSet, (*merchantIn)(&ms))
}

// TopUpPrepaid credits the merchant prepaid account with amount of
// asset and advances the remittances waiting for merchant funds. Control
// action merchant/prepaid/topup, body {"asset", "amount"}.
func (m *MerchantControl) TopUpPrepaid(asset, amount string) error {
	return m.s.wiring.ctl.perform(merchantLineOps.TopUpPrepaid, &merchant.PrepaidTopUpIn{Asset: asset, Amount: amount})
}

// WithdrawPrepaid takes amount of asset out of the merchant prepaid
// account ("" takes the whole available prepaid balance), for example to
// play a merchant whose prepaid cannot fund a remittance.
func (m *MerchantControl) WithdrawPrepaid(asset, amount string) error {
	return m.s.wiring.ctl.perform(merchantLineOps.WithdrawPrepaid, &merchant.PrepaidWithdrawIn{Asset: asset, Amount: amount})
}

// PrepaidBalance returns the merchant prepaid available and locked balance in
// asset.
func (m *MerchantControl) PrepaidBalance(asset string) (available, locked money.Amount) {
	b, _ := invoke[[2]money.Amount](m.s, merchantLineOps.PrepaidBalance, &merchant.AssetName{Asset: asset})
	return b[0], b[1]
}

// SetPOBOSubaccount sets whether the merchant has an active upstream
// subaccount, which the pobo line needs.
func (m *MerchantControl) SetPOBOSubaccount(active bool) error {
	return m.s.wiring.ctl.perform(merchantLineOps.SetPOBOSubaccount, &merchant.POBOIn{Active: &active})
}

// SetWriteQuota sets the merchant-level write quota: at most perMinute
// business writes per minute of simulator clock, counted over every Key and
// member, after which a write answers 429 rate_limited with retry_after and
// Retry-After; 0 (the default: the contract shows no number) removes it.
// Control API: POST /_sim/merchant/write_quota with {"per_minute": n}.
func (m *MerchantControl) SetWriteQuota(perMinute int) error {
	return m.s.wiring.ctl.perform(merchantLineOps.SetWriteQuota, &merchant.QuotaIn{PerMinute: &perMinute})
}

// merchantIn is the body of POST /_sim/merchant, the fields of
// MerchantSettings (the two convert into each other).
type merchantIn struct {
	Model          Model             `json:"model" dom:"merchant_model"`
	Status         MerchantStatus    `json:"status" dom:"merchant_status"`
	Environment    Environment       `json:"environment" dom:"environment"`
	FeeRateBps     *int64            `json:"fee_rate_bps" dom:"fee_rate"`
	AssetAllowlist []string          `json:"asset_allowlist" dom:"asset"`
	Prepaid        map[string]string `json:"prepaid" dom:"decimal,key=asset"`
}

func (in *merchantIn) rules(x *opRun) error { return checkAmounts(x, "prepaid", in.Prepaid) }

// opMerchantSet is POST /_sim/merchant and Merchant.Set: its input is the
// public MerchantSettings, converted into the line's settings.
var opMerchantSet = def[merchantIn]{
	Route: "POST /_sim/merchant", Name: "Merchant.Set",
	Args: func(in *merchantIn) []any { return []any{MerchantSettings(*in)} },
	Run: func(x *opRun, in *merchantIn) (any, error) {
		if err := x.s.st.merchant.Set(x.tx, MerchantSettings(*in).lineSettings()); err != nil {
			return nil, err
		}
		return x.s.st.merchant.JSON(x.tx), nil
	},
}.Op()

// merchantLineOps are the merchant's ops declared in the line
// (internal/merchant): an amount is checked against its asset's scale as
// every control amount is (checkAmount), the upstream subaccount is the
// remittance line's and the write quota the gateway's.
var merchantLineOps = merchant.NewControlOps(func(x *opRun) (*merchant.Line, *kernel.Tx) { return x.s.st.merchant, x.tx }, checkAmount,
	func(x *opRun, active bool) { x.s.st.remit.SetPOBOSubaccount(x.tx, active) },
	func(x *opRun, perMinute int) error { return x.s.wiring.gw.setWriteQuota(x.tx, perMinute) })

// merchantOps declares the merchant's routes and methods.
var merchantOps = []*op{
	merchantLineOps.View,
	opMerchantSet, merchantLineOps.TopUpPrepaid, merchantLineOps.WithdrawPrepaid, merchantLineOps.PrepaidBalance,
	merchantLineOps.SetPOBOSubaccount, merchantLineOps.SetWriteQuota,
}
