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

// updateKYC plays a KYC profile update for a member (mem_ id, bare uuid or
// external_member_id): the profile goes back to review and the level drops
// to 0 (event kyc.result.updated). Control action kyc/{member}/update.
func (s *Simulator) updateKYC(memberID string) error {
	tx := s.k.Begin()
	defer tx.End()
	m := s.members.ByAny(memberID)
	if m == nil {
		return errNotFound("member")
	}
	return s.kyc.Update(tx, m)
}

// approveKYC approves a member's profile at level (0 keeps the level held
// before the last update). Control action kyc/{member}/approve, body
// {"level": n}.
func (s *Simulator) approveKYC(memberID string, level int) error {
	tx := s.k.Begin()
	defer tx.End()
	m := s.members.ByAny(memberID)
	if m == nil {
		return errNotFound("member")
	}
	var lv *int
	if level != 0 {
		lv = &level
	}
	return s.kyc.Approve(tx, m, lv)
}

// rejectKYC rejects a member's profile under review. Control action
// kyc/{member}/reject.
func (s *Simulator) rejectKYC(memberID string) error {
	tx := s.k.Begin()
	defer tx.End()
	m := s.members.ByAny(memberID)
	if m == nil {
		return errNotFound("member")
	}
	return s.kyc.Review(tx, m, "rejected")
}

// runCompleteKYCSession plays the member finishing a hosted KYC screen (ticket
// id with or without kyc_): the link is used up and the profile goes back to
// review. Control action kyc/sessions/{id}/complete.
func (s *Simulator) runCompleteKYCSession(ticketID string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.kyc.CompleteSession(tx, ticketID)
	return err
}

// runCompensateQuickBinding compensates an active quick KYC binding: it stops
// being active, leaves GET /v1/kyc/quick, its fee is refunded and
// kyc.quick.compensated is emitted. source is admin or auto (empty: auto);
// applicationID is optional. Control action kyc/quick/{id}/compensate with
// body {"compensation_source": ..., "application_id": ...}.
func (s *Simulator) runCompensateQuickBinding(id, source, applicationID string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.kyc.Compensate(tx, id, source, applicationID)
	return err
}

// setQuickKYC enables or disables quick KYC for the merchant and sets the
// number of unassigned quick profiles left (negative keeps it).
func (s *Simulator) setQuickKYC(enabled bool, pool int) {
	tx := s.k.Begin()
	defer tx.End()
	s.kyc.SetQuick(tx, enabled, pool)
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
	return h.s.cards.BindingWithdrawn(tx, bindingID)
}
