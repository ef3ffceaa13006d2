package kernel

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// foldView is what a fixture's tables hold, as every read sees it: the
// state by name (rows in key order), the keys and lengths, the index's
// entries with their index keys, and the checksums (verify mode).
type foldView struct {
	State string
	Keys  []string
	Plain []string
	Rec   []int64
	Index []string
	Lens  [3]int
	Sums  []string
}

func viewOf(t *testing.T, f *fixture) foldView {
	t.Helper()
	tx := f.k.Begin()
	defer tx.End()
	var buf bytes.Buffer
	if err := WriteState(&buf, tx); err != nil {
		t.Fatal(err)
	}
	v := foldView{State: buf.String(), Keys: f.t.Keys(tx), Plain: f.plain.Keys(tx), Rec: f.rec.Keys(tx),
		Lens: [3]int{f.t.Len(tx), f.plain.Len(tx), f.rec.Len(tx)}}
	for i := range f.byAt.Len(tx) {
		ik, k, _ := f.byAt.At(tx, i)
		v.Index = append(v.Index, fmt.Sprint(ik, k))
	}
	for _, h := range f.k.Tables() {
		v.Sums = append(v.Sums, fmt.Sprint(h.checksum()))
	}
	return v
}

// folding reports whether a table of f still has an overlay.
// overlayRows is the number of rows the fixture's tables hold in their
// overlays.
func overlayRows(f *fixture) int {
	tx := f.k.Begin()
	defer tx.End()
	n := 0
	if o := f.t.ov(); o != nil {
		n += len(o.rows)
	}
	if o := f.rec.ov(); o != nil {
		n += len(o.rows)
	}
	if o := f.plain.ov(); o != nil {
		n += len(o.rows)
	}
	return n
}

func folding(f *fixture) bool {
	tx := f.k.Begin()
	defer tx.End()
	for _, h := range f.k.Tables() {
		if h.meta().over != nil {
			return true
		}
	}
	return false
}

// write runs w in a step of its own, refused when refuse is set.
func write(f *fixture, refuse bool, w func(tx *Tx)) {
	tx := f.k.Begin()
	defer tx.End()
	_ = tx.Step("write", func() error {
		w(tx)
		if refuse {
			return errNo
		}
		return nil
	})
}

func foldSetup(f *fixture) {
	tx := f.k.BeginSetup()
	defer tx.End()
	for i := range 20 {
		k := fmt.Sprintf("k%02d", 2*i)
		f.t.Put(tx, k, row{Name: k, Seq: int64(i), At: at(i)})
		f.plain.Put(tx, k, i)
		f.rec.Put(tx, int64(2*i), k)
	}
	f.c.Set(tx, 1)
}

// TestReleaseFoldsLikeAWholeFold: the writes made while a capture lives
// (added rows, changed, deleted, added again, keys inserted among the
// sorted ones, rows moved in and out of an index, refused steps), then
// folded a few rows per hold of the lock, with reads and more writes
// between two batches, leave the tables, their order, indexes, lengths
// and checksums as a twin that was never captured holds them: at every
// pause of the fold and after it.
func TestReleaseFoldsLikeAWholeFold(t *testing.T) {
	t.Parallel()
	type op func(f *fixture, tx *Tx)
	put := func(k string, seq int64, sec int) op {
		return func(f *fixture, tx *Tx) { f.t.Put(tx, k, row{Name: k, Seq: seq, At: at(sec)}) }
	}
	del := func(k string) op { return func(f *fixture, tx *Tx) { f.t.Delete(tx, k) } }
	plain := func(k string, v int) op { return func(f *fixture, tx *Tx) { f.plain.Put(tx, k, v) } }
	unplain := func(k string) op { return func(f *fixture, tx *Tx) { f.plain.Delete(tx, k) } }
	rec := func(k int64) op { return func(f *fixture, tx *Tx) { f.rec.Put(tx, k, "r"+strconv.FormatInt(k, 10)) } }
	unrec := func(k int64) op { return func(f *fixture, tx *Tx) { f.rec.Delete(tx, k) } }
	cell := func(v int64) op { return func(f *fixture, tx *Tx) { f.c.Set(tx, v) } }
	many := func(n int, mk func(i int) op) []op {
		var ops []op
		for i := range n {
			ops = append(ops, mk(i))
		}
		return ops
	}
	tests := []struct {
		name string
		// life runs while the capture lives, fold between two batches of
		// the fold (one a pause, the rest after the release), each in a
		// step of its own, refused when refuse says.
		life, fold []op
		refuse     func(i int) bool
	}{
		{name: "nothing written"},
		{name: "rows added at the end and changed",
			life: []op{put("k99", 99, 99), put("k98", 98, 98), put("k00", 0, 50), plain("zz", 1), rec(100), cell(7)},
			fold: []op{put("k97", 97, 97), put("k00", 0, 51), plain("zz", 2), rec(101)}},
		{name: "deleted, added again, deleted again",
			life: []op{del("k02"), put("k02", 2, 60), del("k04"), unplain("k06"), plain("k06", 9), unrec(8), rec(8)},
			fold: []op{del("k02"), put("k04", 4, 61), unplain("k06"), unrec(8), del("k10"), put("k10", 10, 3)}},
		{name: "keys inserted among the sorted keys",
			life: []op{put("k01", 1, 1), put("a", 50, 2), put("k05", 5, 5), plain("k03", 3), rec(3), rec(-1)},
			fold: []op{put("k07", 7, 7), put("b", 51, 2), del("a"), plain("k09", 9), rec(5), unrec(-1)}},
		{name: "rows moved in and out of the index",
			life: []op{put("k00", -1, 0), put("k02", 1, 90), put("k04", 2, 1), put("k06", -1, 5)},
			fold: []op{put("k00", 0, 0), put("k02", 1, 2), put("k06", -2, 5), put("k08", 4, 100)}},
		{name: "refused steps",
			life:   []op{put("k99", 99, 99), del("k02"), plain("k01", 1), rec(1), cell(3), put("k00", -1, 0)},
			fold:   []op{put("k98", 98, 98), del("k04"), plain("k03", 1), rec(3), cell(4), put("k00", 3, 3)},
			refuse: func(i int) bool { return i%2 == 0 }},
		{name: "many rows, each written again while folded",
			life: many(300, func(i int) op { return put(fmt.Sprintf("m%03d", i), int64(i), i%17) }),
			fold: many(300, func(i int) op {
				if i%3 == 0 {
					return del(fmt.Sprintf("m%03d", 299-i))
				}
				return put(fmt.Sprintf("m%03d", 299-i), int64(i), i%5)
			})},
	}
	for _, tt := range tests {
		for _, batch := range []int{1, 3, 0} {
			for _, verify := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/batch %d/verify %v", tt.name, batch, verify), func(t *testing.T) {
					t.Parallel()
					refused := func(i int) bool { return tt.refuse != nil && tt.refuse(i) }
					twin, f := newFixture(verify), newFixture(verify)
					foldSetup(twin)
					foldSetup(f)
					tx := f.k.BeginCapture(false)
					c := f.k.Capture(tx)
					tx.End()
					rtx := c.Read()
					captured := f.contents(rtx)
					rtx.End()
					for i, w := range tt.life {
						write(twin, refused(i), func(tx *Tx) { w(twin, tx) })
						write(f, refused(i), func(tx *Tx) { w(f, tx) })
					}
					rtx = c.Read()
					if got := f.contents(rtx); got != captured {
						t.Errorf("the capture reads %q, was %q", got, captured)
					}
					rtx.End()
					if d := gocmp.Diff(viewOf(t, twin), viewOf(t, f)); d != "" {
						t.Errorf("before the release (-twin +captured):\n%s", d)
					}
					next := len(tt.life)
					pauses := 0
					f.k.foldBatch = batch
					f.k.foldPause = func() {
						pauses++
						if !folding(f) {
							t.Errorf("pause %d: nothing left to fold", pauses)
						}
						if next < len(tt.life)+len(tt.fold) {
							w := tt.fold[next-len(tt.life)]
							write(twin, refused(next), func(tx *Tx) { w(twin, tx) })
							write(f, refused(next), func(tx *Tx) { w(f, tx) })
							next++
						}
						if d := gocmp.Diff(viewOf(t, twin), viewOf(t, f)); d != "" {
							t.Errorf("pause %d of the fold (-twin +captured):\n%s", pauses, d)
						}
					}
					rows := overlayRows(f)
					c.Release()
					if folding(f) {
						t.Errorf("an overlay is left after the release")
					}
					// A row at a time: a pause after every batch but the last,
					// less the rows the fold's own writes took out of the
					// overlay before their batch came.
					if least := rows - 1 - len(tt.fold); batch == 1 && pauses < least {
						t.Errorf("%d pauses for %d overlay rows folded a row at a time", pauses, rows)
					}
					for ; next < len(tt.life)+len(tt.fold); next++ {
						w := tt.fold[next-len(tt.life)]
						write(twin, refused(next), func(tx *Tx) { w(twin, tx) })
						write(f, refused(next), func(tx *Tx) { w(f, tx) })
					}
					if d := gocmp.Diff(viewOf(t, twin), viewOf(t, f)); d != "" {
						t.Errorf("after the fold (-twin +captured):\n%s", d)
					}
					tx = f.k.Begin()
					if len(f.t.rows) != f.t.Len(tx) || len(f.plain.rows) != f.plain.Len(tx) || len(f.rec.rows) != f.rec.Len(tx) {
						t.Errorf("the rows do not hold Len rows")
					}
					tx.End()
					// The next capture can be taken, and reads the folded state.
					tx = f.k.BeginCapture(false)
					c = f.k.Capture(tx)
					tx.End()
					rtx = c.ReadOnce()
					twx := twin.k.Begin()
					if got, want := f.contents(rtx), twin.contents(twx); got != want {
						t.Errorf("the next capture reads %q, the twin holds %q", got, want)
					}
					twx.End()
					rtx.End()
				})
			}
		}
	}
}

// TestCaptureWaitsForTheFold: a capture begun while the one before is
// folded waits until its last batch, and then finds no overlay left.
func TestCaptureWaitsForTheFold(t *testing.T) {
	t.Parallel()
	f := newFixture(false)
	foldSetup(f)
	tx := f.k.BeginCapture(false)
	c := f.k.Capture(tx)
	tx.End()
	for i := range 10 {
		write(f, false, func(tx *Tx) { f.plain.Put(tx, "n"+strconv.Itoa(i), i) })
	}
	f.k.foldBatch = 1
	begun := make(chan *Tx, 1)
	pauses := 0
	f.k.foldPause = func() {
		pauses++
		if pauses == 1 {
			go func() { begun <- f.k.BeginCapture(false) }()
		}
		time.Sleep(time.Millisecond)
		if len(begun) > 0 {
			t.Errorf("pause %d: a capture began while the one before was folded", pauses)
		}
	}
	c.Release()
	if pauses < 5 {
		t.Errorf("%d pauses for 10 rows folded one at a time", pauses)
	}
	tx = <-begun
	for _, h := range f.k.Tables() {
		if h.meta().over != nil {
			t.Errorf("table %s: an overlay left when the next capture began", h.Name())
		}
	}
	c = f.k.Capture(tx)
	tx.End()
	c.Release()
}

// TestFoldBesideWriters: a writer on another goroutine writes while a
// capture lives, while it is folded a row per hold of the lock, and after;
// the tables end as the twin's that took the same writes without a
// capture (go test -race).
func TestFoldBesideWriters(t *testing.T) {
	t.Parallel()
	writes := func(f *fixture, n int) {
		for i := range n {
			k := fmt.Sprintf("w%03d", (i*7)%97)
			write(f, i%5 == 4, func(tx *Tx) {
				switch i % 4 {
				case 0, 1:
					f.t.Put(tx, k, row{Name: k, Seq: int64(i % 3), At: at(i % 11)})
				case 2:
					f.t.Delete(tx, k)
				}
				f.plain.Put(tx, k, i)
				f.rec.Put(tx, int64(i), k)
				f.c.Set(tx, int64(i))
			})
		}
	}
	for _, verify := range []bool{false, true} {
		twin, f := newFixture(verify), newFixture(verify)
		foldSetup(twin)
		foldSetup(f)
		writes(twin, 600)
		f.k.foldBatch = 1
		tx := f.k.BeginCapture(false)
		c := f.k.Capture(tx)
		tx.End()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			writes(f, 600)
		}()
		time.Sleep(2 * time.Millisecond)
		c.Release()
		wg.Wait()
		if folding(f) {
			t.Errorf("verify %v: an overlay is left after the release", verify)
		}
		if d := gocmp.Diff(viewOf(t, twin), viewOf(t, f)); d != "" {
			t.Errorf("verify %v (-twin +captured):\n%s", verify, d)
		}
	}
}
