package simulator

import (
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The step-up line (internal/stepup): its Go control call and its host.

// stepUpHost is the step-up line's stepup.Host: the bounded store of
// challenges is the gateway's (its limit and expiry queue).
type stepUpHost struct {
	st *simState
}

func (h stepUpHost) Room(tx *kernel.Tx, held int, now time.Time) error {
	if c := h.st.gw.Caps.Get(tx).StepUpChallenges; held >= c {
		return pipeline.StoreFull(tx, pipeline.CapStepUpChallenges, c, h.st.gw.ChallengeQ, now)
	}
	return nil
}
