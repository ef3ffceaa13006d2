// Package stepup is the step-up line of the simulator: strong-authentication
// challenges bound to a member and to an action, completed by the end user on
// the hosted screen and used once. The QR payment and card lines require one
// through the simulator (Require); the gateway sweeps the expired ones.
package stepup

import (
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TTL is how long a step-up challenge stays valid.
const TTL = 5 * time.Minute

// Host is what the step-up line needs of the simulator's gateway, beyond
// what every transaction gives (kernel.Tx: the clock, ids, the expiry of
// its challenges): the cap of its bounded store.
type Host interface {
	// Room refuses a new challenge when the bounded store already holds
	// held of them (nil when there is room).
	Room(tx *kernel.Tx, held int, now time.Time) error
}

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

// state holds the challenges by id, and whether the store of challenges
// was opened (by the first request that needed one).
type state struct {
	challenges *kernel.Table[string, challenge]
	opened     *kernel.Cell[bool]
}

// Line is the step-up line: its state, and its host.
type Line struct {
	st   state
	host Host `image:"-"`
}

// ExpiryWindow is the expiry window of the challenges (kernel.Tx.ExpireAt):
// the simulator sweeps a challenge past its expiry (Sweep).
const ExpiryWindow = "stepup/challenges"

// Init sets up a line with no challenges, its tables in kernel k.
func (l *Line) Init(k *kernel.Kernel, h Host) {
	l.st = state{
		challenges: kernel.NewTable[string, challenge](k, "stepup.challenges"),
		opened:     kernel.NewCell(k, "stepup.opened", false),
	}
	l.host = h
}

// Require enforces strong authentication for an action. With a valid,
// completed, unexpired, unused challenge for this member and action in
// x-step-up, it consumes the challenge and returns nil. Otherwise it issues a
// new challenge and returns step_up_required with challenge_id, hosted_url and
// expires_at. The gateway never stores step_up_required as an idempotent
// result, so the resend with the same key and x-step-up goes through.
//
// The challenge a step_up_required answer issues survives the refusal of
// the request (Tx.Keep): the client completes it and sends the request
// again. Consuming a challenge does not: a request refused after it leaves
// the challenge usable.
func (l *Line) Require(c *api.Request, action string) error {
	tx := c.Tx
	if !l.st.opened.Get(tx) {
		tx.Keep(func() { l.st.opened.Set(tx, true) })
	}
	if id := c.StepUp; id != "" {
		ch, ok := l.st.challenges.Get(tx, id)
		if ok && ch.Completed && !ch.Used && ch.MemberID == c.Member.ID && ch.Action == action && c.Now.Before(ch.ExpiresAt) {
			ch.Used = true
			l.st.challenges.Put(tx, ch.ID, ch)
			return nil
		}
	}
	return l.Issue(tx, c.Member.ID, action, c.Now)
}

// Issue makes a new challenge for a member and an action at now and returns
// the step_up_required error that carries it (challenge_id, hosted_url,
// expires_at), or the bounded store's refusal when it is full. Require
// issues one when the request has no usable challenge; an injected
// step_up_required fault issues one for an action no endpoint authorises,
// so its answer is the contract's (the end user can complete it; the
// resend is asked for a challenge of its own action). The challenge
// survives the refusal of the request that made it (Tx.Keep).
func (l *Line) Issue(tx *kernel.Tx, memberID, action string, now time.Time) error {
	if !l.st.opened.Get(tx) {
		tx.Keep(func() { l.st.opened.Set(tx, true) })
	}
	if err := l.host.Room(tx, l.st.challenges.Len(tx), now); err != nil {
		return err
	}
	var ch challenge
	tx.Keep(func() {
		ch = challenge{
			ID:        tx.NewUUID(),
			MemberID:  memberID,
			Action:    action,
			CreatedAt: now,
			ExpiresAt: now.Add(TTL),
		}
		l.st.challenges.Put(tx, ch.ID, ch)
		tx.ExpireAt(ExpiryWindow, ch.ID, ch.ExpiresAt)
	})
	return api.NewErr("step_up_required", "strong authentication required").
		With("challenge_id", ch.ID).
		With("hosted_url", fmt.Sprintf("%s/_sim/step-up/%s", tx.URL(), ch.ID)).
		With("expires_at", ch.ExpiresAt.Unix())
}

// Complete marks a challenge as completed by the end user, as the hosted
// screen would. It fails for an unknown or expired challenge.
func (l *Line) Complete(tx *kernel.Tx, challengeID string) error {
	ch, ok := l.st.challenges.Get(tx, challengeID)
	if !ok {
		return fmt.Errorf("step-up challenge %q not found", challengeID)
	}
	if !tx.Now().Before(ch.ExpiresAt) {
		return fmt.Errorf("step-up challenge %q expired at %s", challengeID, ch.ExpiresAt.Format(time.RFC3339))
	}
	ch.Completed = true
	l.st.challenges.Put(tx, ch.ID, ch)
	return nil
}

// Challenge is what the hosted screen shows of a challenge.
type Challenge struct {
	ID        string
	Completed bool
	Used      bool
	ExpiresAt time.Time
}

// Get returns the challenge of id.
func (l *Line) Get(tx *kernel.Tx, id string) (Challenge, bool) {
	ch, ok := l.st.challenges.Get(tx, id)
	if !ok {
		return Challenge{}, false
	}
	return Challenge{ID: ch.ID, Completed: ch.Completed, Used: ch.Used, ExpiresAt: ch.ExpiresAt}, true
}

// Sweep drops challenge id when it has expired by now.
func (l *Line) Sweep(tx *kernel.Tx, id string, now time.Time) {
	if ch, ok := l.st.challenges.Get(tx, id); ok && !now.Before(ch.ExpiresAt) {
		l.st.challenges.Delete(tx, id)
	}
}

// Len is the number of challenges held.
func (l *Line) Len(tx *kernel.Tx) int { return l.st.challenges.Len(tx) }

// Legacy is the step-up line as the state image of recordings of versions
// 1 and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	Challenges map[string]*challenge
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it: no map until the store was opened.
func (l *Line) Legacy(tx *kernel.Tx) Legacy {
	var st legacyState
	if l.st.opened.Get(tx) {
		st.Challenges = map[string]*challenge{}
		for id, ch := range l.st.challenges.All(tx) {
			st.Challenges[id] = &ch
		}
	}
	return Legacy{St: st}
}
