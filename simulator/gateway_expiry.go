package simulator

import (
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// sweep deletes the nonces, idempotency records, tokens, step-up
// challenges, QR quote memo entries and remittance idempotency records
// whose window has passed. Nothing is
// deleted inside its window: the memory bounds are kept by refusing new
// entries when a store is full (internal/gateway's StoreFull). It runs on every business
// request; each call costs only what it removes.
//
// It runs in a step of its own: expiry changes state (tokens, step-up
// challenges, the QR quote memo) that no request refuses.
func (g *gateway) sweep(tx *kernel.Tx, now time.Time) {
	ws := g.st.gw
	_ = tx.Step("sweep of the expired windows", func() error {
		for {
			it, ok := ws.nonceQ.Pop(tx, now)
			if !ok {
				break
			}
			if exp, ok := ws.nonces.Get(tx, it.Key); ok && !exp.After(it.At) {
				ws.nonces.Delete(tx, it.Key)
			}
		}
		ws.idem.Sweep(tx, now)
		for {
			it, ok := ws.tokenQ.Pop(tx, now)
			if !ok {
				break
			}
			g.st.tokens.Delete(tx, it.Key)
		}
		for {
			it, ok := ws.challengeQ.Pop(tx, now)
			if !ok {
				break
			}
			g.st.stepUp.Sweep(tx, it.Key, now)
		}
		for {
			it, ok := ws.qrMemoQ.Pop(tx, now)
			if !ok {
				break
			}
			g.st.qr.ExpireMemo(tx, it.Key, now)
		}
		for {
			it, ok := ws.remitIdemQ.Pop(tx, now)
			if !ok {
				break
			}
			g.st.remit.ExpireIdempotencyKey(tx, it.Key, now)
		}
		return nil
	})
}

// expiryWindow is the expiry queue of a line's window (kernel.Tx.ExpireAt):
// the step-up challenges, the QR quote memo and the remittances'
// idempotency records, which sweep tells their line about. since is the
// version of the rules (record.go) from which an input queues its keys on
// it: an input of an earlier build queues none, as it ran.
func (ws *gatewayState) expiryWindow(window string) (q windows.ExpiryQueue, since int, ok bool) {
	switch window {
	case stepup.ExpiryWindow:
		return ws.challengeQ, 0, true
	case qrpay.MemoWindow:
		return ws.qrMemoQ, 0, true
	case remittances.IdempotencyWindow:
		return ws.remitIdemQ, sweepRules, true
	}
	return windows.ExpiryQueue{}, 0, false
}

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
