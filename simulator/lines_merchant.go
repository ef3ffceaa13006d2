package simulator

import (
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// merchantHost is the merchant line's merchant.Host.
type merchantHost struct {
	st *simState
}

// AdvanceQueued advances the remittances waiting for merchant funds.
func (h merchantHost) AdvanceQueued(tx *kernel.Tx) { h.st.remit.AdvanceQueued(tx) }

// Prepaid is the available and locked balance of asset in the merchant
// prepaid account.
func (h merchantHost) Prepaid(tx *kernel.Tx, asset string) (available, locked money.Amount) {
	return h.st.ledger.Balance(tx, AccountMerchantPrepaid, asset), h.st.ledger.Balance(tx, AccountMerchantPrepaidLocked, asset)
}

// AssetCodes are the codes of the catalogue's assets, in its order.
func (h merchantHost) AssetCodes(*kernel.Tx) []string {
	all := h.st.cat.all()
	codes := make([]string, 0, len(all))
	for _, a := range all {
		codes = append(codes, a.Code)
	}
	return codes
}

// Post posts a balanced ledger entry.
