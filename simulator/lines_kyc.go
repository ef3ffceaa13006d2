package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
)

// The KYC line (internal/kyc): its registration and its host.

func (ctl *controlAPI) registerKYC() {
	s := ctl.sim
	s.st.kyc = kyc.New(&s.k, kycHost(&s.st))
	for _, e := range s.st.kyc.Endpoints() {
		s.wiring.gw.register(e)
	}

	ctl.registerMembers()
}

// kycHost is the KYC line's kyc.Host: the members, and the card line told
// of a withdrawn binding (BindingWithdrawn: a card application still under
// review on it loses its KYC basis and is rejected first, fee and shipping
// refunded, first top-up released, card.application.rejected, so no card is
// issued on a compensated binding).
func kycHost(st *simState) kyc.HostFuncs {
	return kyc.HostFuncs{
		MemberFunc: func(tx *kernel.Tx, id string) *member { return st.members.Get(tx, id) },
		SetMemberKYCFunc: func(tx *kernel.Tx, id string, level int, hasProfile bool) {
			_ = st.members.SetKYC(tx, id, level, hasProfile)
		},
		BindingWithdrawnFunc: func(tx *kernel.Tx, bindingID string) ([]string, error) {
			return st.cards.BindingWithdrawn(tx, bindingID)
		},
	}
}
