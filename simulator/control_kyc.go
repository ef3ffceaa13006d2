package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/kyc"

// KYCControl plays the KYC provider and the operator of the KYC line
// (sim.KYC): profile updates and reviews, hosted sessions, quick KYC.
// Its methods mirror the control actions under POST /_sim/kyc/....
type KYCControl struct{ s *Simulator }

// Update plays a KYC profile update for a member (mem_ id, bare uuid or
// external_member_id): the profile goes back to review and the level drops
// to 0 (event kyc.result.updated). Control action kyc/{member}/update.
func (k *KYCControl) Update(memberID string) error {
	return k.s.wiring.ctl.perform(opKYCUpdate, &kycMember{ID: memberID})
}

// Approve approves a member's profile at level (1 or 2; 0 keeps the level
// held before the last update). Control action kyc/{member}/approve, body
// {"level": n}.
func (k *KYCControl) Approve(memberID string, level int) error {
	in := &kycApproveIn{ID: memberID}
	if level != 0 {
		in.Level = &level
	}
	return k.s.wiring.ctl.perform(opKYCApprove, in)
}

// Reject rejects a member's profile under review. Control action
// kyc/{member}/reject.
func (k *KYCControl) Reject(memberID string) error {
	return k.s.wiring.ctl.perform(opKYCReject, &kycMember{ID: memberID})
}

// CompleteSession plays the member finishing a hosted KYC screen (ticket
// id with or without kyc_): the link is used up and the profile goes back to
// review. Control action kyc/sessions/{id}/complete.
func (k *KYCControl) CompleteSession(ticketID string) error {
	return k.s.wiring.ctl.perform(opKYCCompleteSession, &kycSessionRef{ID: ticketID})
}

// CompensateQuickBinding compensates an active quick KYC binding: it stops
// being active, leaves GET /v1/kyc/quick, its fee is refunded and
// kyc.quick.compensated is emitted. source is admin or auto (empty: auto);
// applicationID is optional. Control action kyc/quick/{id}/compensate with
// body {"compensation_source": ..., "application_id": ...}.
func (k *KYCControl) CompensateQuickBinding(id, source, applicationID string) error {
	return k.s.wiring.ctl.perform(opKYCCompensateQuickBinding, &compensateIn{ID: id, Source: source, ApplicationID: applicationID})
}

// SetQuick enables or disables quick KYC for the merchant and sets the
// number of unassigned quick profiles left (negative keeps it).
func (k *KYCControl) SetQuick(enabled bool, pool int) error {
	in := &quickIn{Enabled: &enabled}
	if pool >= 0 {
		in.Pool = &pool
	}
	return k.s.wiring.ctl.perform(opKYCSetQuick, in)
}

// The inputs of the KYC ops.
type (
	kycMember struct {
		ID string `path:"id" json:"-" dom:"member"`
	}
	kycApproveIn struct {
		ID    string `path:"id" json:"-" dom:"member"`
		Level *int   `json:"level" dom:"kyc_approval_level"`
	}
	kycSessionRef struct {
		ID string `path:"id" json:"-" dom:"kyc_session"`
	}
	compensateIn struct {
		ID            string `path:"id" json:"-" dom:"quick_binding"`
		Source        string `json:"compensation_source" dom:"compensation_source"`
		ApplicationID string `json:"application_id" dom:"name"`
	}
	// quickIn is the body of POST /_sim/kyc/quick: what it leaves out
	// keeps its value.
	quickIn struct {
		Enabled *bool `json:"enabled" dom:"boolean"`
		Pool    *int  `json:"pool" dom:"count"`
	}
)

// kycMemberAction is an action of the KYC provider on a member's profile,
// answering the profile.
func kycMemberAction(action, name string, f func(x *opRun, m *member) error) *op {
	d := def[kycMember]{
		Route: "POST /_sim/kyc/{id}/" + action, Action: "kyc/" + action, Name: name,
		Run: func(x *opRun, in *kycMember) (any, error) {
			m := x.s.st.members.ByAny(x.tx, in.ID)
			if err := f(x, m); err != nil {
				return nil, err
			}
			return x.s.st.kyc.JSON(x.tx, m), nil
		},
	}
	if name != "" {
		d.Args = func(in *kycMember) []any { return []any{in.ID} }
	}
	return d.Op()
}

var (
	opKYCUpdate = kycMemberAction("update", "KYC.Update", func(x *opRun, m *member) error { return x.s.st.kyc.Update(x.tx, m) })
	opKYCReject = kycMemberAction("reject", "KYC.Reject", func(x *opRun, m *member) error {
		return x.s.st.kyc.Review(x.tx, m, "rejected")
	})
	// supplement has no Go method: it is recorded as a call of Action.
	opKYCSupplement = kycMemberAction("supplement", "", func(x *opRun, m *member) error {
		return x.s.st.kyc.Review(x.tx, m, "supplement_required")
	})
	opKYCApprove = def[kycApproveIn]{
		Route: "POST /_sim/kyc/{id}/approve", Action: "kyc/approve", Name: "KYC.Approve",
		Args: func(in *kycApproveIn) []any {
			level := 0
			if in.Level != nil {
				level = *in.Level
			}
			return []any{in.ID, level}
		},
		Run: func(x *opRun, in *kycApproveIn) (any, error) {
			m := x.s.st.members.ByAny(x.tx, in.ID)
			if err := x.s.st.kyc.Approve(x.tx, m, in.Level); err != nil {
				return nil, err
			}
			return x.s.st.kyc.JSON(x.tx, m), nil
		},
	}.Op()
	opKYCCompleteSession = def[kycSessionRef]{
		Route: "POST /_sim/kyc/sessions/{id}/complete", Action: "kyc/sessions/complete", Name: "KYC.CompleteSession",
		Args: func(in *kycSessionRef) []any { return []any{in.ID} },
		Run: func(x *opRun, in *kycSessionRef) (any, error) {
			m, err := x.s.st.kyc.CompleteSession(x.tx, in.ID)
			if err != nil {
				return nil, err
			}
			return x.s.st.kyc.JSON(x.tx, m), nil
		},
	}.Op()
	opKYCCompensateQuickBinding = def[compensateIn]{
		Route: "POST /_sim/kyc/quick/{id}/compensate", Action: "kyc/quick/compensate", Name: "KYC.CompensateQuickBinding",
		Args: func(in *compensateIn) []any { return []any{in.ID, in.Source, in.ApplicationID} },
		Run: func(x *opRun, in *compensateIn) (any, error) {
			b, err := x.s.st.kyc.Compensate(x.tx, in.ID, in.Source, in.ApplicationID)
			if err != nil {
				return nil, err
			}
			return kyc.BindingJSON(b), nil
		},
	}.Op()
	// POST /_sim/kyc/quick keeps what the body leaves out; without enabled
	// (which SetQuick cannot leave out) it is recorded as the request.
	opKYCSetQuick = def[quickIn]{
		Route: "POST /_sim/kyc/quick", Name: "KYC.SetQuick",
		ArgsIf: func(in *quickIn) ([]any, bool) {
			pool := -1
			if in.Pool != nil {
				pool = *in.Pool
			}
			return []any{in.Enabled != nil && *in.Enabled, pool}, in.Enabled != nil
		},
		Run: func(x *opRun, in *quickIn) (any, error) {
			enabled, pool := x.s.st.kyc.Quick(x.tx)
			if in.Enabled != nil {
				enabled = *in.Enabled
			}
			if in.Pool != nil {
				pool = *in.Pool
			}
			x.s.st.kyc.SetQuick(x.tx, enabled, pool)
			return map[string]any{"enabled": enabled, "pool": pool}, nil
		},
	}.Op()
)

// kycOps declares the KYC line's actions and methods.
var kycOps = []*op{opKYCUpdate, opKYCApprove, opKYCReject, opKYCSupplement, opKYCCompleteSession, opKYCCompensateQuickBinding, opKYCSetQuick}
