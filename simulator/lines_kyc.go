package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The KYC line (internal/kyc): its host.

// kycHost is the KYC line's kyc.Host.
type kycHost struct {
	st *simState
}

func (h kycHost) Member(tx *kernel.Tx, id string) *member { return h.st.members.Get(tx, id) }

func (h kycHost) SetMemberKYC(tx *kernel.Tx, id string, level int, hasProfile bool) {
	_ = h.st.members.SetKYC(tx, id, level, hasProfile)
}

// BindingWithdrawn: a card application still under review on the binding
// loses its KYC basis and is rejected first (fee and shipping refunded,
// first top-up released, card.application.rejected), so no card is issued
// on a compensated binding.
func (h kycHost) BindingWithdrawn(tx *kernel.Tx, bindingID string) ([]string, error) {
	return h.st.cards.BindingWithdrawn(tx, bindingID)
}
