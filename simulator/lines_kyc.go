package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
)

// The KYC line (internal/kyc): its registration, its control actions and
// Go control calls, and its host.

func (s *Simulator) registerKYC() {
	s.kyc = kyc.New(kycHost{s})
	for _, e := range s.kyc.Endpoints() {
		s.register(e)
	}

	memberAction := func(f func(tx *kernel.Tx, m *member, body []byte) error) actionFunc {
		return func(tx *kernel.Tx, id string, body []byte) (any, error) {
			m := s.members.ByAny(id)
			if m == nil {
				return nil, errNotFound("member")
			}
			if err := f(tx, m, body); err != nil {
				return nil, err
			}
			return s.kyc.JSON(m), nil
		}
	}
	s.actions["kyc/update"] = memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.kyc.Update(tx, m) })
	s.actions["kyc/approve"] = memberAction(func(tx *kernel.Tx, m *member, body []byte) error {
		var in struct {
			Level *int `json:"level"`
		}
		if err := decodeControl(body, &in); err != nil {
			return err
		}
		return s.kyc.Approve(tx, m, in.Level)
	})
	s.actions["kyc/reject"] = memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.kyc.Review(tx, m, "rejected") })
	s.actions["kyc/supplement"] = memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.kyc.Review(tx, m, "supplement_required") })
	s.actions["kyc/sessions/complete"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		m, err := s.kyc.CompleteSession(tx, id)
		if err != nil {
			return nil, err
		}
		return s.kyc.JSON(m), nil
	}
	s.actions["kyc/quick/compensate"] = func(tx *kernel.Tx, id string, body []byte) (any, error) {
		var in struct {
			Source        string `json:"compensation_source"`
			ApplicationID string `json:"application_id"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, err
		}
		b, err := s.kyc.Compensate(tx, id, in.Source, in.ApplicationID)
		if err != nil {
			return nil, err
		}
		return kyc.BindingJSON(b), nil
	}
	s.registerMembers()
}

// kycHost is the KYC line's kyc.Host.
type kycHost struct{ s *Simulator }

func (h kycHost) URL() string { return h.s.URL() }

func (h kycHost) Member(id string) *member { return h.s.members.Get(id) }

func (h kycHost) FeeAccount(_ *kernel.Tx, m *member) string {
	if h.s.merchant.Model == MerchantHosted {
		return AccountMerchantPrepaid
	}
	return MemberAvailable(m.ID)
}

// BindingWithdrawn: a card application still under review on the binding
// loses its KYC basis and is rejected first (fee and shipping refunded,
// first top-up released, card.application.rejected), so no card is issued
// on a compensated binding.
func (h kycHost) BindingWithdrawn(tx *kernel.Tx, bindingID string) ([]string, error) {
	var ids []string
	for _, a := range h.s.appsOnBinding(bindingID) {
		if err := h.s.failCardApplication(tx, a, false); err != nil {
			return nil, err
		}
		ids = append(ids, a.ID)
	}
	return ids, nil
}
