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
	return m.s.wiring.ctl.perform(opMerchantSet, ms.settingsIn())
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

// opMerchantSet is POST /_sim/merchant and Merchant.Set, declared in the
// merchant line: its input is the public MerchantSettings, and a prepaid
// amount is checked as every control amount is (checkAmounts).
var opMerchantSet = merchant.NewSettingsOp(merchantAt, func(in merchant.SettingsIn) any { return merchantSettingsOf(in) }, checkAmounts)

// merchantSettingsOf is the public settings of a settings input, and
// settingsIn the input of public settings (the fields are the same).
func merchantSettingsOf(in merchant.SettingsIn) MerchantSettings {
	return MerchantSettings{Model: Model(in.Model), Status: MerchantStatus(in.Status), Environment: Environment(in.Environment),
		FeeRateBps: in.FeeRateBps, AssetAllowlist: in.AssetAllowlist, Prepaid: in.Prepaid}
}

func (ms MerchantSettings) settingsIn() *merchant.SettingsIn {
	return &merchant.SettingsIn{Model: string(ms.Model), Status: string(ms.Status), Environment: string(ms.Environment),
		FeeRateBps: ms.FeeRateBps, AssetAllowlist: ms.AssetAllowlist, Prepaid: ms.Prepaid}
}

// merchantAt is the merchant line and the transaction of a run.
func merchantAt(x *opRun) (*merchant.Line, *kernel.Tx) { return x.Sim.st.merchant, x.Tx }

// merchantLineOps are the merchant's ops declared in the line
// (internal/merchant): an amount is checked against its asset's scale as
// every control amount is (checkAmount), the upstream subaccount is the
// remittance line's and the write quota the gateway's (its domain,
// 0 to 1,000,000 per minute, is checked before the run).
var merchantLineOps = merchant.NewControlOps(merchantAt, checkAmount,
	func(x *opRun, active bool) { x.Sim.st.remit.SetPOBOSubaccount(x.Tx, active) },
	func(x *opRun, perMinute int) error { x.Sim.st.gw.Quota.Set(x.Tx, perMinute); return nil })

// merchantOps declares the merchant's routes and methods.
var merchantOps = []*op{
	merchantLineOps.View,
	opMerchantSet, merchantLineOps.TopUpPrepaid, merchantLineOps.WithdrawPrepaid, merchantLineOps.PrepaidBalance,
	merchantLineOps.SetPOBOSubaccount, merchantLineOps.SetWriteQuota,
}
