package members

import (
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The member actions whose transitions need only the members line and
// the transaction, in the control engine's form (internal/control), over
// the declaring package's run of one op X. The domains the inputs name
// ("member", "member_status", "boolean") are the simulator's registry's;
// creating a member, reading one and its balances (the operator's view of
// the ledger and the other lines) are in control_member_ops.go.

// The inputs of the member ops declared here.
type (
	// StatusIn sets a member's status (mem_ id, bare uuid or
	// external_member_id).
	StatusIn struct {
		ID     string `path:"id" json:"-" dom:"member"`
		Status string `json:"status" dom:"member_status,req"`
	}
	// FlagIn sets a member's funds protection.
	FlagIn struct {
		ID      string `path:"id" json:"-" dom:"member"`
		Enabled *bool  `json:"enabled" dom:"boolean,req"`
	}
)

// ControlOps are the member ops declared here, by Go method.
type ControlOps[X any] struct {
	SetStatus, SetFundsProtection *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run.
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx)) *ControlOps[X] {
	return &ControlOps[X]{
		SetStatus: control.Def[X, StatusIn]{
			Route: "POST /_sim/members/{id}/status", Action: "members/status", Name: "Members.SetStatus",
			Args: func(in *StatusIn) []any { return []any{in.ID, in.Status} },
			Run: func(x X, in *StatusIn) (any, error) {
				l, tx := at(x)
				m, err := l.SetStatus(tx, in.ID, in.Status)
				if err != nil {
					return nil, err
				}
				return JSON(m), nil
			},
		}.Op(),
		SetFundsProtection: control.Def[X, FlagIn]{
			Route: "POST /_sim/members/{id}/funds_protection", Name: "Members.SetFundsProtection",
			Args: func(in *FlagIn) []any { return []any{in.ID, *in.Enabled} },
			Run: func(x X, in *FlagIn) (any, error) {
				l, tx := at(x)
				if err := l.SetFundsProtected(tx, in.ID, *in.Enabled); err != nil {
					return nil, err
				}
				return map[string]any{"member": in.ID, "funds_protection": *in.Enabled}, nil
			},
		}.Op(),
	}
}
