package kernel

import (
	"cmp"
	"fmt"
	"iter"
	"reflect"
	"slices"
)

// Tables: the state of a simulator, by name.
//
// Every piece of state a transition changes is a row of a named table
// (Table), or the one value of a named cell (Cell), registered with the
// kernel when the simulator is built. Rows are values: a row type holds no
// pointer, map, slice, interface, channel or function (List is the kernel's
// immutable slice; time.Time and money.Amount are immutable values), and
// its fields are exported, so that a row read from a table is a copy that
// nothing else can change, the only way to change a row is a write through
// the transaction (Put, Update, Delete), and the kernel sees every write:
// it keeps the undo log of a step (step.go), the checksum verify mode
// compares, and, by name and version, the rows a snapshot is made of
// (WriteState, state.go).
// CheckRow holds a row type to this; the simulator's tests run it over
// every registered table.
//
// Reads and writes take the transaction, the proof that the state lock is
// held. Iteration is in key order (Ordered tables keep their keys sorted
// as they are written; others sort them when iterated), and an Index keeps
// rows in the order of a key of their own (newest-first lists, per-member
// lists), so answers built from tables are deterministic.

// Class is what a table holds, as a step sees it.
type Class uint8

const (
	// State is the simulator's state: written only inside a step (or in a
	// setup transaction), undone with a refused step.
	State Class = iota
	// Record is what the pipeline records about inputs outside their step
	// (the request journal, nonces, idempotency records, request ids, the
	// rate windows of the gateway, fault counters): written anywhere, and
	// undone like State when written inside a refused step.
	Record
)

func (c Class) String() string {
	if c == Record {
		return "record"
	}
	return "state"
}

// meta is what the kernel knows of a table.
type meta struct {
	k       *Kernel
	name    string
	version int
	class   Class
	pos     int // position in the kernel's registry
	// over is the table's *overlay while a capture shares its rows
	// (capture.go); nil otherwise.
	over any
}

// Option configures a table or a cell when it is made.
type Option func(*meta, *tableOpts)

type tableOpts struct{ ordered bool }

// Version sets the version of a table's row type (1 by default): it goes
// up when the meaning or the shape of its rows changes.
func Version(v int) Option { return func(m *meta, _ *tableOpts) { m.version = v } }

// Records makes a table of class Record.
func Records() Option { return func(m *meta, _ *tableOpts) { m.class = Record } }

// Ordered keeps a table's keys sorted as rows are written (for tables
// iterated often, whose keys mostly grow: sequences, times); an unordered
// table sorts its keys when it is iterated after a change.
func Ordered() Option { return func(_ *meta, o *tableOpts) { o.ordered = true } }

// Handle is a registered table or cell as the simulator sees it without
// its types: for the tests that hold every row type to the rules, verify
// mode and the state written by name (state.go).
type Handle interface {
	// Name is the table's name, unique in its kernel ("cards.cards").
	Name() string
	// Version is the version of its row type.
	Version() int
	// Class is State or Record.
	Class() Class
	// KeyType and RowType are the types of its keys (nil for a cell) and
	// rows.
	KeyType() reflect.Type
	RowType() reflect.Type
	// Len is the number of rows (1 for a cell).
	Len(tx *Tx) int
	// Rows calls f for each row in key order (a cell's value once, with a
	// nil key).
	Rows(tx *Tx, f func(key, row any) bool)
	// checksum is the sum of the hashes of its rows (verify mode).
	checksum() sum
	// rebuild rebuilds what is derived from the rows (sorted keys,
	// indexes, the checksum) after the rows were set by ReadState.
	rebuild()
	// freeze copies the table for a capture (capture.go); meta is what
	// the kernel knows of it.
	freeze(c *Capture) Handle
	meta() *meta
	// fold writes at most *budget of the rows written while a capture
	// shared the table into it, once the capture is released (fold.go),
	// and reports whether none is left.
	fold(budget *int) bool
	// writeState and readState write and read its rows by name
	// (state.go).
	writeState(sw *stateWriter, tx *Tx) error
	readState(sr *stateReader, n int) error
}

// Tables are the registered tables and cells in the order they were made.
func (k *Kernel) Tables() []Handle { return slices.Clone(k.tables) }

// rebuilt rebuilds every table's sorted keys, indexes and checksum from
// its rows, after the rows were set from a state read by name (ReadState).
func (k *Kernel) rebuilt(tx *Tx) {
	tx.check()
	tx.mustLock("rebuilt")
	for _, t := range k.tables {
		t.rebuild()
	}
}

func (k *Kernel) register(h Handle, m *meta) {
	if k.names == nil {
		k.names = map[string]bool{}
	}
	if k.names[m.name] {
		panic("kernel: two tables named " + m.name)
	}
	k.names[m.name] = true
	m.k, m.pos = k, len(k.tables)
	k.tables = append(k.tables, h)
}

func newMeta(name string, opts []Option) (*meta, tableOpts) {
	m := &meta{name: name, version: 1}
	var o tableOpts
	for _, f := range opts {
		f(m, &o)
	}
	return m, o
}

// Table is a named table of rows of type V by key K.
//
// A snapshot holds its rows and nothing else (WriteState): the other
// fields are the kernel's, or derived from the rows.
type Table[K cmp.Ordered, V any] struct {
	m    *meta
	rows map[K]V
	// keys are the keys in order: always, for an Ordered table; when
	// sorted, for another (it sorts them when iterated).
	keys    []K
	ordered bool
	sorted  bool
	// gen counts the changes of the key set (iterators check it).
	gen  uint64
	ulog []undoRow[K, V]
	// kept are the rows kept writes wrote (undoRow.kept), for the redo.
	kept []keptRow[V]
	idx  []indexer[K, V]
	sum  sum
}

// undoRow is one write of a table's undo log: the row before (had: it
// existed); kept is 1 + the position in kept of the row a kept write
// wrote, 0 for another write.
type undoRow[K cmp.Ordered, V any] struct {
	key  K
	old  V
	had  bool
	kept int32
}

// keptRow is the row a kept write wrote (has: it was not a delete).
type keptRow[V any] struct {
	v   V
	has bool
}

// NewTable makes the table name of kernel k.
func NewTable[K cmp.Ordered, V any](k *Kernel, name string, opts ...Option) *Table[K, V] {
	m, o := newMeta(name, opts)
	for _, rt := range []reflect.Type{reflect.TypeFor[K](), reflect.TypeFor[V]()} {
		if at := pointerMarshaler(rt); at != "" {
			panic("kernel: table " + name + ": " + at + " marshals only through a pointer method, which a row's state would not call the same way")
		}
	}
	t := &Table[K, V]{m: m, rows: map[K]V{}, ordered: o.ordered}
	k.register(t, m)
	return t
}

// Name is the table's name.
func (t *Table[K, V]) Name() string { return t.m.name }

// Version is the version of its rows.
func (t *Table[K, V]) Version() int { return t.m.version }

// Class is State or Record.
func (t *Table[K, V]) Class() Class { return t.m.class }

// KeyType is the type of its keys.
func (t *Table[K, V]) KeyType() reflect.Type { return reflect.TypeFor[K]() }

// RowType is the type of its rows.
func (t *Table[K, V]) RowType() reflect.Type { return reflect.TypeFor[V]() }

// Get returns the row of key k (a copy) and whether there is one.
func (t *Table[K, V]) Get(tx *Tx, k K) (V, bool) {
	tx.check()
	return t.in(tx).row(k)
}

// Has reports whether there is a row of key k.
func (t *Table[K, V]) Has(tx *Tx, k K) bool {
	tx.check()
	_, ok := t.in(tx).row(k)
	return ok
}

// Len is the number of rows.
func (t *Table[K, V]) Len(tx *Tx) int { tx.check(); return t.in(tx).len() }

// Put sets the row of key k.
func (t *Table[K, V]) Put(tx *Tx, k K, v V) {
	tx.wrote(t.m)
	old, had := t.row(k)
	t.log(k, old, had, v, true)
	t.set(k, v, true, old, had)
}

// Delete removes the row of key k and reports whether there was one.
func (t *Table[K, V]) Delete(tx *Tx, k K) bool {
	tx.wrote(t.m)
	old, had := t.row(k)
	if !had {
		return false
	}
	var zero V
	t.log(k, old, true, zero, false)
	t.set(k, zero, false, old, true)
	return true
}

// Update changes the row of key k in place of a copy: f changes the copy,
// which is then written. It reports whether there was a row (f is not
// called otherwise). The copy escapes to the heap; on a hot path, Get,
// change and Put.
func (t *Table[K, V]) Update(tx *Tx, k K, f func(*V)) bool {
	tx.wrote(t.m)
	v, ok := t.row(k)
	if !ok {
		return false
	}
	f(&v)
	t.Put(tx, k, v)
	return true
}

// log records a write in the step's undo log.
func (t *Table[K, V]) log(k K, old V, had bool, v V, has bool) {
	kn := t.m.k
	if !kn.st.inStep() {
		return
	}
	e := undoRow[K, V]{key: k, old: old, had: had}
	if kn.st.keep > 0 {
		t.kept = append(t.kept, keptRow[V]{v, has})
		e.kept = int32(len(t.kept))
	}
	if kn.record(t, len(t.ulog), len(t.ulog) == 0) {
		t.ulog = append(t.ulog, e)
	}
}

// set writes the row of key k (has: present) over the row before (old,
// had), keeping the keys, the indexes and the checksum.
func (t *Table[K, V]) set(k K, v V, has bool, old V, had bool) {
	if t.m.k.st.verify {
		if had {
			t.sum.sub(rowHash(k, old))
		}
		if has {
			t.sum.add(rowHash(k, v))
		}
	}
	for _, x := range t.idx {
		x.change(k, old, had, v, has)
	}
	switch {
	case has && !had:
		t.write(k, v, has, had)
		t.gen++
		if t.ordered {
			t.insertKey(k)
		} else {
			t.sorted = false
		}
	case has:
		t.write(k, v, has, had)
	case had:
		t.write(k, v, has, had)
		t.gen++
		if t.ordered {
			t.ownKeys()
			t.keys = removeSorted(t.keys, k)
		} else {
			t.sorted = false
		}
	}
}

func (t *Table[K, V]) undoWrite(i int) {
	if i != len(t.ulog)-1 {
		panic(fmt.Sprintf("kernel: table %s: undo of entry %d of %d", t.m.name, i, len(t.ulog)))
	}
	e := t.ulog[i]
	cur, has := t.row(e.key)
	t.set(e.key, e.old, e.had, cur, has)
	t.ulog[i] = undoRow[K, V]{}
	t.ulog = t.ulog[:i]
}

func (t *Table[K, V]) redo(i int) func(tx *Tx) {
	e := t.ulog[i]
	kr := t.kept[e.kept-1]
	return func(tx *Tx) {
		if kr.has {
			t.Put(tx, e.key, kr.v)
		} else {
			t.Delete(tx, e.key)
		}
	}
}

func (t *Table[K, V]) clearLog() {
	clear(t.ulog)
	if cap(t.ulog) > 1<<12 {
		t.ulog = nil
	} else {
		t.ulog = t.ulog[:0]
	}
	clear(t.kept)
	t.kept = t.kept[:0]
}

// sortedKeys returns the keys in order; the slice is the table's and must
// not be kept past a write.
func (t *Table[K, V]) sortedKeys() []K {
	if !t.ordered && !t.sorted {
		o := t.ov()
		if o != nil && o.keys {
			t.keys, o.keys = nil, false
		} else {
			t.keys = t.keys[:0]
		}
		for k := range t.rows {
			if o != nil {
				if r, ok := o.rows[k]; ok && !r.has {
					continue
				}
			}
			t.keys = append(t.keys, k)
		}
		if o != nil {
			for k, r := range o.rows {
				if _, in := t.rows[k]; r.has && !in {
					t.keys = append(t.keys, k)
				}
			}
		}
		slices.Sort(t.keys)
		t.sorted = true
	}
	return t.keys
}

// All yields the rows in key order. The table must not gain or lose a row
// while the loop runs (it panics then); collect the keys first.
func (t *Table[K, V]) All(tx *Tx) iter.Seq2[K, V] {
	tx.check()
	t = t.in(tx)
	return func(yield func(K, V) bool) {
		keys := t.sortedKeys()
		gen := t.gen
		for _, k := range keys {
			if t.gen != gen {
				panic("kernel: table " + t.m.name + " changed while iterated")
			}
			if !yield(k, t.rowAt(k)) {
				return
			}
		}
	}
}

// Backward yields the rows in reverse key order, under the rule of All.
func (t *Table[K, V]) Backward(tx *Tx) iter.Seq2[K, V] {
	tx.check()
	t = t.in(tx)
	return func(yield func(K, V) bool) {
		keys := t.sortedKeys()
		gen := t.gen
		for i := len(keys) - 1; i >= 0; i-- {
			if t.gen != gen {
				panic("kernel: table " + t.m.name + " changed while iterated")
			}
			if !yield(keys[i], t.rowAt(keys[i])) {
				return
			}
		}
	}
}

// Keys returns the keys in order (a copy).
func (t *Table[K, V]) Keys(tx *Tx) []K {
	tx.check()
	t = t.in(tx)
	return slices.Clone(t.sortedKeys())
}

// First returns the row of the smallest key.
func (t *Table[K, V]) First(tx *Tx) (K, V, bool) {
	tx.check()
	t = t.in(tx)
	keys := t.sortedKeys()
	if len(keys) == 0 {
		var k K
		var v V
		return k, v, false
	}
	return keys[0], t.rowAt(keys[0]), true
}

// Last returns the row of the largest key.
func (t *Table[K, V]) Last(tx *Tx) (K, V, bool) {
	tx.check()
	t = t.in(tx)
	keys := t.sortedKeys()
	if len(keys) == 0 {
		var k K
		var v V
		return k, v, false
	}
	k := keys[len(keys)-1]
	return k, t.rowAt(k), true
}

// Clear deletes every row.
func (t *Table[K, V]) Clear(tx *Tx) {
	for _, k := range t.Keys(tx) {
		t.Delete(tx, k)
	}
}

// Rows calls f for each row in key order.
func (t *Table[K, V]) Rows(tx *Tx, f func(key, row any) bool) {
	for k, v := range t.All(tx) {
		if !f(k, v) {
			return
		}
	}
}

func (t *Table[K, V]) checksum() sum { return t.sum }

func (t *Table[K, V]) meta() *meta { return t.m }

func (t *Table[K, V]) rebuild() {
	if t.m.over != nil {
		panic("kernel: table " + t.m.name + " rebuilt while a capture shares it or its overlay is folded")
	}
	if t.rows == nil {
		t.rows = map[K]V{}
	}
	t.keys, t.sorted = t.keys[:0], false
	if t.ordered {
		for k := range t.rows {
			t.keys = append(t.keys, k)
		}
		slices.Sort(t.keys)
	}
	t.gen++
	t.sum = sum{}
	if t.m.k.st.verify {
		for k, v := range t.rows {
			t.sum.add(rowHash(k, v))
		}
	}
	for _, x := range t.idx {
		x.build(t.rows)
	}
}

func insertSorted[K cmp.Ordered](keys []K, k K) []K {
	if n := len(keys); n == 0 || keys[n-1] < k {
		return append(keys, k)
	}
	i, _ := slices.BinarySearch(keys, k)
	return slices.Insert(keys, i, k)
}

func removeSorted[K cmp.Ordered](keys []K, k K) []K {
	i, found := slices.BinarySearch(keys, k)
	if !found {
		return keys
	}
	switch i {
	case 0:
		var zero K
		keys[0] = zero
		return keys[1:]
	case len(keys) - 1:
		return keys[:i]
	}
	return slices.Delete(keys, i, i+1)
}
