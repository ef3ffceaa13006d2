package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
)

// KYCControl plays the KYC provider and the operator of the KYC line
// (sim.KYC): profile updates and reviews, hosted sessions, quick KYC.
// Its methods mirror the control actions under POST /_sim/kyc/....
type KYCControl struct{ s *Simulator }

// Update plays a KYC profile update for a member (mem_ id, bare uuid or
// external_member_id): the profile goes back to review and the level drops
// to 0 (event kyc.result.updated). Control action kyc/{member}/update.
func (k *KYCControl) Update(memberID string) error {
	return k.s.wiring.ctl.perform(kycLineOps.Update, &kyc.MemberRef{ID: memberID})
}

// Approve approves a member's profile at level (1 or 2; 0 keeps the level
// held before the last update). Control action kyc/{member}/approve, body
// {"level": n}.
func (k *KYCControl) Approve(memberID string, level int) error {
	in := &kyc.ApproveIn{ID: memberID}
	if level != 0 {
		in.Level = &level
	}
	return k.s.wiring.ctl.perform(kycLineOps.Approve, in)
}

// Reject rejects a member's profile under review. Control action
// kyc/{member}/reject.
func (k *KYCControl) Reject(memberID string) error {
	return k.s.wiring.ctl.perform(kycLineOps.Reject, &kyc.MemberRef{ID: memberID})
}

// CompleteSession plays the member finishing a hosted KYC screen (ticket
// id with or without kyc_): the link is used up and the profile goes back to
// review. Control action kyc/sessions/{id}/complete.
func (k *KYCControl) CompleteSession(ticketID string) error {
	return k.s.wiring.ctl.perform(kycLineOps.CompleteSession, &kyc.SessionRef{ID: ticketID})
}

// CompensateQuickBinding compensates an active quick KYC binding: it stops
// being active, leaves GET /v1/kyc/quick, its fee is refunded and
// kyc.quick.compensated is emitted. source is admin or auto (empty: auto);
// applicationID is optional. Control action kyc/quick/{id}/compensate with
// body {"compensation_source": ..., "application_id": ...}.
func (k *KYCControl) CompensateQuickBinding(id, source, applicationID string) error {
	return k.s.wiring.ctl.perform(kycLineOps.CompensateQuickBinding, &kyc.CompensateIn{ID: id, Source: source, ApplicationID: applicationID})
}

// SetQuick enables or disables quick KYC for the merchant and sets the
// number of unassigned quick profiles left (negative keeps it).
func (k *KYCControl) SetQuick(enabled bool, pool int) error {
	in := &kyc.QuickIn{Enabled: &enabled}
	if pool >= 0 {
		in.Pool = &pool
	}
	return k.s.wiring.ctl.perform(kycLineOps.SetQuick, in)
}

// kycLineOps are the KYC line's ops, declared in the line (internal/kyc):
// their transitions need the KYC line, the transaction and the member a
// path names, which the members line finds.
var kycLineOps = kyc.NewControlOps(kycAt,
	func(x *opRun, id string) *member { return x.Sim.st.members.ByAny(x.Tx, id) })

// kycOps declares the KYC line's actions and methods.
var kycOps = []*op{
	kycLineOps.Update, kycLineOps.Approve, kycLineOps.Reject, kycLineOps.Supplement, kycLineOps.CompleteSession,
	kycLineOps.CompensateQuickBinding, kycLineOps.SetQuick,
}

// kycAt is the KYC line and the transaction of a run.
func kycAt(x *opRun) (*kyc.Line, *kernel.Tx) { return x.Sim.st.kyc, x.Tx }
