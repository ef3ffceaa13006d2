package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
)

// registerRemittances builds the remittance line, registers its endpoints
// and its outcome success path.
func (ctl *controlAPI) registerRemittances() {
	s := ctl.sim
	s.st.remit = remittances.New(remitHost{st: &s.st})
	s.wiring.timers.on(CollectionRemittances, s.st.remit.Succeed)
	for _, e := range s.st.remit.Endpoints() {
		s.wiring.gw.register(e)
	}
}

// remitHost is the remittance line's remittances.Host.
type remitHost struct {
	st *simState
}

func (h remitHost) MerchantHosted() bool { return h.st.merchant.MerchantHosted() }

func (h remitHost) MerchantStatus() (string, bool) {
	return h.st.merchant.Status(), h.st.merchant.Active()
}

func (h remitHost) MerchantID() string { return h.st.merchant.ID() }

func (h remitHost) AssetAllowed(code string) bool {
	return h.st.cat.allowed(code, nil) && h.st.merchant.Allows(code)
}

func (h remitHost) Member(id string) *api.Member { return h.st.members.Get(id) }

func (h remitHost) MemberByExternal(externalID string) *api.Member {
	return h.st.members.ByExternal(externalID)
}

func (h remitHost) Restricted(m *api.Member) bool { return memberRestriction(m) != "" }

func (h remitHost) HasKYCProfile(_ *kernel.Tx, m *api.Member) bool {
	return h.st.kyc.Profile(m) != nil
}

func (h remitHost) KYCInReview(_ *kernel.Tx, m *api.Member) bool { return kycInReview(h.st, m) }

func (h remitHost) UpstreamAccount() string { return UpstreamAccount("remit") }

func (h remitHost) Balance(account, asset string) money.Amount {
	return h.st.ledger.Balance(account, asset)
}

func (h remitHost) Post(_ *kernel.Tx, at time.Time, memo string, postings ...remittances.Posting) error {
	ps := make([]Posting, 0, len(postings))
	for _, p := range postings {
		ps = append(ps, Posting{Account: p.Account, Asset: p.Asset, Amount: p.Amount})
	}
	return h.st.ledger.Post(at, memo, ps...)
}
