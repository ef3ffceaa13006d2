package gateway

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// The window stores' caps. A window never forgets an entry inside its
// window, so a cap bounds the store's memory: a full store refuses what
// would add to it (StoreFull), before anything executes, and the refusal
// names the cap and how to raise it.

// StoreCaps are the caps of the window stores in force. They are
// configuration, not state of the contract: a log's header holds the caps
// it began with, and a simulator started with other caps (on a data
// directory, or replaying a recording) logs the change as an input of its
// own (recfile.OpCaps), so that a replay refuses exactly what was refused.
// The state digest leaves them out.
type StoreCaps struct {
	Nonces           int `json:"nonces"`
	IdempotencyKeys  int `json:"idempotency_keys"`
	StepUpChallenges int `json:"step_up_challenges"`
}

// LegacyCaps are the caps of the builds whose logs' headers hold none: a
// replay of one starts under them.
var LegacyCaps = StoreCaps{Nonces: 100_000, IdempotencyKeys: 100_000, StepUpChallenges: 100_000}

// WithDefaults is c with every unset (zero or negative) cap at the
// default's (the simulator's DefaultMax... constants).
func (c StoreCaps) WithDefaults(def StoreCaps) StoreCaps {
	if c.Nonces <= 0 {
		c.Nonces = def.Nonces
	}
	if c.IdempotencyKeys <= 0 {
		c.IdempotencyKeys = def.IdempotencyKeys
	}
	if c.StepUpChallenges <= 0 {
		c.StepUpChallenges = def.StepUpChallenges
	}
	return c
}

// StoreCap names a window store and the flag and option that set its cap,
// for the refusal of a full store.
type StoreCap struct {
	store, entries, flag, option string
}

var (
	// CapNonces names the nonce store.
	CapNonces = StoreCap{"nonce", "nonces", "-max-nonces", "WithMaxNonces"}
	// CapIdempotencyKeys names the idempotency store.
	CapIdempotencyKeys = StoreCap{"idempotency", "idempotency keys", "-max-idempotency-keys", "WithMaxIdempotencyKeys"}
	// CapStepUpChallenges names the step-up challenge store.
	CapStepUpChallenges = StoreCap{"step-up challenge", "step-up challenges", "-max-step-up-challenges", "WithMaxStepUpChallenges"}
)

// StoreFull is the refusal of a request that would add an entry to a full
// window store (which: its names; limit: its cap; q its expiry queue): 400
// service_unavailable with Retry-After set to the seconds until the oldest
// entry leaves the window, and a message that names the store, its cap and
// the flag and option that raise it. It is never stored under an
// idempotency key.
func StoreFull(tx *kernel.Tx, which StoreCap, limit int, q windows.ExpiryQueue, now time.Time) *api.Error {
	secs := int64(1)
	if it, ok := q.Peek(tx); ok {
		if d := it.At.Sub(now); d > 0 {
			secs = max(1, int64((d+time.Second-1)/time.Second))
		}
	}
	ae := api.NewErr("service_unavailable", fmt.Sprintf("the simulator's %s store is full (its cap of %d %s; raise it with mwallet-sim serve %s or simulator.%s); nothing was executed: retry after %d seconds",
		which.store, limit, which.entries, which.flag, which.option, secs))
	ae.Header = map[string]string{"Retry-After": strconv.FormatInt(secs, 10)}
	ae.Transient = true
	return ae
}

// Challenges is the bound of the step-up line's store of challenges
// (internal/stepup's Host): its cap and its expiry queue are the gateway's.
type Challenges struct{ State *State }

// Room refuses a new challenge when the held ones fill the store's cap.
func (c Challenges) Room(tx *kernel.Tx, held int, now time.Time) error {
	if limit := c.State.Caps.Get(tx).StepUpChallenges; held >= limit {
		return StoreFull(tx, CapStepUpChallenges, limit, c.State.ChallengeQ, now)
	}
	return nil
}
