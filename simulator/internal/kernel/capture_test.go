package kernel

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/money"
)

type fixedClock struct {
	Services
	now time.Time
}

func (c *fixedClock) Now() time.Time { return c.now }

// TestCaptureReadsTheStateAtItsInstant: a capture's transaction reads
// every table, index and cell as they were when it was taken (Get, Has,
// Len, All, Backward, Keys, First, Last, Rows, the index's Len, At,
// Search, Range and Backward, the cell's Get), whatever was written since,
// including by a refused step; its Now is the clock then; it refuses
// every write and every step. The writes run on another goroutine while
// the capture is read (go test -race).
func TestCaptureReadsTheStateAtItsInstant(t *testing.T) {
	t.Parallel()
	setup := func(f *fixture) {
		tx := f.k.BeginSetup()
		defer tx.End()
		f.t.Put(tx, "a", row{Name: "a", Seq: 1, At: at(3), Tags: ListOf("t")})
		f.t.Put(tx, "b", row{Name: "b", Seq: 2, At: at(2), Balance: money.MustParse("2.50", 2)})
		f.c.Set(tx, 4)
		f.plain.Put(tx, "p", 1)
		f.plain.Put(tx, "q", 2)
		f.rec.Put(tx, 1, "one")
	}
	// writes changes every table, index and cell: rows added before, among
	// and after the others, changed, deleted and added again, half of the
	// steps refused.
	writes := func(f *fixture) {
		for i := range 200 {
			tx := f.k.Begin()
			_ = tx.Step("write", func() error {
				f.t.Put(tx, "c", row{Name: "c", Seq: int64(3 + i), At: at(1)})
				f.t.Put(tx, "0", row{Name: "0", Seq: -1, At: at(9)})
				f.t.Update(tx, "a", func(r *row) { r.Tags = r.Tags.Append("u"); r.At = at(4 + i%3) })
				f.t.Delete(tx, "b")
				f.c.Set(tx, int64(i))
				f.plain.Put(tx, "r", i)
				f.plain.Delete(tx, "p")
				f.plain.Put(tx, "a", i)
				f.rec.Put(tx, int64(2+i), "more")
				f.rec.Delete(tx, 1)
				if i%2 == 0 {
					return errNo
				}
				return nil
			})
			tx.End()
		}
		tx := f.k.Begin()
		_ = tx.Step("restore b", func() error {
			f.t.Put(tx, "b", row{Name: "b", Seq: 2, At: at(2)})
			f.plain.Put(tx, "p", 7)
			return nil
		})
		tx.End()
	}
	for _, verify := range []bool{false, true} {
		twin := newFixture(verify)
		setup(twin)
		writes(twin)
		tx := twin.k.Begin()
		final, finalBack := twin.contents(tx), backward(twin, tx)
		finalLen := twin.t.Len(tx) + twin.plain.Len(tx) + twin.rec.Len(tx)
		tx.End()

		f := newFixture(verify)
		clock := &fixedClock{now: at(100)}
		f.k.Provide(clock)
		setup(f)
		tx = f.k.BeginCapture(false)
		want := f.contents(tx)
		wantBack := backward(f, tx)
		c := f.k.Capture(tx)
		tx.End()

		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			writes(f)
		}()
		for range 50 {
			rtx := c.Read()
			if got := f.contents(rtx); got != want {
				t.Errorf("verify %v: the capture reads %q, was %q", verify, got, want)
			}
			if got := backward(f, rtx); got != wantBack {
				t.Errorf("verify %v: backward %q, was %q", verify, got, wantBack)
			}
			if _, ok := f.t.Get(rtx, "c"); ok || !f.t.Has(rtx, "b") || f.t.Len(rtx) != 2 || f.plain.Len(rtx) != 2 || f.rec.Len(rtx) != 1 {
				t.Errorf("verify %v: Get, Has or Len read past the capture", verify)
			}
			if k, _, _ := f.t.First(rtx); k != "a" {
				t.Errorf("First: %q", k)
			}
			if k, _, _ := f.t.Last(rtx); k != "b" {
				t.Errorf("Last: %q", k)
			}
			if keys := f.plain.Keys(rtx); strings.Join(keys, ",") != "p,q" {
				t.Errorf("Keys: %v", keys)
			}
			if f.byAt.Len(rtx) != 2 || f.byAt.Search(rtx, func(ik [2]int64) bool { return ik[0] >= at(3).UnixNano() }) != 1 {
				t.Errorf("the index read past the capture")
			}
			if _, k, _ := f.byAt.At(rtx, 0); k != "b" {
				t.Errorf("index At(0): %q", k)
			}
			n := 0
			f.rec.Rows(rtx, func(_, _ any) bool { n++; return true })
			if n != 1 {
				t.Errorf("Rows: %d", n)
			}
			if !rtx.Now().Equal(at(100)) || rtx.Captured() != c {
				t.Errorf("Now %v, Captured %p", rtx.Now(), rtx.Captured())
			}
			rtx.End()
		}
		clock.now = at(200) // after the capture: its Now stays
		wg.Wait()

		rtx := c.Read()
		for name, f := range map[string]func(){
			"Put":     func() { f.t.Put(rtx, "z", row{}) },
			"Delete":  func() { f.plain.Delete(rtx, "p") },
			"Cell":    func() { f.c.Set(rtx, 9) },
			"Record":  func() { f.rec.Put(rtx, 99, "x") },
			"Step":    func() { _ = rtx.Step("s", func() error { return nil }) },
			"rebuilt": func() { f.k.rebuilt(rtx) },
		} {
			if !panics(f) {
				t.Errorf("%s in a capture's transaction did not panic", name)
			}
		}
		if got := f.contents(rtx); got != want {
			t.Errorf("after the refused writes: %q", got)
		}
		if !rtx.Now().Equal(at(100)) {
			t.Errorf("Now moved with the clock: %v", rtx.Now())
		}
		rtx.End()
		if panics(func() { rtx.End() }) == false {
			t.Errorf("End twice did not panic")
		}
		// The live tables read through their overlays, then with them
		// folded, what a twin that was never captured holds.
		for _, when := range []string{"before the release", "after the release"} {
			tx := f.k.Begin()
			if got, gotBack := f.contents(tx), backward(f, tx); got != final || gotBack != finalBack {
				t.Errorf("verify %v, %s: the live tables hold %q %q, the twin %q %q", verify, when, got, gotBack, final, finalBack)
			}
			if n := f.t.Len(tx) + f.plain.Len(tx) + f.rec.Len(tx); n != finalLen {
				t.Errorf("verify %v, %s: Len %d, the twin's %d", verify, when, n, finalLen)
			}
			tx.End()
			c.Release()
		}
		if !panics(func() { c.Read() }) {
			t.Errorf("a read after the release did not panic")
		}
		// The next capture can be taken.
		tx = f.k.BeginCapture(false)
		next := f.k.Capture(tx)
		tx.End()
		next.Release()
	}
}

func backward(f *fixture, tx *Tx) string {
	var b strings.Builder
	for k := range f.t.Backward(tx) {
		b.WriteString(k)
	}
	b.WriteString("|")
	for k := range f.byAt.Backward(tx, f.byAt.Len(tx)) {
		b.WriteString(k)
	}
	b.WriteString("|")
	for k := range f.byAt.Range(tx, 0, 1) {
		b.WriteString(k)
	}
	return b.String()
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}
