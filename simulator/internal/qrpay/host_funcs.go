package qrpay

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// HostFuncs is a Host whose methods call its fields, each the method's
// answer by another line, filled in one place (the simulator's wiring).
type HostFuncs struct {
	// MemberFunc answers Member.
	MemberFunc func(tx *kernel.Tx, id string) *api.Member
	// RequireStepUpFunc answers RequireStepUp.
	RequireStepUpFunc func(c *api.Request, action string) error
	// MerchantFeeRateBpsFunc answers MerchantFeeRateBps.
	MerchantFeeRateBpsFunc func(tx *kernel.Tx) int64
}

var _ Host = HostFuncs{}

// Member calls MemberFunc.
func (h HostFuncs) Member(tx *kernel.Tx, id string) *api.Member { return h.MemberFunc(tx, id) }

// RequireStepUp calls RequireStepUpFunc.
func (h HostFuncs) RequireStepUp(c *api.Request, action string) error {
	return h.RequireStepUpFunc(c, action)
}

// MerchantFeeRateBps calls MerchantFeeRateBpsFunc.
func (h HostFuncs) MerchantFeeRateBps(tx *kernel.Tx) int64 { return h.MerchantFeeRateBpsFunc(tx) }
