package gateway

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// Expired is told of the entries a sweep expires outside the gateway's own
// stores: an access token, a step-up challenge, a QR quote memo entry, a
// remittance idempotency record.
type Expired interface {
	Token(tx *kernel.Tx, value string)
	Challenge(tx *kernel.Tx, id string, now time.Time)
	QRMemo(tx *kernel.Tx, key string, now time.Time)
	RemittanceKey(tx *kernel.Tx, key string, now time.Time)
}

// Sweep deletes the nonces, idempotency records, tokens, step-up
// challenges, QR quote memo entries and remittance idempotency records
// whose window has passed (telling ex of those the gateway does not hold).
// Nothing is deleted inside its window: the memory bounds are kept by
// refusing new entries when a store is full (StoreFull). It runs on every
// business request; each call costs only what it removes.
//
// It runs in a step of its own: expiry changes state (tokens, step-up
// challenges, the QR quote memo) that no request refuses.
func (g *State) Sweep(tx *kernel.Tx, now time.Time, ex Expired) {
	_ = tx.Step("sweep of the expired windows", func() error {
		drain(tx, g.NonceQ, now, func(key string, at time.Time) {
			if exp, ok := g.Nonces.Get(tx, key); ok && !exp.After(at) {
				g.Nonces.Delete(tx, key)
			}
		})
		g.Idem.Sweep(tx, now)
		drain(tx, g.TokenQ, now, func(key string, _ time.Time) { ex.Token(tx, key) })
		drain(tx, g.ChallengeQ, now, func(key string, _ time.Time) { ex.Challenge(tx, key, now) })
		drain(tx, g.QRMemoQ, now, func(key string, _ time.Time) { ex.QRMemo(tx, key, now) })
		drain(tx, g.RemitIdemQ, now, func(key string, _ time.Time) { ex.RemittanceKey(tx, key, now) })
		return nil
	})
}

// drain pops every entry of q due at now, in order, handing each to f.
func drain(tx *kernel.Tx, q windows.ExpiryQueue, now time.Time, f func(key string, at time.Time)) {
	for {
		it, ok := q.Pop(tx, now)
		if !ok {
			return
		}
		f(it.Key, it.At)
	}
}
