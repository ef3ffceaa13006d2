package simulator

import (
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// MerchantControl changes the simulated merchant (sim.Merchant): custody
// model, status, environment, fee rate, asset allowlist, prepaid account
// and upstream subaccount. Control API: GET and POST /_sim/merchant and the
// merchant/prepaid actions.
type MerchantControl struct{ s *Simulator }

// Set changes the merchant as ms says. It changes nothing when any
// setting is invalid.
func (m *MerchantControl) Set(ms MerchantSettings) error {
	return call1(m.s, "Merchant.Set", func() error {
		return merchantNameError(ms, inTx(m.s, func(tx *kernel.Tx) error { return m.s.st.merchant.Set(tx, ms.lineSettings()) }))
	}, ms)
}

// TopUpPrepaid credits the merchant prepaid account with amount of
// asset and advances the remittances waiting for merchant funds. Control
// action merchant/prepaid/topup, body {"asset", "amount"}.
func (m *MerchantControl) TopUpPrepaid(asset, amount string) error {
	return call1(m.s, "Merchant.TopUpPrepaid", func() error {
		return m.s.wiring.ctl.badAsset(asset, inTx(m.s, func(tx *kernel.Tx) error { return m.s.st.merchant.TopUpPrepaid(tx, asset, amount) }))
	}, asset, amount)
}

// WithdrawPrepaid takes amount of asset out of the merchant prepaid
// account ("" takes the whole available prepaid balance), for example to
// play a merchant whose prepaid cannot fund a remittance.
func (m *MerchantControl) WithdrawPrepaid(asset, amount string) error {
	return call1(m.s, "Merchant.WithdrawPrepaid", func() error {
		return m.s.wiring.ctl.badAsset(asset, inTx(m.s, func(tx *kernel.Tx) error { return m.s.st.merchant.WithdrawPrepaid(tx, asset, amount) }))
	}, asset, amount)
}

// PrepaidBalance returns the merchant prepaid available and locked balance in
// asset.
func (m *MerchantControl) PrepaidBalance(asset string) (available, locked money.Amount) {
	type balance struct{ available, locked money.Amount }
	b, _ := inTx1(m.s, func(tx *kernel.Tx) (balance, error) {
		available, locked := m.s.st.merchant.Prepaid(tx, asset)
		return balance{available, locked}, nil
	})
	return b.available, b.locked
}

// SetPOBOSubaccount sets whether the merchant has an active upstream
// subaccount, which the pobo line needs.
func (m *MerchantControl) SetPOBOSubaccount(active bool) error {
	return call0(m.s, "Merchant.SetPOBOSubaccount", func() {
		tx := m.s.k.Begin()
		defer tx.End()
		m.s.st.remit.SetPOBOSubaccount(tx, active)
	}, active)
}

// SetWriteQuota sets the merchant-level write quota: at most perMinute
// business writes per minute of simulator clock, counted over every Key and
// member, after which a write answers 429 rate_limited with retry_after and
// Retry-After; 0 (the default: the contract shows no number) removes it.
// Control API: POST /_sim/merchant/write_quota with {"per_minute": n}.
func (m *MerchantControl) SetWriteQuota(perMinute int) error {
	return call1(m.s, "Merchant.SetWriteQuota", func() error {
		tx := m.s.k.Begin()
		defer tx.End()
		return m.s.setWriteQuota(tx, perMinute)
	}, perMinute)
}
