package stepup

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The hosted step-up screen's control operations, in the control engine's
// form (internal/control), over the declaring package's run of one op X.
// The domain the input names ("challenge") is the simulator's registry's.

// ChallengeRef names a step-up challenge.
type ChallengeRef struct {
	ID string `path:"challenge_id" json:"-" dom:"challenge"`
}

// ControlOps are the step-up screen's ops: the challenge as the screen
// shows it (View) and its completion (Complete, the Go method
// StepUp.Complete).
type ControlOps[X any] struct {
	View, Complete *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run.
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx)) *ControlOps[X] {
	return &ControlOps[X]{
		View: control.Def[X, ChallengeRef]{Route: "GET /_sim/step-up/{challenge_id}", Run: func(x X, in *ChallengeRef) (any, error) {
			l, tx := at(x)
			ch, _ := l.Get(tx, in.ID)
			return map[string]any{
				"challenge_id": ch.ID, "completed": ch.Completed, "used": ch.Used,
				"expires_at": ch.ExpiresAt.Unix(),
				"complete":   "POST /_sim/step-up/" + ch.ID + "/complete",
			}, nil
		}}.Op(),
		// POST /_sim/step-up/{challenge_id}/complete: a challenge that
		// cannot be completed (expired) is state_invalid.
		Complete: control.Def[X, ChallengeRef]{
			Route: "POST /_sim/step-up/{challenge_id}/complete", Name: "StepUp.Complete",
			Args: func(in *ChallengeRef) []any { return []any{in.ID} },
			Run: func(x X, in *ChallengeRef) (any, error) {
				l, tx := at(x)
				if err := l.Complete(tx, in.ID); err != nil {
					return nil, api.NewErr("state_invalid", err.Error())
				}
				return map[string]any{"challenge_id": in.ID, "completed": true}, nil
			},
		}.Op(),
	}
}
