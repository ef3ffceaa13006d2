package kernel

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// Captures: the state at one instant, read without the state lock.
//
// A snapshot of a data directory, the state digest and the control reads
// that walk the whole state (the ledger, the state dump) used to hold the
// state lock for as long as they encoded, and every request waited. A
// Capture is taken under the lock (Kernel.Capture) and is then read
// without it, while inputs go on changing the live tables:
//
//	tx := k.Begin()
//	c := k.Capture(tx) // a copy of the rows, the keys and the indexes
//	tx.End()           // requests run again
//	rtx := c.Read()    // reads the capture, not the live tables
//	defer rtx.End()
//	... read tables with rtx, as with any transaction ...
//
// Taking one copies every table's rows (a map copy, no row is walked),
// its sorted keys and its indexes, and every cell's value: rows are values
// and Lists are immutable, so the copy shares nothing a later write
// changes. The lock is held for that copy only, not for the reading,
// encoding, hashing or writing that follows.
//
// A transaction of a capture (Capture.Read) reads what every table, index
// and cell held when the capture was taken, and its Now is the clock
// reading taken with it; it writes nothing (a write panics) and holds no
// lock of the kernel, only the capture's own: one reader at a time.

// Capture is the state of a kernel's tables and cells at one instant.
type Capture struct {
	k    *Kernel
	now  time.Time
	tabs []Handle    // the frozen copy of each table and cell, by registry position
	idx  map[any]any // live index -> its frozen copy
	mu   sync.Mutex  // one reader at a time (sorting keys lazily writes)
}

// Capture copies every table and cell of the kernel, under tx (the state
// lock held). The copy is read with Read, without the lock.
func (k *Kernel) Capture(tx *Tx) *Capture {
	tx.check()
	if tx.cap != nil {
		return tx.cap
	}
	c := &Capture{k: k, tabs: make([]Handle, len(k.tables)), idx: map[any]any{}}
	if k.svc != nil {
		c.now = k.svc.Now()
	}
	for i, t := range k.tables {
		c.tabs[i] = t.freeze(c)
	}
	return c
}

// Now is the clock reading taken with the capture.
func (c *Capture) Now() time.Time { return c.now }

// Read begins a transaction that reads the capture. It holds the
// capture's own lock until End, not the state lock.
func (c *Capture) Read() *Tx {
	c.mu.Lock()
	return &Tx{k: c.k, cap: c}
}

// Captured returns the capture tx reads, or nil when tx holds the state
// lock.
func (tx *Tx) Captured() *Capture { tx.check(); return tx.cap }

// Frozen returns the copy of h in the capture: a table or cell of the same
// type holding the rows h held when the capture was taken. The state
// image walks it in place of h.
func (c *Capture) Frozen(h Handle) Handle {
	m := h.meta()
	if m.k != c.k {
		return nil
	}
	return c.tabs[m.pos]
}

// freeze returns a copy of the table that shares nothing a later write
// changes.
func (t *Table[K, V]) freeze(c *Capture) Handle {
	f := &Table[K, V]{m: t.m, rows: maps.Clone(t.rows), ordered: t.ordered, sorted: t.sorted, gen: t.gen, sum: t.sum}
	if f.rows == nil {
		f.rows = map[K]V{}
	}
	if t.ordered || t.sorted {
		f.keys = slices.Clone(t.keys)
	}
	for _, x := range t.idx {
		fx := x.freeze(f)
		f.idx = append(f.idx, fx)
		c.idx[x] = fx
	}
	return f
}

// in returns the table tx reads: t, or its copy in tx's capture.
func (t *Table[K, V]) in(tx *Tx) *Table[K, V] {
	if tx.cap == nil {
		return t
	}
	return tx.cap.tabs[t.m.pos].(*Table[K, V])
}

func (x *Index[K, V, IK]) freeze(t *Table[K, V]) indexer[K, V] {
	return &Index[K, V, IK]{t: t, name: x.name, key: x.key, cmp: x.cmp, ents: slices.Clone(x.ents)}
}

// in returns the index tx reads: x, or its copy in tx's capture.
func (x *Index[K, V, IK]) in(tx *Tx) *Index[K, V, IK] {
	if tx.cap == nil {
		return x
	}
	return tx.cap.idx[x].(*Index[K, V, IK])
}

func (c *Cell[T]) freeze(*Capture) Handle {
	return &Cell[T]{m: c.m, v: c.v, sum: c.sum}
}

// in returns the cell tx reads: c, or its copy in tx's capture.
func (c *Cell[T]) in(tx *Tx) *Cell[T] {
	if tx.cap == nil {
		return c
	}
	return tx.cap.tabs[c.m.pos].(*Cell[T])
}
