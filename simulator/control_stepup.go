package simulator

// StepUpControl plays the end user on the hosted step-up screen
// (sim.StepUp). Control API: POST /_sim/step-up/{challenge_id}/complete.
type StepUpControl struct{ s *Simulator }

// Complete marks a challenge as completed by the end user, as the
// hosted screen would. It fails for an unknown or expired challenge.
func (su *StepUpControl) Complete(challengeID string) error {
	return su.s.wiring.ctl.perform(opStepUpComplete, &challengeRef{ID: challengeID})
}

// challengeRef is the input of an op on one step-up challenge.
type challengeRef struct {
	ID string `path:"challenge_id" json:"-" dom:"challenge"`
}

// opStepUpComplete is POST /_sim/step-up/{challenge_id}/complete: a
// challenge that cannot be completed (expired) is state_invalid.
var opStepUpComplete = def[challengeRef]{
	Route: "POST /_sim/step-up/{challenge_id}/complete", Name: "StepUp.Complete",
	Args: func(in *challengeRef) []any { return []any{in.ID} },
	Run: func(x *opRun, in *challengeRef) (any, error) {
		if err := x.s.st.stepUp.Complete(x.tx, in.ID); err != nil {
			return nil, newErr("state_invalid", err.Error())
		}
		return map[string]any{"challenge_id": in.ID, "completed": true}, nil
	},
}.Op()

// stepUpOps declares the hosted step-up screen's routes and method.
var stepUpOps = []*op{
	def[challengeRef]{Route: "GET /_sim/step-up/{challenge_id}", Run: func(x *opRun, in *challengeRef) (any, error) {
		ch, _ := x.s.st.stepUp.Get(x.tx, in.ID)
		return map[string]any{
			"challenge_id": ch.ID, "completed": ch.Completed, "used": ch.Used,
			"expires_at": ch.ExpiresAt.Unix(),
			"complete":   "POST /_sim/step-up/" + ch.ID + "/complete",
		}, nil
	}}.Op(),
	opStepUpComplete,
}
