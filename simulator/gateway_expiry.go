package simulator

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// expiryQueue is a FIFO of keys in expiry order. The clock never goes back
// and every window has a fixed length, so insertion order is expiry order and
// sweeping costs only the entries that expire.
type expiryQueue struct {
	items []expiring
	head  int
}

type expiring struct {
	key string
	at  time.Time
}

func (q *expiryQueue) push(key string, at time.Time) { q.items = append(q.items, expiring{key, at}) }

func (q *expiryQueue) len() int { return len(q.items) - q.head }

// peek returns the oldest entry, if any.
func (q *expiryQueue) peek() (expiring, bool) {
	if q.head >= len(q.items) {
		return expiring{}, false
	}
	return q.items[q.head], true
}

// pop removes the oldest entry if it has expired at now.
func (q *expiryQueue) pop(now time.Time) (expiring, bool) {
	if q.head >= len(q.items) {
		return expiring{}, false
	}
	it := q.items[q.head]
	if now.Before(it.at) {
		return expiring{}, false
	}
	q.items[q.head] = expiring{}
	q.head++
	if q.head > 1024 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	return it, true
}

// sweep deletes the nonces, idempotency records, tokens, step-up
// challenges and QR quote memo entries whose window has passed. Nothing is
// deleted inside its window: the memory bounds are kept by refusing new
// entries when a store is full (storeFull). It runs on every business
// request; each call costs only what it removes.
func (g *gateway) sweep(tx *kernel.Tx, now time.Time) {
	ws := g.st.gw
	for {
		it, ok := ws.nonceQ.pop(now)
		if !ok {
			break
		}
		if exp, ok := ws.nonces[it.key]; ok && !exp.After(it.at) {
			delete(ws.nonces, it.key)
		}
	}
	ws.idem.sweep(now)
	for {
		it, ok := ws.tokenQ.pop(now)
		if !ok {
			break
		}
		delete(g.st.tokens, it.key)
	}
	for {
		it, ok := ws.challengeQ.pop(now)
		if !ok {
			break
		}
		g.st.stepUp.Sweep(tx, it.key, now)
	}
	for {
		it, ok := ws.qrMemoQ.pop(now)
		if !ok {
			break
		}
		g.st.qr.ExpireMemo(tx, it.key, now)
	}
}

// storeFull is the refusal of a request that would add an entry to a full
// window store (what of them, q its expiry queue): 400 service_unavailable
// with Retry-After set to the seconds until the oldest entry leaves the
// window. It is never stored under an idempotency key.
func storeFull(what string, q *expiryQueue, now time.Time) *apiError {
	secs := int64(1)
	if it, ok := q.peek(); ok {
		if d := it.at.Sub(now); d > 0 {
			secs = max(1, int64((d+time.Second-1)/time.Second))
		}
	}
	ae := newErr("service_unavailable", fmt.Sprintf("the simulator's %s store is full; nothing was executed: retry after %d seconds", what, secs))
	ae.Header = map[string]string{"Retry-After": strconv.FormatInt(secs, 10)}
	ae.Transient = true
	return ae
}
