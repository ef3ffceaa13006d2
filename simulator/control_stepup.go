package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/kernel"

// StepUpControl plays the end user on the hosted step-up screen
// (sim.StepUp). Control API: POST /_sim/step-up/{challenge_id}/complete.
type StepUpControl struct{ s *Simulator }

// Complete marks a challenge as completed by the end user, as the
// hosted screen would. It fails for an unknown or expired challenge.
func (su *StepUpControl) Complete(challengeID string) error {
	return call1(su.s, "StepUp.Complete", func() error {
		return unknownID("step-up challenge", challengeID, inTx(su.s, func(tx *kernel.Tx) error { return su.s.st.stepUp.Complete(tx, challengeID) }))
	}, challengeID)
}
