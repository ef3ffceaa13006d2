package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// remitHost is the remittance line's remittances.Host.
type remitHost struct {
	st *simState
}

func (h remitHost) MerchantStatus(tx *kernel.Tx) (string, bool) {
	return h.st.merchant.Status(tx), h.st.merchant.Active(tx)
}

func (h remitHost) Member(tx *kernel.Tx, id string) *api.Member { return h.st.members.Get(tx, id) }

func (h remitHost) MemberByExternal(tx *kernel.Tx, externalID string) *api.Member {
	return h.st.members.ByExternal(tx, externalID)
}

func (h remitHost) HasKYCProfile(tx *kernel.Tx, m *api.Member) bool {
	return h.st.kyc.Profile(tx, m) != nil
}

func (h remitHost) KYCInReview(tx *kernel.Tx, m *api.Member) bool { return h.st.kyc.InReview(tx, m) }
