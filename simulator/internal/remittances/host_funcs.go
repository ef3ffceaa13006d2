package remittances

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// HostFuncs is a Host whose methods call its fields, each the method's
// answer by another line, filled in one place (the simulator's wiring).
type HostFuncs struct {
	// MerchantStatusFunc answers MerchantStatus.
	MerchantStatusFunc func(tx *kernel.Tx) (status string, active bool)
	// MemberFunc answers Member.
	MemberFunc func(tx *kernel.Tx, id string) *api.Member
	// MemberByExternalFunc answers MemberByExternal.
	MemberByExternalFunc func(tx *kernel.Tx, externalID string) *api.Member
	// HasKYCProfileFunc answers HasKYCProfile.
	HasKYCProfileFunc func(tx *kernel.Tx, m *api.Member) bool
	// KYCInReviewFunc answers KYCInReview.
	KYCInReviewFunc func(tx *kernel.Tx, m *api.Member) bool
}

var _ Host = HostFuncs{}

// MerchantStatus calls MerchantStatusFunc.
func (h HostFuncs) MerchantStatus(tx *kernel.Tx) (string, bool) { return h.MerchantStatusFunc(tx) }

// Member calls MemberFunc.
func (h HostFuncs) Member(tx *kernel.Tx, id string) *api.Member { return h.MemberFunc(tx, id) }

// MemberByExternal calls MemberByExternalFunc.
func (h HostFuncs) MemberByExternal(tx *kernel.Tx, externalID string) *api.Member {
	return h.MemberByExternalFunc(tx, externalID)
}

// HasKYCProfile calls HasKYCProfileFunc.
func (h HostFuncs) HasKYCProfile(tx *kernel.Tx, m *api.Member) bool {
	return h.HasKYCProfileFunc(tx, m)
}

// KYCInReview calls KYCInReviewFunc.
func (h HostFuncs) KYCInReview(tx *kernel.Tx, m *api.Member) bool { return h.KYCInReviewFunc(tx, m) }
