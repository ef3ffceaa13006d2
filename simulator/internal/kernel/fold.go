package kernel

import "runtime"

// The fold of a released capture, a batch of rows at a time.
//
// While a capture lives, each table writes its rows to an overlay
// (capture.go). Once the capture is released nothing reads what it
// shared, and Release folds the overlays back into the tables' rows:
// it takes the state lock, folds at most a batch of rows (foldBatch),
// releases the lock so that the requests waiting for it run, and again,
// until no overlay is left. Meanwhile:
//
//   - reads consult a table's overlay first, as while the capture lived:
//     a row not folded yet is read from it;
//   - a write goes to the rows and takes its key out of the overlay (a
//     row folded after it would undo it), so an overlay only shrinks and
//     the fold ends;
//   - the row count is the overlay's (overlay.n), which every write
//     keeps, until the overlay is dropped (it is then len(rows));
//   - the sorted keys, the indexes and the checksum hold keys and sums,
//     not where a row lives: folding a row changes none of them, nor the
//     order of iteration; they are no longer shared, so a write changes
//     them in place;
//   - a table registered meanwhile has no overlay to fold;
//   - the next capture waits: the capture's place (Kernel.capMu) is freed
//     after the last batch, when every overlay is dropped.
//
// The tables end as a fold under one hold of the lock leaves them: each
// key holds the last row written to it.

// defaultFoldBatch is the number of rows folded per hold of the state
// lock: a map write and a map delete each.
const defaultFoldBatch = 4096

// foldAll folds every table's overlay, a batch per hold of the state
// lock; the state lock must not be held.
func (k *Kernel) foldAll() {
	for {
		tx := k.Begin()
		left := k.foldSome()
		tx.End()
		if !left {
			return
		}
		if k.foldPause != nil {
			k.foldPause()
		}
		runtime.Gosched()
	}
}

// foldSome, under the state lock, marks every overlay as folding and
// folds at most a batch of rows; it reports whether rows are left.
func (k *Kernel) foldSome() bool {
	budget := k.foldBatch
	if budget <= 0 {
		budget = defaultFoldBatch
	}
	left := false
	for _, t := range k.tables {
		if !t.fold(&budget) {
			left = true
		}
	}
	return left
}

// fold writes at most *budget rows of the overlay into the rows, taking
// them out of it and counting them off *budget, and drops the overlay
// once it is empty; it reports whether it was dropped. The first call
// after the release marks the overlay as folding: the capture no longer
// shares the sorted keys or the indexes.
func (t *Table[K, V]) fold(budget *int) bool {
	o := t.ov()
	if o == nil {
		return true
	}
	if !o.folding {
		o.folding, o.keys, o.idx = true, false, nil
	}
	for k, r := range o.rows {
		if *budget <= 0 {
			return false
		}
		if r.has {
			t.rows[k] = r.v
		} else {
			delete(t.rows, k)
		}
		delete(o.rows, k)
		*budget--
	}
	t.m.over = nil
	return true
}

// fold has nothing to do: a capture copies a cell's value.
func (*Cell[T]) fold(*int) bool { return true }
