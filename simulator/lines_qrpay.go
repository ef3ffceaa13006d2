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
	s.st.qr = qrpay.New(&s.k, tx, qrpayHost{st: &s.st})
	// The acquirer's success path of an order in flight (outcome.go).
	s.wiring.timers.On(string(CollectionQROrders), s.st.qr.OutcomeSuccess)
	for _, e := range s.st.qr.Endpoints() {
		s.wiring.gw.router.Register(e)
	}
}

// qrpayHost is the QR payment line's qrpay.Host.
type qrpayHost struct {
	st *simState
}

func (h qrpayHost) Member(tx *kernel.Tx, id string) *api.Member { return h.st.members.Get(tx, id) }

func (h qrpayHost) RequireStepUp(c *api.Request, action string) error {
	return h.st.stepUp.Require(c, action)
}

func (h qrpayHost) MerchantFeeRateBps(tx *kernel.Tx) int64 { return h.st.merchant.FeeRateBps(tx) }
