package simulator

import pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"

// The window stores' caps. A window never forgets an entry inside its
// window, so a cap bounds the store's memory: a full store refuses what
// would add to it, before anything executes, and the refusal names the cap
// and how to raise it. The defaults are sized in
// simulator/guide/gateway.md (Bounded stores): the nonce store holds the
// five-minute window of the simulator's peak signed-write rate; the
// idempotency store holds as much of the 24-hour window as memory allows.
const (
	// DefaultMaxNonces is the default cap of the nonce store
	// (WithMaxNonces, mwallet-sim serve -max-nonces): the consumed nonces of
	// the last five minutes.
	DefaultMaxNonces = 2_000_000
	// DefaultMaxIdempotencyKeys is the default cap of the idempotency
	// store (WithMaxIdempotencyKeys, -max-idempotency-keys): the keyed
	// writes of the last 24 hours, each with its stored answer.
	DefaultMaxIdempotencyKeys = 1_000_000
	// DefaultMaxStepUpChallenges is the default cap of the step-up
	// challenge store (WithMaxStepUpChallenges, -max-step-up-challenges):
	// the challenges of the last five minutes.
	DefaultMaxStepUpChallenges = 1_000_000
)

// defaultCaps are the caps a simulator starts with where none is set.
var defaultCaps = storeCaps{Nonces: DefaultMaxNonces, IdempotencyKeys: DefaultMaxIdempotencyKeys, StepUpChallenges: DefaultMaxStepUpChallenges}

// storeCaps are the caps of the window stores in force (internal/gateway's
// StoreCaps, refused by its StoreFull), configuration a log's header and
// its caps inputs carry.
type storeCaps = pipeline.StoreCaps

// legacyCaps are the caps of the builds whose logs' headers hold none: a
// replay of one starts under them.
var legacyCaps = pipeline.LegacyCaps
