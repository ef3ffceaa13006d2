package simulator

import (
	"crypto/sha256"
	"net/http"
	"time"
)

// idemRecord is the stored result of an idempotent request.
type idemRecord struct {
	endpoint   string            // METHOD and escaped path
	bodyHash   [sha256.Size]byte // keyed digest (bodyDigest), never a plain hash
	expiresAt  time.Time
	inProgress bool
	status     int
	header     http.Header
	body       []byte
	code       string
}

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

// pop removes the oldest entry if it has expired at now (or force is set).
func (q *expiryQueue) pop(now time.Time, force bool) (expiring, bool) {
	if q.head >= len(q.items) {
		return expiring{}, false
	}
	it := q.items[q.head]
	if !force && now.Before(it.at) {
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

// sweepLocked deletes expired nonces, idempotency records and tokens, and
// enforces the memory bounds. It runs on every request; each call costs only
// what it removes.
func (s *Simulator) sweepLocked(now time.Time) {
	g := s.gw
	for {
		it, ok := g.nonceQ.pop(now, g.nonceQ.len() > g.maxNonces)
		if !ok {
			break
		}
		if exp, ok := g.nonces[it.key]; ok && !exp.After(it.at) {
			delete(g.nonces, it.key)
		}
	}
	for {
		it, ok := g.idemQ.pop(now, g.idemQ.len() > g.maxIdem)
		if !ok {
			break
		}
		rec, ok := g.idem[it.key]
		if !ok || rec.expiresAt.After(it.at) {
			continue // replaced by a newer record, which has its own entry
		}
		if rec.inProgress && !now.Before(it.at) && g.idemQ.len() <= g.maxIdem {
			// Still running after its window (a held request): look again later.
			g.idemQ.push(it.key, it.at)
			break
		}
		delete(g.idem, it.key)
	}
	for {
		it, ok := g.tokenQ.pop(now, false)
		if !ok {
			break
		}
		delete(s.tokens, it.key)
	}
}
