package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
)

// The step-up line (internal/stepup): its Go control call and its host.

// actionDigest returns a stable digest naming an action (stepup.ActionDigest).
func actionDigest(parts ...string) string { return stepup.ActionDigest(parts...) }

// requireStepUp enforces strong authentication for an action of a business
// request (stepup.Line.Require).
func (g *gateway) requireStepUp(c *rc, action string) error { return g.st.stepUp.Require(c, action) }

// stepUpHost is the step-up line's stepup.Host: the bounded store of
// challenges is the gateway's (its limit and expiry queue).
type stepUpHost struct{ s *Simulator }

func (h stepUpHost) URL() string { return h.s.URL() }

func (h stepUpHost) Room(_ *kernel.Tx, held int, now time.Time) error {
	if held >= h.s.st.gw.maxChallenges {
		return storeFull("step-up challenge", &h.s.st.gw.challengeQ, now)
	}
	return nil
}

func (h stepUpHost) Expires(_ *kernel.Tx, id string, at time.Time) { h.s.st.gw.challengeQ.push(id, at) }
