package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// KYCControl plays the KYC provider and the operator of the KYC line
// (sim.KYC): profile updates and reviews, hosted sessions, quick KYC.
// Its methods mirror the control actions under POST /_sim/kyc/....
type KYCControl struct{ s *Simulator }

// Update plays a KYC profile update for a member (mem_ id, bare uuid or
// external_member_id): the profile goes back to review and the level drops
// to 0 (event kyc.result.updated). Control action kyc/{member}/update.
func (k *KYCControl) Update(memberID string) error {
	return call1(k.s, ctlKYCUpdate, func() error {
		return unknownID("member", memberID, inTx(k.s, func(tx *kernel.Tx) error {
			m, err := k.s.wiring.ctl.memberOf(memberID)
			if err != nil {
				return err
			}
			return k.s.st.kyc.Update(tx, m)
		}))
	}, memberID)
}

// Approve approves a member's profile at level (0 keeps the level held
// before the last update). Control action kyc/{member}/approve, body
// {"level": n}.
func (k *KYCControl) Approve(memberID string, level int) error {
	return call1(k.s, ctlKYCApprove, func() error {
		return unknownID("member", memberID, inTx(k.s, func(tx *kernel.Tx) error {
			m, err := k.s.wiring.ctl.memberOf(memberID)
			if err != nil {
				return err
			}
			var lv *int
			if level != 0 {
				lv = &level
			}
			return k.s.st.kyc.Approve(tx, m, lv)
		}))
	}, memberID, level)
}

// Reject rejects a member's profile under review. Control action
// kyc/{member}/reject.
func (k *KYCControl) Reject(memberID string) error {
	return call1(k.s, ctlKYCReject, func() error {
		return unknownID("member", memberID, inTx(k.s, func(tx *kernel.Tx) error {
			m, err := k.s.wiring.ctl.memberOf(memberID)
			if err != nil {
				return err
			}
			return k.s.st.kyc.Review(tx, m, "rejected")
		}))
	}, memberID)
}

// CompleteSession plays the member finishing a hosted KYC screen (ticket
// id with or without kyc_): the link is used up and the profile goes back to
// review. Control action kyc/sessions/{id}/complete.
func (k *KYCControl) CompleteSession(ticketID string) error {
	return call1(k.s, ctlKYCCompleteSession, func() error {
		return unknownID("KYC session", ticketID, inTx(k.s, func(tx *kernel.Tx) error { _, err := k.s.st.kyc.CompleteSession(tx, ticketID); return err }))
	}, ticketID)
}

// CompensateQuickBinding compensates an active quick KYC binding: it stops
// being active, leaves GET /v1/kyc/quick, its fee is refunded and
// kyc.quick.compensated is emitted. source is admin or auto (empty: auto);
// applicationID is optional. Control action kyc/quick/{id}/compensate with
// body {"compensation_source": ..., "application_id": ...}.
func (k *KYCControl) CompensateQuickBinding(id, source, applicationID string) error {
	return call1(k.s, ctlKYCCompensateQuickBinding, func() error {
		err := unknownID("quick KYC binding", id, inTx(k.s, func(tx *kernel.Tx) error { _, err := k.s.st.kyc.Compensate(tx, id, source, applicationID); return err }))
		if source != "" {
			err = badName("compensation source", source, []string{"admin", "auto"}, err)
		}
		return err
	}, id, source, applicationID)
}

// SetQuick enables or disables quick KYC for the merchant and sets the
// number of unassigned quick profiles left (negative keeps it).
func (k *KYCControl) SetQuick(enabled bool, pool int) error {
	return call0(k.s, ctlKYCSetQuick, func() {
		_ = inTx(k.s, func(tx *kernel.Tx) error { k.s.st.kyc.SetQuick(tx, enabled, pool); return nil })
	}, enabled, pool)
}

// The names the KYC control methods record their calls under, each declared
// once and used by its method and by kycControls.
const (
	ctlKYCUpdate                 = "KYC.Update"
	ctlKYCApprove                = "KYC.Approve"
	ctlKYCReject                 = "KYC.Reject"
	ctlKYCCompleteSession        = "KYC.CompleteSession"
	ctlKYCCompensateQuickBinding = "KYC.CompensateQuickBinding"
	ctlKYCSetQuick               = "KYC.SetQuick"
)

// kycControls declares the kyc control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var kycControls = []controlDecl{
	{
		name: ctlKYCSetQuick, bind: func(s *Simulator) any { return s.KYC.SetQuick },
		route: "POST /_sim/kyc/quick",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				Enabled *bool `json:"enabled"`
				Pool    *int  `json:"pool"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			tx := s.k.Begin()
			enabled, pool := s.st.kyc.Quick(tx)
			tx.End()
			if in.Enabled != nil {
				enabled = *in.Enabled
			}
			if in.Pool != nil {
				if *in.Pool < 0 {
					return 0, nil, errInvalidRequest("pool must be 0 or more")
				}
				pool = *in.Pool
			}
			if err := s.KYC.SetQuick(enabled, pool); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"enabled": enabled, "pool": pool}, nil
		},
	},
	{name: ctlKYCUpdate, bind: func(s *Simulator) any { return s.KYC.Update }},
	{name: ctlKYCApprove, bind: func(s *Simulator) any { return s.KYC.Approve }},
	{name: ctlKYCReject, bind: func(s *Simulator) any { return s.KYC.Reject }},
	{name: ctlKYCCompleteSession, bind: func(s *Simulator) any { return s.KYC.CompleteSession }},
	{name: ctlKYCCompensateQuickBinding, bind: func(s *Simulator) any { return s.KYC.CompensateQuickBinding }},
}
