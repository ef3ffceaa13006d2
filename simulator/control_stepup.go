package simulator

import (
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

// The names the StepUp control methods record their calls under, each declared
// once and used by its method and by stepUpControls.
const (
	ctlStepUpComplete = "StepUp.Complete"
)

// stepUpControls declares the stepup control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var stepUpControls = []controlDecl{
	{name: ctlStepUpComplete, bind: func(s *Simulator) any { return s.StepUp.Complete }},
}
