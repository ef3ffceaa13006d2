package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
)

// registerQRPay builds the QR payment line, registers its endpoints and its
// outcome success path.
func (ctl *controlAPI) registerQRPay(tx *kernel.Tx) {
	s := ctl.sim
	s.st.qr = qrpay.New(&s.k, tx, qrpayHost(&s.st))
	// The acquirer's success path of an order in flight (outcome.go).
	s.wiring.timers.On(string(CollectionQROrders), s.st.qr.OutcomeSuccess)
	for _, e := range s.st.qr.Endpoints() {
		s.wiring.gw.register(e)
	}
}

// qrpayHost is the QR payment line's qrpay.Host: the members, the step-up
// line and the merchant's fee rate, read through st when called.
func qrpayHost(st *simState) qrpay.HostFuncs {
	return qrpay.HostFuncs{
		MemberFunc:             func(tx *kernel.Tx, id string) *api.Member { return st.members.Get(tx, id) },
		RequireStepUpFunc:      func(c *api.Request, action string) error { return st.stepUp.Require(c, action) },
		MerchantFeeRateBpsFunc: func(tx *kernel.Tx) int64 { return st.merchant.FeeRateBps(tx) },
	}
}
