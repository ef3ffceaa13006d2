package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// Deduper makes webhook processing at least once under crashes and, short of
// a crash at the wrong moment, exactly once. Delivery is at least once and a
// redelivery keeps the event_id, so a receiver deduplicates by event_id; but
// marking an id as seen before processing it loses the event when the
// process dies in between (the service's retry would be answered as a
// duplicate), and marking it after lets two deliveries in flight process it
// twice. A Deduper therefore keeps two records per event id:
//
//   - a claim: one delivery holds the id for a bounded lease while the
//     function runs. Another delivery of the id meanwhile is refused
//     (Handler answers 409, and the service retries later). A claim whose
//     lease lapsed is taken over by the next delivery: that is how an event
//     whose receiver died mid-way is processed after all;
//   - done: the function succeeded. Every later delivery is a duplicate,
//     acknowledged without processing, for the retention period (longer than
//     the service's 8.6-hour retry schedule).
//
// Handler calls Claim before the function, Done only after it succeeded, and
// Release when it failed or panicked. A process killed between the function's
// success and Done leaves the claim, so the retry after the lease processes
// the event a second time: the one window of a duplicate, which a function
// that records its effect and the event id in one transaction closes.
//
// Times are the handler's clock (WithClock), passed in as now, so a lease
// follows the clock the handler verifies signatures with; implementations
// compare leases with now, never with a clock of their own. Implementations
// must be safe for concurrent use, make Claim atomic (concurrent claims of
// one id: exactly one ClaimAcquired) and honour ctx. MemoryDeduper keeps the
// records in the process; packages redisstore and sqlstore keep them in
// Redis and in a SQL database, which survive the process.
type Deduper interface {
	// Claim takes eventID for processing until now+lease, unless it is done
	// or claimed by a lease that has not lapsed at now. The returned Claim
	// says which; its Token identifies an acquired claim for Release.
	Claim(ctx context.Context, eventID string, now time.Time, lease time.Duration) (Claim, error)
	// Done records eventID as processed at now, whoever holds its claim:
	// every later Claim answers ClaimDone until the retention ends.
	Done(ctx context.Context, eventID string, now time.Time) error
	// Release drops the claim of eventID if token still holds it (a claim
	// taken over after its lease lapsed is left alone), so the next delivery
	// is processed at once. The Handler calls it when the function failed.
	// Releasing a done or unknown id is not an error and changes nothing.
	Release(ctx context.Context, eventID, token string) error
}

// ClaimState is the answer of Deduper.Claim.
type ClaimState int

const (
	// ClaimAcquired: the caller holds the id until Claim.Until; process the
	// event, then call Done (or Release on failure).
	ClaimAcquired ClaimState = iota + 1
	// ClaimHeld: another delivery holds the id until Claim.Until; do not
	// process, answer non-2xx so the service retries later.
	ClaimHeld
	// ClaimDone: the event was processed; acknowledge it without processing.
	ClaimDone
)

// String returns "acquired", "held" or "done".
func (s ClaimState) String() string {
	switch s {
	case ClaimAcquired:
		return "acquired"
	case ClaimHeld:
		return "held"
	case ClaimDone:
		return "done"
	}
	return fmt.Sprintf("ClaimState(%d)", int(s))
}

// Claim is the result of Deduper.Claim.
type Claim struct {
	// State says whether to process (ClaimAcquired), to refuse for now
	// (ClaimHeld) or to acknowledge as a duplicate (ClaimDone).
	State ClaimState
	// Token identifies an acquired claim; pass it to Release. Empty
	// otherwise.
	Token string
	// Until is when the lease ends (ClaimAcquired and ClaimHeld), on the
	// clock Claim was given.
	Until time.Time
}

// NewClaimToken returns a random token for an acquired claim (32 hex
// digits). Deduper implementations may use it.
func NewClaimToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Defaults of MemoryDeduper and of Handler's lease.
const (
	// DefaultDedupeCapacity is the number of event ids remembered.
	DefaultDedupeCapacity = 100_000
	// DefaultDedupeTTL is how long a done event id is remembered: longer
	// than the service's whole retry schedule (1+5+30+120+360 minutes, about
	// 8.6 hours).
	DefaultDedupeTTL = 24 * time.Hour
	// DefaultLease is how long Handler claims an event id while its function
	// runs (WithLease). The service gives an attempt 10 seconds and retries 1
	// and then 5 minutes after a failure, so a receiver that died holding a
	// claim has the event processed by the retry about 6 minutes later.
	DefaultLease = 5 * time.Minute
)

// MemoryDeduperConfig configures NewMemoryDeduper. Zero fields take their
// defaults.
type MemoryDeduperConfig struct {
	// Capacity bounds the number of ids kept; the oldest is evicted first
	// (default 100,000).
	Capacity int
	// TTL is how long a done id is kept (default 24 hours).
	TTL time.Duration
}

// MemoryDeduper is a bounded in-process Deduper: done ids expire after the
// TTL, claims when their lease lapses, and the oldest ids are evicted beyond
// the capacity. It suits a single receiving instance and survives nothing:
// after a crash or restart every id is new, so an event in flight at the
// crash is processed again (at least once), and so is one processed just
// before it whose retry arrives after the restart (a duplicate). Use a
// persistent Deduper (redisstore, sqlstore) for exactly once across restarts
// and instances. It is safe for concurrent use.
type MemoryDeduper struct {
	mu   sync.Mutex
	cap  int
	ttl  time.Duration
	byID map[string]*dedupeEntry
	// order lists the ids by the time of their latest record, oldest first;
	// seq breaks ties and makes stale positions detectable.
	order []orderItem
	seq   uint64
}

type dedupeEntry struct {
	done  bool
	token string
	until time.Time // lease end (claim) or expiry (done)
	seq   uint64
}

type orderItem struct {
	id  string
	seq uint64
}

// NewMemoryDeduper returns an empty MemoryDeduper.
func NewMemoryDeduper(cfg MemoryDeduperConfig) *MemoryDeduper {
	if cfg.Capacity <= 0 {
		cfg.Capacity = DefaultDedupeCapacity
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultDedupeTTL
	}
	return &MemoryDeduper{cap: cfg.Capacity, ttl: cfg.TTL, byID: map[string]*dedupeEntry{}}
}

// Claim implements Deduper.
func (d *MemoryDeduper) Claim(_ context.Context, eventID string, now time.Time, lease time.Duration) (Claim, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweep(now)
	if e, ok := d.byID[eventID]; ok {
		switch {
		case e.done && now.Before(e.until):
			return Claim{State: ClaimDone}, nil
		case !e.done && now.Before(e.until):
			return Claim{State: ClaimHeld, Until: e.until}, nil
		}
	}
	c := Claim{State: ClaimAcquired, Token: NewClaimToken(), Until: now.Add(lease)}
	d.put(eventID, &dedupeEntry{token: c.Token, until: c.Until})
	return c, nil
}

// Done implements Deduper.
func (d *MemoryDeduper) Done(_ context.Context, eventID string, now time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweep(now)
	d.put(eventID, &dedupeEntry{done: true, until: now.Add(d.ttl)})
	return nil
}

// Release implements Deduper.
func (d *MemoryDeduper) Release(_ context.Context, eventID, token string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.byID[eventID]; ok && !e.done && e.token == token {
		delete(d.byID, eventID)
	}
	return nil
}

// Len returns the number of ids held (claims and done records). Expired
// ones are dropped by the next Claim or Done from the oldest on.
func (d *MemoryDeduper) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.byID)
}

// put stores e as the latest record of id and evicts the oldest ids beyond
// the capacity.
func (d *MemoryDeduper) put(id string, e *dedupeEntry) {
	d.seq++
	e.seq = d.seq
	d.byID[id] = e
	d.order = append(d.order, orderItem{id: id, seq: e.seq})
	for len(d.byID) > d.cap && len(d.order) > 0 {
		it := d.order[0]
		d.order = d.order[1:]
		if cur, ok := d.byID[it.id]; ok && cur.seq == it.seq {
			delete(d.byID, it.id)
		}
	}
	// Drop positions whose record was replaced or removed once they
	// outnumber the live ones, so order stays bounded.
	if len(d.order) > 2*len(d.byID)+64 {
		live := d.order[:0]
		for _, it := range d.order {
			if cur, ok := d.byID[it.id]; ok && cur.seq == it.seq {
				live = append(live, it)
			}
		}
		d.order = live
	}
}

// sweep drops, oldest first, the records that expired at now (a done id
// past its TTL, a claim whose lease lapsed) and stops at the first live one.
func (d *MemoryDeduper) sweep(now time.Time) {
	for len(d.order) > 0 {
		it := d.order[0]
		cur, ok := d.byID[it.id]
		if ok && cur.seq == it.seq {
			if now.Before(cur.until) {
				return
			}
			delete(d.byID, it.id)
		}
		d.order = d.order[1:]
	}
}
