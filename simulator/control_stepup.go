package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// StepUpControl plays the end user on the hosted step-up screen
// (sim.StepUp). Control API: POST /_sim/step-up/{challenge_id}/complete.
type StepUpControl struct{ s *Simulator }

// Complete marks a challenge as completed by the end user, as the
// hosted screen would. It fails for an unknown or expired challenge.
func (su *StepUpControl) Complete(challengeID string) error {
	return call1(su.s, ctlStepUpComplete, func() error {
		return unknownID("step-up challenge", challengeID, inTx(su.s, func(tx *kernel.Tx) error { return su.s.st.stepUp.Complete(tx, challengeID) }))
	}, challengeID)
}

// completeStepUpCall is POST /_sim/step-up/{challenge_id}/complete, the
// HTTP entry of Complete: an unknown challenge is not_found, one that cannot
// be completed (expired) state_invalid.
func completeStepUpCall(s *Simulator, r *http.Request, _ []byte) (string, []any, controlRun, error) {
	id := r.PathValue("challenge_id")
	return "", []any{id}, func(tx *kernel.Tx) (int, any, error) {
		if _, ok := s.st.stepUp.Get(id); !ok {
			return 0, nil, errNotFound("step-up challenge")
		}
		if err := s.st.stepUp.Complete(tx, id); err != nil {
			return 0, nil, newErr("state_invalid", err.Error())
		}
		return http.StatusOK, map[string]any{"challenge_id": id, "completed": true}, nil
	}, nil
}

// The names the StepUp control methods record their calls under, each declared
// once and used by its method and by its declaration in coreControls.
const (
	ctlStepUpComplete = "StepUp.Complete"
)

// Complete is declared with its route among the core routes (control.go),
// where it registers.
