package kyc

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The KYC provider's and the operator's control operations (the actions
// under POST /_sim/kyc/...), in the control engine's form
// (internal/control), over the declaring package's run of one op X. The
// domains the inputs name ("member", "kyc_session", ...) are the
// simulator's registry's; the member a path names (mem_ id, bare uuid or
// external_member_id) is found by the members line, through the lookup
// NewControlOps is given.

// The inputs of the KYC ops.
type (
	// MemberRef names a member.
	MemberRef struct {
		ID string `path:"id" json:"-" dom:"member"`
	}
	// ApproveIn approves a member's profile at a level (none: the level
	// held before the last update).
	ApproveIn struct {
		ID    string `path:"id" json:"-" dom:"member"`
		Level *int   `json:"level" dom:"kyc_approval_level"`
	}
	// SessionRef names a hosted KYC session.
	SessionRef struct {
		ID string `path:"id" json:"-" dom:"kyc_session"`
	}
	// CompensateIn compensates a quick KYC binding.
	CompensateIn struct {
		ID            string `path:"id" json:"-" dom:"quick_binding"`
		Source        string `json:"compensation_source" dom:"compensation_source"`
		ApplicationID string `json:"application_id" dom:"name"`
	}
	// QuickIn is the body of POST /_sim/kyc/quick: what it leaves out
	// keeps its value.
	QuickIn struct {
		Enabled *bool `json:"enabled" dom:"boolean"`
		Pool    *int  `json:"pool" dom:"count"`
	}
)

// ControlOps are the KYC line's ops, by Go method; Supplement has none
// (it is recorded as a call of Action).
type ControlOps[X any] struct {
	Update, Approve, Reject, Supplement, CompleteSession, CompensateQuickBinding, SetQuick *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run, member the member of a mem_ id, bare uuid or external_member_id
// (one that exists: the input's domain checked it).
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx), member func(x X, id string) *api.Member) *ControlOps[X] {
	// memberAction is an action of the KYC provider on a member's
	// profile, answering the profile.
	memberAction := func(action, name string, f func(l *Line, tx *kernel.Tx, m *api.Member) error) *control.Op[X] {
		d := control.Def[X, MemberRef]{
			Route: "POST /_sim/kyc/{id}/" + action, Action: "kyc/" + action, Name: name,
			Run: func(x X, in *MemberRef) (any, error) {
				l, tx := at(x)
				m := member(x, in.ID)
				if err := f(l, tx, m); err != nil {
					return nil, err
				}
				return l.JSON(tx, m), nil
			},
		}
		if name != "" {
			d.Args = func(in *MemberRef) []any { return []any{in.ID} }
		}
		return d.Op()
	}
	return &ControlOps[X]{
		Update: memberAction("update", "KYC.Update", func(l *Line, tx *kernel.Tx, m *api.Member) error { return l.Update(tx, m) }),
		Reject: memberAction("reject", "KYC.Reject", func(l *Line, tx *kernel.Tx, m *api.Member) error {
			return l.Review(tx, m, "rejected")
		}),
		Supplement: memberAction("supplement", "", func(l *Line, tx *kernel.Tx, m *api.Member) error {
			return l.Review(tx, m, "supplement_required")
		}),
		Approve: control.Def[X, ApproveIn]{
			Route: "POST /_sim/kyc/{id}/approve", Action: "kyc/approve", Name: "KYC.Approve",
			Args: func(in *ApproveIn) []any {
				level := 0
				if in.Level != nil {
					level = *in.Level
				}
				return []any{in.ID, level}
			},
			Run: func(x X, in *ApproveIn) (any, error) {
				l, tx := at(x)
				m := member(x, in.ID)
				if err := l.Approve(tx, m, in.Level); err != nil {
					return nil, err
				}
				return l.JSON(tx, m), nil
			},
		}.Op(),
		CompleteSession: control.Def[X, SessionRef]{
			Route: "POST /_sim/kyc/sessions/{id}/complete", Action: "kyc/sessions/complete", Name: "KYC.CompleteSession",
			Args: func(in *SessionRef) []any { return []any{in.ID} },
			Run: func(x X, in *SessionRef) (any, error) {
				l, tx := at(x)
				m, err := l.CompleteSession(tx, in.ID)
				if err != nil {
					return nil, err
				}
				return l.JSON(tx, m), nil
			},
		}.Op(),
		CompensateQuickBinding: control.Def[X, CompensateIn]{
			Route: "POST /_sim/kyc/quick/{id}/compensate", Action: "kyc/quick/compensate", Name: "KYC.CompensateQuickBinding",
			Args: func(in *CompensateIn) []any { return []any{in.ID, in.Source, in.ApplicationID} },
			Run: func(x X, in *CompensateIn) (any, error) {
				l, tx := at(x)
				b, err := l.Compensate(tx, in.ID, in.Source, in.ApplicationID)
				if err != nil {
					return nil, err
				}
				return BindingJSON(b), nil
			},
		}.Op(),
		// POST /_sim/kyc/quick keeps what the body leaves out; without
		// enabled (which SetQuick cannot leave out) it is recorded as the
		// request.
		SetQuick: control.Def[X, QuickIn]{
			Route: "POST /_sim/kyc/quick", Name: "KYC.SetQuick",
			ArgsIf: func(in *QuickIn) ([]any, bool) {
				pool := -1
				if in.Pool != nil {
					pool = *in.Pool
				}
				return []any{in.Enabled != nil && *in.Enabled, pool}, in.Enabled != nil
			},
			Run: func(x X, in *QuickIn) (any, error) {
				l, tx := at(x)
				enabled, pool := l.Quick(tx)
				if in.Enabled != nil {
					enabled = *in.Enabled
				}
				if in.Pool != nil {
					pool = *in.Pool
				}
				l.SetQuick(tx, enabled, pool)
				return map[string]any{"enabled": enabled, "pool": pool}, nil
			},
		}.Op(),
	}
}
