package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// qrpayHost is the QR payment line's qrpay.Host.
type qrpayHost struct {
	st *simState
}

func (h qrpayHost) Member(tx *kernel.Tx, id string) *api.Member { return h.st.members.Get(tx, id) }

func (h qrpayHost) RequireStepUp(c *api.Request, action string) error {
	return h.st.stepUp.Require(c, action)
}

func (h qrpayHost) MerchantFeeRateBps(tx *kernel.Tx) int64 { return h.st.merchant.FeeRateBps(tx) }
