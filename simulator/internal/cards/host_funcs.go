package cards

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// HostFuncs is a Host whose methods call its fields, each the method's
// answer by another line, filled in one place (the simulator's wiring).
type HostFuncs struct {
	// MemberFunc answers Member.
	MemberFunc func(tx *kernel.Tx, id string) *api.Member
	// KYCInReviewFunc answers KYCInReview.
	KYCInReviewFunc func(tx *kernel.Tx, m *api.Member) bool
	// BindingActiveFunc answers BindingActive.
	BindingActiveFunc func(tx *kernel.Tx, m *api.Member, bindingID string) bool
	// AllocateBindingFunc answers AllocateBinding.
	AllocateBindingFunc func(tx *kernel.Tx, m *api.Member, email string) (string, error)
	// CompensateBindingFunc answers CompensateBinding.
	CompensateBindingFunc func(tx *kernel.Tx, bindingID, applicationID string) error
	// RequireStepUpFunc answers RequireStepUp.
	RequireStepUpFunc func(c *api.Request, action string) error
}

var _ Host = HostFuncs{}

// Member calls MemberFunc.
func (h HostFuncs) Member(tx *kernel.Tx, id string) *api.Member { return h.MemberFunc(tx, id) }

// KYCInReview calls KYCInReviewFunc.
func (h HostFuncs) KYCInReview(tx *kernel.Tx, m *api.Member) bool { return h.KYCInReviewFunc(tx, m) }

// BindingActive calls BindingActiveFunc.
func (h HostFuncs) BindingActive(tx *kernel.Tx, m *api.Member, bindingID string) bool {
	return h.BindingActiveFunc(tx, m, bindingID)
}

// AllocateBinding calls AllocateBindingFunc.
func (h HostFuncs) AllocateBinding(tx *kernel.Tx, m *api.Member, email string) (string, error) {
	return h.AllocateBindingFunc(tx, m, email)
}

// CompensateBinding calls CompensateBindingFunc.
func (h HostFuncs) CompensateBinding(tx *kernel.Tx, bindingID, applicationID string) error {
	return h.CompensateBindingFunc(tx, bindingID, applicationID)
}

// RequireStepUp calls RequireStepUpFunc.
func (h HostFuncs) RequireStepUp(c *api.Request, action string) error {
	return h.RequireStepUpFunc(c, action)
}
