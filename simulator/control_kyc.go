package simulator

// KYCControl plays the KYC provider and the operator of the KYC line
// (sim.KYC): profile updates and reviews, hosted sessions, quick KYC.
// Its methods mirror the control actions under POST /_sim/kyc/....
type KYCControl struct{ s *Simulator }

// Update plays a KYC profile update for a member (mem_ id, bare uuid or
// external_member_id): the profile goes back to review and the level drops
// to 0 (event kyc.result.updated). Control action kyc/{member}/update.
func (k *KYCControl) Update(memberID string) error {
	return call1(k.s, "KYC.Update", func() error { return unknownID("member", memberID, k.s.updateKYC(memberID)) }, memberID)
}

// Approve approves a member's profile at level (0 keeps the level held
// before the last update). Control action kyc/{member}/approve, body
// {"level": n}.
func (k *KYCControl) Approve(memberID string, level int) error {
	return call1(k.s, "KYC.Approve", func() error { return unknownID("member", memberID, k.s.approveKYC(memberID, level)) }, memberID, level)
}

// Reject rejects a member's profile under review. Control action
// kyc/{member}/reject.
func (k *KYCControl) Reject(memberID string) error {
	return call1(k.s, "KYC.Reject", func() error { return unknownID("member", memberID, k.s.rejectKYC(memberID)) }, memberID)
}

// CompleteSession plays the member finishing a hosted KYC screen (ticket
// id with or without kyc_): the link is used up and the profile goes back to
// review. Control action kyc/sessions/{id}/complete.
func (k *KYCControl) CompleteSession(ticketID string) error {
	return call1(k.s, "KYC.CompleteSession", func() error { return unknownID("KYC session", ticketID, k.s.runCompleteKYCSession(ticketID)) }, ticketID)
}

// CompensateQuickBinding compensates an active quick KYC binding: it stops
// being active, leaves GET /v1/kyc/quick, its fee is refunded and
// kyc.quick.compensated is emitted. source is admin or auto (empty: auto);
// applicationID is optional. Control action kyc/quick/{id}/compensate with
// body {"compensation_source": ..., "application_id": ...}.
func (k *KYCControl) CompensateQuickBinding(id, source, applicationID string) error {
	return call1(k.s, "KYC.CompensateQuickBinding", func() error {
		err := unknownID("quick KYC binding", id, k.s.runCompensateQuickBinding(id, source, applicationID))
		if source != "" {
			err = badName("compensation source", source, []string{"admin", "auto"}, err)
		}
		return err
	}, id, source, applicationID)
}

// SetQuick enables or disables quick KYC for the merchant and sets the
// number of unassigned quick profiles left (negative keeps it).
func (k *KYCControl) SetQuick(enabled bool, pool int) error {
	return call0(k.s, "KYC.SetQuick", func() { k.s.setQuickKYC(enabled, pool) }, enabled, pool)
}
