package kyc

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// HostFuncs is a Host whose methods call its fields, each the method's
// answer by another line, filled in one place (the simulator's wiring).
type HostFuncs struct {
	// MemberFunc answers Member.
	MemberFunc func(tx *kernel.Tx, id string) *api.Member
	// SetMemberKYCFunc answers SetMemberKYC.
	SetMemberKYCFunc func(tx *kernel.Tx, id string, level int, hasProfile bool)
	// BindingWithdrawnFunc answers BindingWithdrawn.
	BindingWithdrawnFunc func(tx *kernel.Tx, bindingID string) ([]string, error)
}

var _ Host = HostFuncs{}

// Member calls MemberFunc.
func (h HostFuncs) Member(tx *kernel.Tx, id string) *api.Member { return h.MemberFunc(tx, id) }

// SetMemberKYC calls SetMemberKYCFunc.
func (h HostFuncs) SetMemberKYC(tx *kernel.Tx, id string, level int, hasProfile bool) {
	h.SetMemberKYCFunc(tx, id, level, hasProfile)
}

// BindingWithdrawn calls BindingWithdrawnFunc.
func (h HostFuncs) BindingWithdrawn(tx *kernel.Tx, bindingID string) ([]string, error) {
	return h.BindingWithdrawnFunc(tx, bindingID)
}
