package kernel

import "reflect"

// Cell is a named piece of state with one value (a counter, a switch, a
// generator's state, the merchant's settings): a table of one row,
// written through the transaction and undone with a refused step.
// A snapshot holds its value and nothing else (WriteState).
type Cell[T any] struct {
	m    *meta
	v    T
	ulog []T
	sum  sum
}

// NewCell makes the cell name of kernel k, holding v.
func NewCell[T any](k *Kernel, name string, v T, opts ...Option) *Cell[T] {
	m, _ := newMeta(name, opts)
	c := &Cell[T]{m: m, v: v}
	k.register(c, m)
	if k.st.verify {
		c.sum.add(rowHash[int](0, v))
	}
	return c
}

// Get returns the value (a copy).
func (c *Cell[T]) Get(tx *Tx) T { tx.check(); return c.in(tx).v }

// Set sets the value.
func (c *Cell[T]) Set(tx *Tx, v T) {
	tx.wrote(c.m)
	kn := c.m.k
	if kn.st.inStep() && kn.record(c, len(c.ulog), len(c.ulog) == 0) {
		c.ulog = append(c.ulog, c.v)
	}
	c.set(v)
}

// Update changes the value in place of a copy: f changes the copy, which
// is then set.
func (c *Cell[T]) Update(tx *Tx, f func(*T)) {
	v := c.Get(tx)
	f(&v)
	c.Set(tx, v)
}

func (c *Cell[T]) set(v T) {
	if c.m.k.st.verify {
		c.sum.sub(rowHash[int](0, c.v))
		c.sum.add(rowHash[int](0, v))
	}
	c.v = v
}

func (c *Cell[T]) undoWrite(i int) {
	if i != len(c.ulog)-1 {
		panic("kernel: cell " + c.m.name + ": undo out of order")
	}
	c.set(c.ulog[i])
	var zero T
	c.ulog[i] = zero
	c.ulog = c.ulog[:i]
}

func (c *Cell[T]) redo(i int) func(tx *Tx) {
	// The undo runs newest first and asks for a kept write before undoing
	// it: the value now is the value that write set.
	v := c.v
	return func(tx *Tx) { c.Set(tx, v) }
}

func (c *Cell[T]) clearLog() {
	clear(c.ulog)
	c.ulog = c.ulog[:0]
}

// Name is the cell's name.
func (c *Cell[T]) Name() string { return c.m.name }

// Version is the version of its value's type.
func (c *Cell[T]) Version() int { return c.m.version }

// Class is State or Record.
func (c *Cell[T]) Class() Class { return c.m.class }

// KeyType is nil: a cell has no keys.
func (c *Cell[T]) KeyType() reflect.Type { return nil }

// RowType is the type of its value.
func (c *Cell[T]) RowType() reflect.Type { return reflect.TypeFor[T]() }

// Len is 1.
func (c *Cell[T]) Len(tx *Tx) int { tx.check(); return 1 }

// Rows calls f with the value.
func (c *Cell[T]) Rows(tx *Tx, f func(key, row any) bool) { tx.check(); f(nil, c.in(tx).v) }

func (c *Cell[T]) checksum() sum { return c.sum }

func (c *Cell[T]) meta() *meta { return c.m }

func (c *Cell[T]) rebuild() {
	c.sum = sum{}
	if c.m.k.st.verify {
		c.sum.add(rowHash[int](0, c.v))
	}
}
