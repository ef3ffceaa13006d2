package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// merchantHost is the merchant line's merchant.Host.
type merchantHost struct {
	st *simState
}

// AdvanceQueued advances the remittances waiting for merchant funds.
func (h merchantHost) AdvanceQueued(tx *kernel.Tx) { h.st.remit.AdvanceQueued(tx) }
