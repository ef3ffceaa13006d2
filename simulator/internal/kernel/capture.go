package kernel

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Captures: the state at one instant, read without the state lock.
//
// A snapshot of a data directory, the state digest and the control reads
// that walk the whole state (the ledger, the state dump) used to hold the
// state lock for as long as they encoded, and every request waited. A
// Capture is taken under the lock and is then read without it, while
// inputs go on changing the live tables:
//
//	tx := k.BeginCapture(false) // waits for the capture before to be released
//	c := k.Capture(tx)          // shares the tables' rows: no row is copied
//	tx.End()                    // requests run again
//	rtx := c.Read()             // reads the capture, not the live tables
//	... read tables with rtx, as with any transaction ...
//	rtx.End()
//	c.Release()                 // folds the writes made meanwhile
//
// Taking one copies nothing that grows with the state: the capture shares
// each table's rows, its sorted keys and its indexes with the live table,
// and from then on the live table writes its rows to an overlay (read
// before the shared rows), so the shared rows stay as they were; a sorted
// key list or an index is copied by the first write that would change the
// part the capture shares (appending at the end changes nothing it
// shares). Cells are values: the capture copies them. Rows are values and
// Lists are immutable, so what the capture shares is never changed under
// it. Release folds the overlays into the rows a batch at a time, taking
// the state lock for each batch (fold.go): a request waits for one batch
// at most, whatever the number of rows written while the capture lived.
//
// One capture lives at a time: BeginCapture waits, before it takes the
// state lock, for the one before to be released and folded.
//
// A transaction of a capture (Capture.Read) reads what every table, index
// and cell held when the capture was taken, and its Now is the clock
// reading taken with it; it writes nothing (a write panics) and holds no
// lock of the kernel, only the capture's own: one reader at a time.

// Capture is the state of a kernel's tables and cells at one instant.
type Capture struct {
	k    *Kernel
	now  time.Time
	tabs []Handle    // the frozen view of each table and cell, by registry position
	idx  map[any]any // live index -> its frozen view
	// mu is held by the reader (one at a time: sorting keys lazily
	// writes); released is set by Release, after which nothing reads it.
	mu       sync.Mutex
	released bool
	once     sync.Once
}

// overlay holds the rows a table writes while a capture shares its rows:
// a row, or its deletion (has false), by key. keys and idx say which of
// the table's derived lists the capture still shares. Once the capture is
// released (folding), the rows left are folded into the table's rows a
// batch at a time (fold.go), and writes go to the rows, taking their key
// out of the overlay.
type overlay[K cmp.Ordered, V any] struct {
	rows    map[K]ovRow[V]
	n       int // the number of rows of the table
	keys    bool
	idx     map[any]bool
	folding bool
}

type ovRow[V any] struct {
	v   V
	has bool
}

// BeginCapture begins a transaction in which Capture may be called: it
// waits until no capture lives (outside the state lock), then takes the
// state lock as Begin does, or the input order and the state lock as
// BeginInput does when input is set. A transaction that takes no capture
// frees the capture's place when it ends.
func (k *Kernel) BeginCapture(input bool) *Tx {
	k.capMu.Lock()
	var tx *Tx
	if input {
		tx = k.BeginInput()
	} else {
		tx = k.Begin()
	}
	tx.slot = true
	return tx
}

// Capture captures every table and cell of the kernel, under tx (begun
// with BeginCapture). The capture is read with Read, without the lock, and
// must be released (Release) once read.
func (k *Kernel) Capture(tx *Tx) *Capture {
	tx.check()
	if tx.cap != nil {
		return tx.cap
	}
	if !tx.slot {
		panic("kernel: Capture in a transaction not begun with BeginCapture")
	}
	tx.slot = false
	c := &Capture{k: k, tabs: make([]Handle, len(k.tables)), idx: map[any]any{}}
	if k.svc != nil {
		c.now = k.svc.Now()
	}
	for i, t := range k.tables {
		c.tabs[i] = t.freeze(c)
	}
	return c
}

// Release ends the capture: no reader may read it after, and the rows
// the tables wrote meanwhile are folded into them (fold.go), a batch of
// rows per hold of the state lock (do not hold it), so that requests run
// between two batches; it returns once every table is folded, and only
// then may the next capture be taken. Release is idempotent.
func (c *Capture) Release() {
	c.once.Do(func() {
		c.mu.Lock()
		c.released = true
		c.mu.Unlock()
		c.k.foldAll()
		c.k.capMu.Unlock()
	})
}

// Now is the clock reading taken with the capture.
func (c *Capture) Now() time.Time { return c.now }

// Read begins a transaction that reads the capture. It holds the
// capture's own lock until End, not the state lock.
func (c *Capture) Read() *Tx {
	c.mu.Lock()
	if c.released {
		c.mu.Unlock()
		panic("kernel: a capture read after its release")
	}
	return &Tx{k: c.k, cap: c}
}

// ReadOnce is Read for the last reading of the capture: End releases it.
func (c *Capture) ReadOnce() *Tx {
	tx := c.Read()
	tx.release = true
	return tx
}

// Captured returns the capture tx reads, or nil when tx holds the state
// lock.
func (tx *Tx) Captured() *Capture { tx.check(); return tx.cap }

// freeze returns the view of the table a capture reads: its rows, keys
// and indexes shared, its meta its own (without the overlay); the live
// table writes its rows to an overlay from now on.
func (t *Table[K, V]) freeze(c *Capture) Handle {
	if t.m.over != nil {
		panic("kernel: table " + t.m.name + " captured twice")
	}
	fm := *t.m
	f := &Table[K, V]{m: &fm, rows: t.rows, ordered: t.ordered, sorted: t.sorted, gen: t.gen, sum: t.sum}
	o := &overlay[K, V]{rows: map[K]ovRow[V]{}, n: len(t.rows), idx: map[any]bool{}}
	if t.ordered || t.sorted {
		// A view whose keys are not sorted sorts its own.
		f.keys, o.keys = t.keys, true
	}
	for _, x := range t.idx {
		fx := x.freeze(f)
		f.idx = append(f.idx, fx)
		c.idx[x] = fx
		o.idx[x] = true
	}
	t.m.over = o
	return f
}

// ov is the table's overlay, while a capture shares its rows and until
// the rows written meanwhile are folded.
func (t *Table[K, V]) ov() *overlay[K, V] {
	if t.m.over == nil {
		return nil
	}
	return t.m.over.(*overlay[K, V])
}

// row reads the row of key k: from the overlay, then the rows.
func (t *Table[K, V]) row(k K) (V, bool) {
	if o := t.ov(); o != nil {
		if r, ok := o.rows[k]; ok {
			return r.v, r.has
		}
	}
	v, ok := t.rows[k]
	return v, ok
}

// rowAt is the row of key k, which is in the table.
func (t *Table[K, V]) rowAt(k K) V {
	v, _ := t.row(k)
	return v
}

// len is the number of rows.
func (t *Table[K, V]) len() int {
	if o := t.ov(); o != nil {
		return o.n
	}
	return len(t.rows)
}

// write writes the row of key k (has: present; had: it was): to the
// overlay while a capture shares the rows; to the rows, out of the
// overlay, while the overlay is folded.
func (t *Table[K, V]) write(k K, v V, has, had bool) {
	if o := t.ov(); o != nil {
		switch {
		case has && !had:
			o.n++
		case had && !has:
			o.n--
		}
		if !o.folding {
			o.rows[k] = ovRow[V]{v, has}
			return
		}
		delete(o.rows, k)
	}
	if has {
		t.rows[k] = v
	} else {
		delete(t.rows, k)
	}
}

// insertKey adds k to the sorted keys of an ordered table: appended at the
// end when it is the largest (which leaves the keys a capture shares as
// they were), inserted in a copy of its own otherwise.
func (t *Table[K, V]) insertKey(k K) {
	if n := len(t.keys); n == 0 || t.keys[n-1] < k {
		t.keys = append(t.keys, k)
		return
	}
	t.ownKeys()
	t.keys = insertSorted(t.keys, k)
}

// ownKeys copies the sorted keys when a capture shares them, before they
// change in place.
func (t *Table[K, V]) ownKeys() {
	if o := t.ov(); o != nil && o.keys {
		t.keys, o.keys = slices.Clone(t.keys), false
	}
}

// in returns the table tx reads: t, or its copy in tx's capture.
func (t *Table[K, V]) in(tx *Tx) *Table[K, V] {
	if tx.cap == nil {
		return t
	}
	return tx.cap.tabs[t.m.pos].(*Table[K, V])
}

func (x *Index[K, V, IK]) freeze(t *Table[K, V]) indexer[K, V] {
	return &Index[K, V, IK]{t: t, name: x.name, key: x.key, cmp: x.cmp, ents: x.ents}
}

// own copies the entries when a capture shares them, before they change
// in place (appending at the end does not).
func (x *Index[K, V, IK]) own() {
	if o := x.t.ov(); o != nil && o.idx[x] {
		x.ents = slices.Clone(x.ents)
		delete(o.idx, x)
	}
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
