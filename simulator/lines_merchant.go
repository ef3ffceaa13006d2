package simulator

import (
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// merchantHost is the merchant line's merchant.Host.
type merchantHost struct{ s *Simulator }

// AdvanceQueued advances the remittances waiting for merchant funds.
func (h merchantHost) AdvanceQueued(tx *kernel.Tx) { h.s.st.remit.AdvanceQueued(tx) }

// PrepaidBalance is the available balance of asset in the merchant prepaid
// account.
func (h merchantHost) PrepaidBalance(_ *kernel.Tx, asset string) money.Amount {
	return h.s.st.ledger.Balance(AccountMerchantPrepaid, asset)
}
