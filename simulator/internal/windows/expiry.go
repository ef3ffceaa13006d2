package windows

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ExpiryQueue is a FIFO of keys in expiry order. The clock never goes back
// and every window has a fixed length, so insertion order is expiry order
// and sweeping costs only the entries that expire. Its entries are rows by
// position; its meta cell holds where the live entries start and end (and,
// for the image of earlier recordings, where the slice they were kept in
// started). The zero value is no queue; NewExpiryQueue registers one.
type ExpiryQueue struct {
	items *kernel.Table[int64, Expiring]
	meta  *kernel.Cell[QueueMeta]
}

// Expiring is one entry of an ExpiryQueue: Key leaves its window at At.
type Expiring struct {
	Key string
	At  time.Time
}

// QueueMeta is where an ExpiryQueue's entries are: the live ones at
// positions [Head, End); Base is the position of the first entry the
// earlier builds' slice still held (popped entries before Head stay there
// until the slice is compacted), Used whether an entry was ever pushed.
type QueueMeta struct {
	Base, Head, End int64
	Used            bool
}

// NewExpiryQueue registers the queue's table name and its cell name+".meta"
// with k.
func NewExpiryQueue(k *kernel.Kernel, name string) ExpiryQueue {
	return ExpiryQueue{
		items: kernel.NewTable[int64, Expiring](k, name, kernel.Records(), kernel.Ordered()),
		meta:  kernel.NewCell(k, name+".meta", QueueMeta{}, kernel.Records()),
	}
}

// Push queues key to leave its window at at, which is no earlier than any
// entry queued before.
func (q ExpiryQueue) Push(tx *kernel.Tx, key string, at time.Time) {
	m := q.meta.Get(tx)
	q.items.Put(tx, m.End, Expiring{key, at})
	m.End++
	m.Used = true
	q.meta.Set(tx, m)
}

// Len is the number of entries queued.
func (q ExpiryQueue) Len(tx *kernel.Tx) int {
	m := q.meta.Get(tx)
	return int(m.End - m.Head)
}

// Peek returns the oldest entry, if any.
func (q ExpiryQueue) Peek(tx *kernel.Tx) (Expiring, bool) {
	m := q.meta.Get(tx)
	if m.Head >= m.End {
		return Expiring{}, false
	}
	return q.items.Get(tx, m.Head)
}

// Pop removes the oldest entry if it has expired at now.
func (q ExpiryQueue) Pop(tx *kernel.Tx, now time.Time) (Expiring, bool) {
	m := q.meta.Get(tx)
	if m.Head >= m.End {
		return Expiring{}, false
	}
	it, _ := q.items.Get(tx, m.Head)
	if now.Before(it.At) {
		return Expiring{}, false
	}
	q.items.Delete(tx, m.Head)
	m.Head++
	// The earlier builds compacted their slice here (head > 1024 and at
	// least half of it popped); the image of their recordings shows it.
	if h := m.Head - m.Base; h > 1024 && h*2 >= m.End-m.Base {
		m.Base = m.Head
	}
	q.meta.Set(tx, m)
	return it, true
}

// Kept is the queue as the earlier builds' slice held it: the entries from
// its base (the popped ones before head as zero entries), the position of
// the first live one among them, and whether an entry was ever pushed (a
// queue never used had no slice).
func (q ExpiryQueue) Kept(tx *kernel.Tx) (items []Expiring, head int, used bool) {
	m := q.meta.Get(tx)
	if !m.Used {
		return nil, 0, false
	}
	items = make([]Expiring, m.End-m.Base)
	for pos, it := range q.items.All(tx) {
		items[pos-m.Base] = it
	}
	return items, int(m.Head - m.Base), true
}
