package simulator

import (
	"net/http"
	"strings"

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
	return call1(m.s, ctlMerchantSet, func() error {
		return merchantNameError(ms, inTx(m.s, func(tx *kernel.Tx) error { return m.s.st.merchant.Set(tx, ms.lineSettings()) }))
	}, ms)
}

// setMerchantCall is POST /_sim/merchant, the HTTP entry of Set: it answers
// the merchant.
func setMerchantCall(s *Simulator, _ *http.Request, body []byte) (string, []any, controlRun, error) {
	var in merchantJSONIn
	if err := decodeControl(body, &in); err != nil {
		return "", nil, nil, err
	}
	ms := in.settings()
	return "", []any{ms}, func(tx *kernel.Tx) (int, any, error) {
		if err := s.st.merchant.Set(tx, ms.lineSettings()); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, s.st.merchant.JSON(tx), nil
	}, nil
}

// TopUpPrepaid credits the merchant prepaid account with amount of
// asset and advances the remittances waiting for merchant funds. Control
// action merchant/prepaid/topup, body {"asset", "amount"}.
func (m *MerchantControl) TopUpPrepaid(asset, amount string) error {
	return call1(m.s, ctlMerchantTopUpPrepaid, func() error {
		return m.s.wiring.ctl.badAsset(asset, inTx(m.s, func(tx *kernel.Tx) error { return m.s.st.merchant.TopUpPrepaid(tx, asset, amount) }))
	}, asset, amount)
}

// WithdrawPrepaid takes amount of asset out of the merchant prepaid
// account ("" takes the whole available prepaid balance), for example to
// play a merchant whose prepaid cannot fund a remittance.
func (m *MerchantControl) WithdrawPrepaid(asset, amount string) error {
	return call1(m.s, ctlMerchantWithdrawPrepaid, func() error {
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
	return call0(m.s, ctlMerchantSetPOBOSubaccount, func() {
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
	return call1(m.s, ctlMerchantSetWriteQuota, func() error {
		tx := m.s.k.Begin()
		defer tx.End()
		return m.s.wiring.gw.setWriteQuota(tx, perMinute)
	}, perMinute)
}

// The names the Merchant control methods record their calls under, each declared
// once and used by its method and by merchantControls.
const (
	ctlMerchantSet               = "Merchant.Set"
	ctlMerchantTopUpPrepaid      = "Merchant.TopUpPrepaid"
	ctlMerchantWithdrawPrepaid   = "Merchant.WithdrawPrepaid"
	ctlMerchantSetPOBOSubaccount = "Merchant.SetPOBOSubaccount"
	ctlMerchantSetWriteQuota     = "Merchant.SetWriteQuota"
)

// merchantControls declares the merchant control methods and the routes that call them
// (control_decl.go), the routes in their registration order. Set is
// declared with POST /_sim/merchant among the core routes (control.go),
// where it registers.
var merchantControls = []controlDecl{
	{
		name: ctlMerchantWithdrawPrepaid, bind: func(s *Simulator) any { return s.Merchant.WithdrawPrepaid },
		route: "POST /_sim/merchant/prepaid/withdraw",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				Asset  string `json:"asset"`
				Amount string `json:"amount"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			if err := s.Merchant.WithdrawPrepaid(in.Asset, in.Amount); err != nil {
				return 0, nil, err
			}
			avail, locked := s.Merchant.PrepaidBalance(strings.ToUpper(strings.TrimSpace(in.Asset)))
			return http.StatusOK, map[string]any{"asset": strings.ToUpper(strings.TrimSpace(in.Asset)), "available": avail.String(), "locked": locked.String()}, nil
		},
	},
	{
		name: ctlMerchantSetPOBOSubaccount, bind: func(s *Simulator) any { return s.Merchant.SetPOBOSubaccount },
		route: "POST /_sim/merchant/pobo_subaccount",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			on, err := decodeBool(body, "active")
			if err != nil {
				return 0, nil, err
			}
			if err := s.Merchant.SetPOBOSubaccount(on); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"active": on}, nil
		},
	},
	{name: ctlMerchantTopUpPrepaid, bind: func(s *Simulator) any { return s.Merchant.TopUpPrepaid }},
	{name: "Merchant.PrepaidBalance", noCall: true, bind: func(s *Simulator) any { return s.Merchant.PrepaidBalance }},
}

// merchantQuotaControls declares the route of Merchant.SetWriteQuota, which
// registers after the QR payment routes (controlTables: the registration
// order is part of the state image).
var merchantQuotaControls = []controlDecl{
	{
		name: ctlMerchantSetWriteQuota, bind: func(s *Simulator) any { return s.Merchant.SetWriteQuota },
		route: "POST /_sim/merchant/write_quota",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				PerMinute *int `json:"per_minute"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			if in.PerMinute == nil {
				return 0, nil, errInvalidRequest("per_minute is required (0 removes the quota)")
			}
			if err := s.Merchant.SetWriteQuota(*in.PerMinute); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"per_minute": *in.PerMinute}, nil
		},
	},
}
