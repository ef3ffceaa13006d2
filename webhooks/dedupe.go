package webhooks

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Deduper remembers which event ids were already processed. Delivery is at
// least once and a redelivery keeps the event_id, so a receiver must
// deduplicate by event_id.
//
// The two methods map onto a shared store directly, for example Redis:
// FirstSeen is SET key 1 NX EX ttl (true when the key was set) and Forget is
// DEL key. Use a shared store when several instances receive webhooks.
type Deduper interface {
	// FirstSeen atomically records eventID and reports whether this is the
	// first time it was recorded (true: process the event; false: it is a
	// duplicate, acknowledge it without processing). Concurrent calls with
	// the same id must see exactly one true.
	FirstSeen(ctx context.Context, eventID string) (bool, error)
	// Forget removes eventID, so the next delivery of it is processed. The
	// Handler calls it when processing failed, so the service's retry is
	// not mistaken for a duplicate.
	Forget(ctx context.Context, eventID string) error
}

// Defaults of MemoryDeduper.
const (
	// DefaultDedupeCapacity is the number of event ids remembered.
	DefaultDedupeCapacity = 100_000
	// DefaultDedupeTTL is how long an event id is remembered: longer than
	// the service's whole retry schedule (1+5+30+120+360 minutes, about 8.6
	// hours).
	DefaultDedupeTTL = 24 * time.Hour
)

// MemoryDeduperConfig configures NewMemoryDeduper. Zero fields take their
// defaults.
type MemoryDeduperConfig struct {
	// Capacity bounds the number of ids kept; the oldest is evicted first
	// (default 100,000).
	Capacity int
	// TTL is how long an id is kept (default 24 hours).
	TTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// MemoryDeduper is a bounded in-process Deduper: ids expire after the TTL
// and the oldest ids are evicted beyond the capacity. It suits a single
// receiving instance; it is safe for concurrent use.
type MemoryDeduper struct {
	mu    sync.Mutex
	cap   int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // of *dedupeEntry, oldest first
	byID  map[string]*list.Element
}

type dedupeEntry struct {
	id string
	at time.Time
}

// NewMemoryDeduper returns an empty MemoryDeduper.
func NewMemoryDeduper(cfg MemoryDeduperConfig) *MemoryDeduper {
	if cfg.Capacity <= 0 {
		cfg.Capacity = DefaultDedupeCapacity
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultDedupeTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &MemoryDeduper{cap: cfg.Capacity, ttl: cfg.TTL, now: cfg.Now, order: list.New(), byID: map[string]*list.Element{}}
}

// FirstSeen implements Deduper.
func (d *MemoryDeduper) FirstSeen(_ context.Context, eventID string) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	d.expire(now)
	if _, ok := d.byID[eventID]; ok {
		return false, nil
	}
	d.byID[eventID] = d.order.PushBack(&dedupeEntry{id: eventID, at: now})
	for d.order.Len() > d.cap {
		d.remove(d.order.Front())
	}
	return true, nil
}

// Forget implements Deduper.
func (d *MemoryDeduper) Forget(_ context.Context, eventID string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.byID[eventID]; ok {
		d.remove(e)
	}
	return nil
}

// Len returns the number of ids currently remembered.
func (d *MemoryDeduper) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(d.now())
	return d.order.Len()
}

func (d *MemoryDeduper) expire(now time.Time) {
	for e := d.order.Front(); e != nil; e = d.order.Front() {
		if now.Sub(e.Value.(*dedupeEntry).at) < d.ttl {
			return
		}
		d.remove(e)
	}
}

func (d *MemoryDeduper) remove(e *list.Element) {
	delete(d.byID, e.Value.(*dedupeEntry).id)
	d.order.Remove(e)
}
