package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
)

// The KYC line (internal/kyc): its registration, its control actions and
// Go control calls, and its host.

func (ctl *controlAPI) registerKYC() {
	s := ctl.sim
	s.st.kyc = kyc.New(kycHost{st: &s.st, url: s.URL})
	for _, e := range s.st.kyc.Endpoints() {
		s.wiring.gw.register(e)
	}

	memberAction := func(f func(tx *kernel.Tx, m *member, body []byte) error) actionFunc {
		return func(tx *kernel.Tx, id string, body []byte) (any, error) {
			m := s.st.members.ByAny(id)
			if m == nil {
				return nil, errNotFound("member")
			}
			if err := f(tx, m, body); err != nil {
				return nil, err
			}
			return s.st.kyc.JSON(m), nil
		}
	}
	ctl.registerActions([]controlDecl{
		{action: "kyc/update", act: memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.st.kyc.Update(tx, m) })},
		{action: "kyc/approve", withBody: true, act: memberAction(func(tx *kernel.Tx, m *member, body []byte) error {
			var in struct {
				Level *int `json:"level"`
			}
			if err := decodeControl(body, &in); err != nil {
				return err
			}
			return s.st.kyc.Approve(tx, m, in.Level)
		})},
		{action: "kyc/reject", act: memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.st.kyc.Review(tx, m, "rejected") })},
		{action: "kyc/supplement", act: memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.st.kyc.Review(tx, m, "supplement_required") })},
		{action: "kyc/sessions/complete", act: func(tx *kernel.Tx, id string, _ []byte) (any, error) {
			m, err := s.st.kyc.CompleteSession(tx, id)
			if err != nil {
				return nil, err
			}
			return s.st.kyc.JSON(m), nil
		}},
		{action: "kyc/quick/compensate", withBody: true, act: func(tx *kernel.Tx, id string, body []byte) (any, error) {
			var in struct {
				Source        string `json:"compensation_source"`
				ApplicationID string `json:"application_id"`
			}
			if err := decodeControl(body, &in); err != nil {
				return nil, err
			}
			b, err := s.st.kyc.Compensate(tx, id, in.Source, in.ApplicationID)
			if err != nil {
				return nil, err
			}
			return kyc.BindingJSON(b), nil
		}},
	})
	ctl.registerMembers()
}

// kycHost is the KYC line's kyc.Host.
type kycHost struct {
	st  *simState
	url func() string // the simulator's address (Simulator.URL), for hosted links
}

func (h kycHost) URL() string { return h.url() }

func (h kycHost) Member(id string) *member { return h.st.members.Get(id) }

func (h kycHost) FeeAccount(_ *kernel.Tx, m *member) string {
	if h.st.merchant.MerchantHosted() {
		return AccountMerchantPrepaid
	}
	return MemberAvailable(m.ID)
}

// BindingWithdrawn: a card application still under review on the binding
// loses its KYC basis and is rejected first (fee and shipping refunded,
// first top-up released, card.application.rejected), so no card is issued
// on a compensated binding.
func (h kycHost) BindingWithdrawn(tx *kernel.Tx, bindingID string) ([]string, error) {
	return h.st.cards.BindingWithdrawn(tx, bindingID)
}
