package simulator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// stepUpTTL is how long a step-up challenge stays valid.
const stepUpTTL = 5 * time.Minute

// challenge is one strong-authentication challenge: bound to a member and to
// an action digest (for QR payments, a digest of the QR payload), single use.
type challenge struct {
	ID        string
	MemberID  string
	Action    string // digest of the action the challenge authorises
	CreatedAt time.Time
	ExpiresAt time.Time
	Completed bool // the end user finished the hosted screen
	Used      bool
}

// actionDigest returns a stable digest naming an action, for example
// actionDigest("qrpay", codeValue) or actionDigest("card.pin", cardID).
func actionDigest(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// requireStepUp enforces strong authentication for an action. With a valid,
// completed, unexpired, unused challenge for this member and action in
// x-step-up, it consumes the challenge and returns nil. Otherwise it issues a
// new challenge and returns step_up_required with challenge_id, hosted_url and
// expires_at. The gateway never stores step_up_required as an idempotent
// result, so the resend with the same key and x-step-up goes through.
func (s *Simulator) requireStepUp(c *rc, action string) error {
	if s.challenges == nil {
		s.challenges = map[string]*challenge{}
	}
	if id := c.StepUp; id != "" {
		ch := s.challenges[id]
		if ch != nil && ch.Completed && !ch.Used && ch.MemberID == c.Member.ID && ch.Action == action && c.Now.Before(ch.ExpiresAt) {
			ch.Used = true
			return nil
		}
	}
	if len(s.challenges) >= s.gw.maxChallenges {
		return storeFull("step-up challenge", &s.gw.challengeQ, c.Now)
	}
	ch := &challenge{
		ID:        s.newUUID(),
		MemberID:  c.Member.ID,
		Action:    action,
		CreatedAt: c.Now,
		ExpiresAt: c.Now.Add(stepUpTTL),
	}
	s.challenges[ch.ID] = ch
	s.gw.challengeQ.push(ch.ID, ch.ExpiresAt)
	return newErr("step_up_required", "strong authentication required").
		With("challenge_id", ch.ID).
		With("hosted_url", fmt.Sprintf("%s/_sim/step-up/%s", s.URL(), ch.ID)).
		With("expires_at", ch.ExpiresAt.Unix())
}

// runCompleteStepUp marks a challenge as completed by the end user, as the
// hosted screen would. It fails for an unknown or expired challenge.
func (s *Simulator) runCompleteStepUp(challengeID string) error {
	tx := s.k.Begin()
	defer tx.End()
	return s.completeStepUp(tx, challengeID)
}

func (s *Simulator) completeStepUp(tx *kernel.Tx, challengeID string) error {
	ch := s.challenges[challengeID]
	if ch == nil {
		return fmt.Errorf("step-up challenge %q not found", challengeID)
	}
	if !s.clock.Now().Before(ch.ExpiresAt) {
		return fmt.Errorf("step-up challenge %q expired at %s", challengeID, ch.ExpiresAt.Format(time.RFC3339))
	}
	ch.Completed = true
	return nil
}
