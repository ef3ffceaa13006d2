package simulator

import (
	"slices"

	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/gatewayhost"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/services"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// The product lines that have their own package under internal/, and the
// hosts through which each reaches the rest of the simulator: a line
// declares what it needs of other lines (its Host interface) and the
// simulator answers it here, so that no line touches another's state. What
// every line uses (the clock, ids, the ledger, events, the catalogue) the
// kernel gives through the transaction: internal/services, over the state.

// newServices are the kernel's services (kernel.Services) over the state
// of s, given to every transaction: they read and write the state, and put
// objects in flight on the clock's timers.
func newServices(s *Simulator) *services.Services {
	st := &s.st
	return &services.Services{
		Clock: st.clock, IDs: st.rng, Seq: st.listSeq, Books: st.ledger, Short: shortFunds,
		Catalogue: st.cat.Catalogue, Timers: s.wiring.timers,
		Members: &st.members, Events: st.webhooks, Merchant: st.merchant,
		Creds: services.Credentials{MerchantID: st.creds.MerchantID, WebhookSecret: st.creds.WebhookSecret},
		Base:  s.URL, Rules: s.wiring.rec.RunningRules,
		Window: func(window string) (windows.ExpiryQueue, int, bool) { return gatewayhost.ExpiryWindow(st.gw, window) },
	}
}

// registerAll registers the gateway and the control API, builds the
// product lines in their order of the kernel's tables, each with its
// outcome success paths (outcome.go), and registers the business
// endpoints, the lines' in that order.
func (s *Simulator) registerAll(tx *kernel.Tx) {
	s.wiring.gw.registerGateway()
	s.wiring.ctl.registerControl()
	st, on := &s.st, s.wiring.timers.On
	st.qr = qrpay.New(&s.k, tx, qrpayHost{st: st})
	on(string(CollectionQROrders), st.qr.OutcomeSuccess)
	st.cards = newCardsLine(s, tx)
	on(string(CollectionCardApplications), st.cards.SucceedApplication)
	on(string(CollectionCardClosures), st.cards.SucceedClosure)
	on(string(CollectionCardTopups), st.cards.SucceedTopUp)
	st.remit = remittances.New(&s.k, remitHost{st: st})
	on(string(CollectionRemittances), st.remit.Succeed)
	st.deposits = deposits.New(&s.k)
	st.kyc = kyc.New(&s.k, kycHost{st: st})
	for _, e := range slices.Concat([]endpoint{assetsEndpoint(st)}, st.qr.Endpoints(), st.cards.Endpoints(), st.remit.Endpoints(),
		st.deposits.Endpoints(), st.kyc.Endpoints(), st.members.Endpoints(), st.webhooks.Endpoints()) {
		s.wiring.gw.router.Register(e)
	}
}

// merchantHost is the merchant line's merchant.Host.
type merchantHost struct {
	st *simState
}

// AdvanceQueued advances the remittances waiting for merchant funds.
func (h merchantHost) AdvanceQueued(tx *kernel.Tx) { h.st.remit.AdvanceQueued(tx) }
