package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
)

// StepUpControl plays the end user on the hosted step-up screen
// (sim.StepUp). Control API: POST /_sim/step-up/{challenge_id}/complete.
type StepUpControl struct{ s *Simulator }

// Complete marks a challenge as completed by the end user, as the
// hosted screen would. It fails for an unknown or expired challenge.
func (su *StepUpControl) Complete(challengeID string) error {
	return su.s.wiring.ctl.perform(stepUpLineOps.Complete, &stepup.ChallengeRef{ID: challengeID})
}

// stepUpLineOps are the hosted step-up screen's ops, declared in the line
// (internal/stepup): they need only the step-up line and the transaction.
var stepUpLineOps = stepup.NewControlOps(stepUpAt)

// stepUpOps declares the hosted step-up screen's routes and method.
var stepUpOps = []*op{stepUpLineOps.View, stepUpLineOps.Complete}

// stepUpAt is the step-up line and the transaction of a run.
func stepUpAt(x *opRun) (*stepup.Line, *kernel.Tx) { return &x.Sim.st.stepUp, x.Tx }
