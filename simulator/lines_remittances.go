package simulator

import (
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
)

// registerRemittances builds the remittance line, registers its endpoints,
// its outcome success path and its control actions, and the merchant
// prepaid top-up, which advances the remittances waiting for it.
func (ctl *controlAPI) registerRemittances() {
	s := ctl.sim
	s.st.remit = remittances.New(remitHost{st: &s.st})
	s.wiring.timers.on(CollectionRemittances, s.st.remit.Succeed)
	for _, e := range s.st.remit.Endpoints() {
		s.wiring.gw.register(e)
	}
	acts := make([]controlDecl, 0, 6)
	for _, a := range []string{"dispatch", "complete", "fail", "refund", "needs_reconfirm", "advance"} {
		action := a
		acts = append(acts, controlDecl{action: "remittances/" + action, withBody: true, act: func(tx *kernel.Tx, id string, body []byte) (any, error) {
			return s.st.remit.Act(tx, id, action, body)
		}})
	}
	ctl.registerActions(acts)
	ctl.registerActions([]controlDecl{
		{action: "merchant/prepaid/topup", withBody: true, act: func(tx *kernel.Tx, _ string, body []byte) (any, error) {
			var in struct {
				Asset  string `json:"asset"`
				Amount string `json:"amount"`
			}
			if err := decodeControl(body, &in); err != nil {
				return nil, err
			}
			if err := s.st.merchant.TopUpPrepaid(tx, in.Asset, in.Amount); err != nil {
				return nil, err
			}
			asset := strings.ToUpper(in.Asset)
			return map[string]any{"asset": asset, "prepaid": s.st.ledger.Balance(AccountMerchantPrepaid, asset).String()}, nil
		}},
	})
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
