package simulator

import (
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The merchant prepaid account, which funds merchant-funded remittances.

// topUpMerchantPrepaid credits the merchant prepaid account with amount of
// asset and advances the remittances waiting for merchant funds. Control
// action merchant/prepaid/topup, body {"asset", "amount"}.
func (s *Simulator) topUpMerchantPrepaid(asset, amount string) error {
	tx := s.k.Begin()
	defer tx.End()
	return s.topUpPrepaid(tx, asset, amount)
}

// topUpPrepaid credits the merchant prepaid account from outside money
// and advances the orders waiting for it.
func (s *Simulator) topUpPrepaid(tx *kernel.Tx, asset, amount string) error {
	asset = strings.ToUpper(strings.TrimSpace(asset))
	amt, err := s.st.cat.amount(asset, amount, decimalSigned)
	if err != nil || amt.Sign() <= 0 {
		return errInvalidRequest("asset and a positive amount at its ledger scale are required")
	}
	if err := s.st.ledger.Transfer(s.st.clock.Now(), "merchant prepaid top-up", asset, amt, AccountWorld, AccountMerchantPrepaid); err != nil {
		return err
	}
	s.st.remit.AdvanceQueued(tx)
	return nil
}

// withdrawMerchantPrepaid takes amount of asset out of the merchant prepaid
// account ("" takes the whole available prepaid balance), for example to
// play a merchant whose prepaid cannot fund a remittance.
func (s *Simulator) withdrawMerchantPrepaid(asset, amount string) error {
	tx := s.k.Begin()
	defer tx.End()
	asset = strings.ToUpper(strings.TrimSpace(asset))
	if _, ok := s.st.cat.scale(asset); !ok {
		return errInvalidRequest("unknown asset " + asset)
	}
	amt := s.st.ledger.Balance(AccountMerchantPrepaid, asset)
	if amount != "" {
		v, err := s.st.cat.amount(asset, amount, decimalSigned)
		if err != nil || v.Sign() <= 0 {
			return errInvalidRequest("a positive amount at the asset's ledger scale is required")
		}
		amt = v
	}
	return s.st.ledger.Transfer(s.st.clock.Now(), "merchant prepaid withdrawal", asset, amt, AccountMerchantPrepaid, AccountWorld)
}
