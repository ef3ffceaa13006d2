package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
)

// registerRemittances builds the remittance line, registers its endpoints
// and its outcome success path.
func (ctl *controlAPI) registerRemittances() {
	s := ctl.sim
	s.st.remit = remittances.New(&s.k, remitHost(&s.st))
	s.wiring.timers.On(string(CollectionRemittances), s.st.remit.Succeed)
	for _, e := range s.st.remit.Endpoints() {
		s.wiring.gw.register(e)
	}
}

// remitHost is the remittance line's remittances.Host: the merchant's
// status, the members and their KYC, read through st when called.
func remitHost(st *simState) remittances.HostFuncs {
	return remittances.HostFuncs{
		MerchantStatusFunc: func(tx *kernel.Tx) (string, bool) { return st.merchant.Status(tx), st.merchant.Active(tx) },
		MemberFunc:         func(tx *kernel.Tx, id string) *api.Member { return st.members.Get(tx, id) },
		MemberByExternalFunc: func(tx *kernel.Tx, externalID string) *api.Member {
			return st.members.ByExternal(tx, externalID)
		},
		HasKYCProfileFunc: func(tx *kernel.Tx, m *api.Member) bool { return st.kyc.Profile(tx, m) != nil },
		KYCInReviewFunc:   func(tx *kernel.Tx, m *api.Member) bool { return kycInReview(tx, st, m) },
	}
}
