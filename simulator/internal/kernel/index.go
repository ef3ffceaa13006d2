package kernel

import (
	"cmp"
	"iter"
	"slices"
	"sort"
)

// Index keeps the rows of a table in the order of a key of their own (IK),
// and among rows of the same IK by the table's key: a list newest first
// with keyset pagination (IK is the creation time and sequence), the
// per-member lists (IK leads with the member id), the pending timers by
// the instant they fall due. It is derived from the rows: a write of the
// table keeps it, the undo of a refused step restores it with the rows, and
// a snapshot does not hold it (ReadState builds it again).
type Index[K cmp.Ordered, V any, IK any] struct {
	t    *Table[K, V]
	name string
	key  func(V) (IK, bool)
	cmp  func(a, b IK) int
	ents []entry[K, IK]
}

type entry[K cmp.Ordered, IK any] struct {
	ik IK
	k  K
}

// indexer is an index as its table keeps it.
type indexer[K cmp.Ordered, V any] interface {
	change(k K, old V, had bool, v V, has bool)
	// build makes the index again from all the rows of its table.
	build(rows map[K]V)
	// freeze copies the index for the copy t of its table (capture.go).
	freeze(t *Table[K, V]) indexer[K, V]
}

// NewIndex adds the index name to table t: key gives a row's index key, or
// false to leave the row out of the index; cmp orders index keys. Make
// indexes when the table is made, before its first write.
func NewIndex[K cmp.Ordered, V any, IK any](t *Table[K, V], name string, key func(V) (IK, bool), cmp func(a, b IK) int) *Index[K, V, IK] {
	x := &Index[K, V, IK]{t: t, name: t.m.name + "/" + name, key: key, cmp: cmp}
	t.idx = append(t.idx, x)
	x.build(t.rows)
	return x
}

func (x *Index[K, V, IK]) compare(a, b entry[K, IK]) int {
	if c := x.cmp(a.ik, b.ik); c != 0 {
		return c
	}
	return cmp.Compare(a.k, b.k)
}

func (x *Index[K, V, IK]) change(k K, old V, had bool, v V, has bool) {
	var oik, nik IK
	var oin, nin bool
	if had {
		oik, oin = x.key(old)
	}
	if has {
		nik, nin = x.key(v)
	}
	if oin && nin && x.cmp(oik, nik) == 0 {
		return
	}
	if oin {
		x.remove(entry[K, IK]{oik, k})
	}
	if nin {
		x.insert(entry[K, IK]{nik, k})
	}
}

func (x *Index[K, V, IK]) insert(e entry[K, IK]) {
	n := len(x.ents)
	if n == 0 || x.compare(x.ents[n-1], e) < 0 {
		x.ents = append(x.ents, e)
		return
	}
	x.own()
	i := sort.Search(n, func(i int) bool { return x.compare(x.ents[i], e) >= 0 })
	x.ents = append(x.ents, entry[K, IK]{})
	copy(x.ents[i+1:], x.ents[i:])
	x.ents[i] = e
}

func (x *Index[K, V, IK]) remove(e entry[K, IK]) {
	x.own()
	n := len(x.ents)
	i := sort.Search(n, func(i int) bool { return x.compare(x.ents[i], e) >= 0 })
	if i == n || x.compare(x.ents[i], e) != 0 {
		panic("kernel: index " + x.name + " lost an entry")
	}
	switch i {
	case 0:
		x.ents[0] = entry[K, IK]{}
		x.ents = x.ents[1:]
	case n - 1:
		x.ents[i] = entry[K, IK]{}
		x.ents = x.ents[:i]
	default:
		copy(x.ents[i:], x.ents[i+1:])
		x.ents[n-1] = entry[K, IK]{}
		x.ents = x.ents[:n-1]
	}
}

// build makes the index from rows in one pass and one sort, in place of a
// sorted insertion per row (quadratic in the rows, in the order a map
// yields them).
func (x *Index[K, V, IK]) build(rows map[K]V) {
	ents := make([]entry[K, IK], 0, len(rows))
	for k, v := range rows {
		if ik, ok := x.key(v); ok {
			ents = append(ents, entry[K, IK]{ik, k})
		}
	}
	slices.SortFunc(ents, x.compare)
	x.ents = ents
}

// Len is the number of rows in the index.
func (x *Index[K, V, IK]) Len(tx *Tx) int { tx.check(); return len(x.in(tx).ents) }

// At returns the row at position i (0 is the smallest), with its index
// key and key.
func (x *Index[K, V, IK]) At(tx *Tx, i int) (IK, K, V) {
	tx.check()
	x = x.in(tx)
	e := x.ents[i]
	return e.ik, e.k, x.t.rowAt(e.k)
}

// Search returns the smallest position whose index key f reports true
// for, or Len when there is none; f must be false, then true, along the
// index (sort.Search).
func (x *Index[K, V, IK]) Search(tx *Tx, f func(IK) bool) int {
	tx.check()
	x = x.in(tx)
	return sort.Search(len(x.ents), func(i int) bool { return f(x.ents[i].ik) })
}

// Range yields the rows at positions from (included) to to (excluded), in
// index order; to > from. The table must not change while the loop runs.
func (x *Index[K, V, IK]) Range(tx *Tx, from, to int) iter.Seq2[K, V] {
	tx.check()
	x = x.in(tx)
	return func(yield func(K, V) bool) {
		gen := x.t.gen
		for i := from; i < to && i < len(x.ents); i++ {
			if x.t.gen != gen {
				panic("kernel: index " + x.name + " changed while iterated")
			}
			k := x.ents[i].k
			if !yield(k, x.t.rowAt(k)) {
				return
			}
		}
	}
}

// All yields every row of the index, in index order.
func (x *Index[K, V, IK]) All(tx *Tx) iter.Seq2[K, V] {
	return x.Range(tx, 0, x.Len(tx))
}

// Backward yields the rows at positions below to, in reverse index order:
// a list newest first from a cursor. The table must not change while the
// loop runs.
func (x *Index[K, V, IK]) Backward(tx *Tx, to int) iter.Seq2[K, V] {
	tx.check()
	x = x.in(tx)
	return func(yield func(K, V) bool) {
		gen := x.t.gen
		for i := min(to, len(x.ents)) - 1; i >= 0; i-- {
			if x.t.gen != gen {
				panic("kernel: index " + x.name + " changed while iterated")
			}
			k := x.ents[i].k
			if !yield(k, x.t.rowAt(k)) {
				return
			}
		}
	}
}
