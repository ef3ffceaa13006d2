package kernel

import (
	"cmp"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
)

// row is a table row of the tests.
type row struct {
	Name    string
	Balance money.Amount
	At      time.Time
	Seq     int64
	Tags    List[string]
}

var errNo = errors.New("refused")

// fixture is a kernel with a table (ordered, with an index by At then
// Seq), a cell and a record table, in verify mode.
type fixture struct {
	k     *Kernel
	t     *Table[string, row]
	byAt  *Index[string, row, [2]int64]
	c     *Cell[int64]
	rec   *Table[int64, string]
	plain *Table[string, int]
}

func newFixture(verify bool) *fixture {
	f := &fixture{k: new(Kernel)}
	f.k.SetVerify(verify)
	f.t = NewTable[string, row](f.k, "test.rows", Ordered())
	f.byAt = NewIndex(f.t, "by_at", func(r row) ([2]int64, bool) { return [2]int64{r.At.UnixNano(), r.Seq}, r.Seq >= 0 },
		func(a, b [2]int64) int {
			if c := cmp.Compare(a[0], b[0]); c != 0 {
				return c
			}
			return cmp.Compare(a[1], b[1])
		})
	f.c = NewCell(f.k, "test.seq", int64(0))
	f.rec = NewTable[int64, string](f.k, "test.journal", Records(), Ordered())
	f.plain = NewTable[string, int](f.k, "test.plain")
	return f
}

// contents is everything the fixture's tables hold, in order.
func (f *fixture) contents(tx *Tx) string {
	var b strings.Builder
	for k, v := range f.t.All(tx) {
		b.WriteString(k + "=" + v.Name + "/" + v.Balance.String() + "/" + strings.Join(v.Tags.Slice(), ",") + ";")
	}
	b.WriteString("|idx:")
	for k := range f.byAt.All(tx) {
		b.WriteString(k + ",")
	}
	b.WriteString("|seq:" + string(rune('0'+f.c.Get(tx))))
	b.WriteString("|plain:")
	for k, v := range f.plain.All(tx) {
		b.WriteString(k + string(rune('0'+v)) + ",")
	}
	return b.String()
}

func at(sec int) time.Time { return time.Unix(int64(sec), 0).UTC() }

// TestRefusedStepUndoesEveryWrite: a step that writes then refuses (or
// panics) leaves every table, index and cell as it was; one that succeeds
// keeps its writes; Executed is not a refusal.
func TestRefusedStepUndoesEveryWrite(t *testing.T) {
	t.Parallel()
	writes := func(f *fixture, tx *Tx) {
		f.t.Put(tx, "b", row{Name: "b2", Seq: 2, At: at(5)})
		f.t.Delete(tx, "a")
		f.t.Put(tx, "c", row{Name: "c", Seq: 3, At: at(1), Tags: ListOf("x")})
		f.t.Update(tx, "c", func(r *row) { r.Tags = r.Tags.Append("y"); r.Balance = money.MustParse("1.5", 2) })
		f.c.Update(tx, func(n *int64) { *n += 3 })
		f.plain.Put(tx, "p", 1)
		f.plain.Put(tx, "p", 2)
	}
	tests := []struct {
		name string
		run  func(f *fixture, tx *Tx) error
		kept bool
	}{
		{"refused", func(f *fixture, tx *Tx) error { writes(f, tx); return errNo }, false},
		{"committed", func(f *fixture, tx *Tx) error { writes(f, tx); return nil }, true},
		{"executed", func(f *fixture, tx *Tx) error { writes(f, tx); return Executed(errNo) }, true},
		{"refused after a committed inner step", func(f *fixture, tx *Tx) error {
			if err := tx.Step("inner", func() error { writes(f, tx); return nil }); err != nil {
				return err
			}
			return errNo
		}, false},
		{"inner refusal inside a committed step", func(f *fixture, tx *Tx) error {
			_ = tx.Step("inner", func() error { writes(f, tx); return errNo })
			return nil
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, verify := range []bool{false, true} {
				f := newFixture(verify)
				tx := f.k.BeginSetup()
				f.t.Put(tx, "a", row{Name: "a", Seq: 1, At: at(3)})
				f.t.Put(tx, "b", row{Name: "b", Seq: 2, At: at(2)})
				before := f.contents(tx)
				tx.End()
				want := before
				if tt.kept {
					g := newFixture(false)
					gtx := g.k.BeginSetup()
					g.t.Put(gtx, "a", row{Name: "a", Seq: 1, At: at(3)})
					g.t.Put(gtx, "b", row{Name: "b", Seq: 2, At: at(2)})
					writes(g, gtx)
					want = g.contents(gtx)
					gtx.End()
				}
				tx = f.k.Begin()
				err := tx.Step("test", func() error { return tt.run(f, tx) })
				if got := f.contents(tx); got != want {
					t.Errorf("verify %v: after the step (%v):\n got %s\nwant %s", verify, err, got, want)
				}
				tx.End()
			}
		})
	}
}

// TestPanicUndoes: a step that panics is undone, and the panic goes on.
func TestPanicUndoes(t *testing.T) {
	t.Parallel()
	f := newFixture(true)
	tx := f.k.Begin()
	defer tx.End()
	before := f.contents(tx)
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want boom", p)
			}
		}()
		_ = tx.Step("panics", func() error {
			f.t.Put(tx, "z", row{Name: "z"})
			f.c.Set(tx, 7)
			panic("boom")
		})
	}()
	if got := f.contents(tx); got != before {
		t.Errorf("after a panic: %s, want %s", got, before)
	}
	if tx.InStep() {
		t.Error("still in a step after the panic")
	}
}

// TestKeptWritesSurvive: the writes made in Keep survive the refusal of the
// steps around them, with the value they wrote (a later write outside Keep
// is undone), through nested steps; the cell they share keeps the kept
// value.
func TestKeptWritesSurvive(t *testing.T) {
	t.Parallel()
	for _, verify := range []bool{false, true} {
		f := newFixture(verify)
		tx := f.k.Begin()
		err := tx.Step("outer", func() error {
			f.t.Put(tx, "gone", row{Name: "gone"})
			_ = tx.Step("inner", func() error {
				f.c.Set(tx, 1)
				tx.Keep(func() {
					f.c.Set(tx, 2)
					f.t.Put(tx, "kept", row{Name: "kept"})
					f.plain.Put(tx, "k", 1)
				})
				f.c.Set(tx, 3)
				f.t.Update(tx, "kept", func(r *row) { r.Name = "changed" })
				f.plain.Delete(tx, "k")
				return errNo
			})
			f.t.Put(tx, "gone2", row{Name: "gone2"})
			return errNo
		})
		if !errors.Is(err, errNo) {
			t.Fatalf("err = %v", err)
		}
		keys := f.t.Keys(tx)
		if diff := gocmp.Diff([]string{"kept"}, keys); diff != "" {
			t.Errorf("verify %v: rows after the refusals (-want +got):\n%s", verify, diff)
		}
		if r, _ := f.t.Get(tx, "kept"); r.Name != "kept" {
			t.Errorf("kept row = %q, want its kept value", r.Name)
		}
		if v, ok := f.plain.Get(tx, "k"); !ok || v != 1 {
			t.Errorf("kept plain row = %d, %v", v, ok)
		}
		if got := f.c.Get(tx); got != 2 {
			t.Errorf("verify %v: cell = %d, want the kept 2", verify, got)
		}
		tx.End()
	}
}

// TestOnCommit: a hook runs when the outermost step commits, never for a
// refused step.
func TestOnCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(false)
	tx := f.k.Begin()
	defer tx.End()
	var ran []string
	_ = tx.Step("outer", func() error {
		tx.OnCommit(func() { ran = append(ran, "outer") })
		_ = tx.Step("refused", func() error {
			tx.OnCommit(func() { ran = append(ran, "refused") })
			return errNo
		})
		_ = tx.Step("inner", func() error {
			tx.OnCommit(func() { ran = append(ran, "inner") })
			return nil
		})
		if len(ran) != 0 {
			t.Errorf("hooks ran before the outer step ended: %v", ran)
		}
		return nil
	})
	_ = tx.Step("refused outer", func() error {
		tx.OnCommit(func() { ran = append(ran, "refused outer") })
		return errNo
	})
	if diff := gocmp.Diff([]string{"outer", "inner"}, ran); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
}

// TestVerifyFindsWritesOutsideTheTables: in verify mode a refused step that
// changed the state outside the tables panics with a *VerifyError naming
// the step, and the kernel lists it; a committed step may change it.
func TestVerifyFindsWritesOutsideTheTables(t *testing.T) {
	t.Parallel()
	f := newFixture(true)
	hidden := 0
	f.k.SetOutside(func() []byte { return []byte{byte(hidden)} })
	tx := f.k.Begin()
	defer tx.End()
	_ = tx.Step("allowed", func() error { hidden = 1; return nil })
	var ve *VerifyError
	func() {
		defer func() {
			p := recover()
			ve, _ = p.(*VerifyError)
		}()
		_ = tx.Step("POST /v1/broken", func() error {
			f.t.Put(tx, "x", row{Name: "x"})
			hidden = 2
			return errNo
		})
	}()
	if ve == nil || ve.Step != "POST /v1/broken" || !ve.Outside || len(ve.Tables) != 0 {
		t.Fatalf("verify error = %+v, want the step named and the outside state", ve)
	}
	if !strings.Contains(ve.Error(), `"POST /v1/broken"`) || !strings.Contains(ve.Error(), "refused") {
		t.Errorf("message %q", ve.Error())
	}
	if v := f.k.Violations(tx); len(v) != 1 {
		t.Errorf("violations = %q", v)
	}
	if f.t.Has(tx, "x") {
		t.Error("the table write was not undone")
	}
}

// TestVerifyFindsAnUndoThatMissesARow: the checksum of each table catches
// a row the undo did not restore (here changed behind the kernel's back,
// as a bug in the undo would).
func TestVerifyFindsAnUndoThatMissesARow(t *testing.T) {
	t.Parallel()
	f := newFixture(true)
	tx := f.k.Begin()
	defer tx.End()
	var ve *VerifyError
	func() {
		defer func() { ve, _ = recover().(*VerifyError) }()
		_ = tx.Step("broken undo", func() error {
			f.plain.Put(tx, "a", 1)
			f.plain.rows["b"] = 2 // behind the kernel's back
			f.plain.sum.add(rowHash("b", 2))
			return errNo
		})
	}()
	if ve == nil || len(ve.Tables) != 1 || ve.Tables[0] != "test.plain" {
		t.Fatalf("verify error = %+v, want test.plain", ve)
	}
}

// TestStateWritesNeedAStep: in verify mode a State table or cell written
// outside a step panics; a Record table, a setup transaction and a write in
// a step are fine; without verify mode nothing is checked.
func TestStateWritesNeedAStep(t *testing.T) {
	t.Parallel()
	f := newFixture(true)
	tx := f.k.Begin()
	mustPanic(t, "table outside a step", func() { f.t.Put(tx, "a", row{}) })
	mustPanic(t, "cell outside a step", func() { f.c.Set(tx, 1) })
	mustPanic(t, "delete outside a step", func() { f.plain.Delete(tx, "x") })
	f.rec.Put(tx, 1, "journal row")
	_ = tx.Step("s", func() error { f.t.Put(tx, "a", row{}); return nil })
	tx.End()
	stx := f.k.BeginSetup()
	f.t.Put(stx, "b", row{})
	stx.End()
	g := newFixture(false)
	gtx := g.k.Begin()
	g.t.Put(gtx, "a", row{})
	gtx.End()
	other := newFixture(false)
	otx := other.k.BeginSetup()
	mustPanic(t, "a table of another kernel", func() { f.plain.Put(otx, "a", 1) })
	otx.End()
}

// TestStepMisuse: End or Suspend inside a step panic.
func TestStepMisuse(t *testing.T) {
	t.Parallel()
	f := newFixture(false)
	tx := f.k.Begin()
	_ = tx.Step("s", func() error {
		mustPanic(t, "End inside a step", tx.End)
		mustPanic(t, "Suspend inside a step", tx.Suspend)
		return nil
	})
	tx.End()
}

// TestIterationOrderAndChanges: All and Backward iterate in key order, an
// Index in its own order; a table that gains a row while iterated panics.
func TestIterationOrderAndChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(false)
	tx := f.k.BeginSetup()
	defer tx.End()
	for i, k := range []string{"m", "c", "x", "a"} {
		f.t.Put(tx, k, row{Name: k, Seq: int64(i), At: at(10 - i)})
		f.plain.Put(tx, k, i)
	}
	f.t.Put(tx, "neg", row{Seq: -1}) // left out of the index
	var got []string
	for k := range f.t.All(tx) {
		got = append(got, k)
	}
	for k := range f.plain.Backward(tx) {
		got = append(got, k)
	}
	for k := range f.byAt.All(tx) {
		got = append(got, k)
	}
	for k := range f.byAt.Backward(tx, 2) {
		got = append(got, k)
	}
	want := []string{"a", "c", "m", "neg", "x", "x", "m", "c", "a", "a", "x", "c", "m", "x", "a"}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if i := f.byAt.Search(tx, func(k [2]int64) bool { return k[0] >= at(9).UnixNano() }); i != 2 {
		t.Errorf("Search = %d, want 2", i)
	}
	mustPanic(t, "insert while iterating", func() {
		for k := range f.plain.All(tx) {
			f.plain.Put(tx, k+"!", 0)
		}
	})
	k, v, ok := f.t.First(tx)
	if k != "a" || v.Name != "a" || !ok {
		t.Errorf("First = %q %v %v", k, v, ok)
	}
}

// TestRebuilt: after the rows are set (ReadState), rebuilt rebuilds the
// sorted keys, the indexes and the checksums: the same as the writes that
// made the rows kept them, rows of equal index keys in the order of their
// keys, rows the index leaves out still left out.
func TestRebuilt(t *testing.T) {
	t.Parallel()
	f := newFixture(true)
	tx := f.k.BeginSetup()
	f.t.Put(tx, "b", row{Name: "b", Seq: 2, At: at(1)})
	f.t.Put(tx, "a", row{Name: "a", Seq: 1, At: at(2)})
	for i := range 300 {
		k := "r" + strconv.Itoa(i*37%300)
		f.t.Put(tx, k, row{Name: k, Seq: int64(i%7 - 1), At: at(i % 11)})
		if i%5 == 0 {
			f.t.Delete(tx, "r"+strconv.Itoa(i*13%300))
		}
	}
	want := f.contents(tx)
	sums := f.k.checkpoint().sums
	rows := make(map[string]row, len(f.t.rows))
	for k, v := range f.t.rows {
		rows[k] = v
	}
	f.t.rows = rows
	f.t.keys, f.byAt.ents, f.t.sum = nil, nil, sum{}
	f.k.rebuilt(tx)
	if got := f.contents(tx); got != want {
		t.Errorf("after rebuilt: %s, want %s", got, want)
	}
	if diff := gocmp.Diff(sums, f.k.checkpoint().sums, gocmp.AllowUnexported(sum{})); diff != "" {
		t.Errorf("checksums (-want +got):\n%s", diff)
	}
	tx.End()
}

// TestCheckRow holds the row rule: values only, fields exported.
func TestCheckRow(t *testing.T) {
	t.Parallel()
	type inner struct{ A [2]int }
	type good struct {
		S string
		T time.Time
		M money.Amount
		L List[inner]
		F float64
		I inner
	}
	//lint:ignore U1000 the field is never read: the type exists to have an unexported one
	type unexported struct{ s string }
	type withSlice struct{ S []string }
	type withMap struct{ M map[string]bool }
	type withPtr struct{ P *int }
	type withAny struct{ A any }
	type listOfPtr struct{ L List[*int] }
	tests := []struct {
		typ  reflect.Type
		want string // "" for ok, else a substring of the error
	}{
		{reflect.TypeFor[good](), ""},
		{reflect.TypeFor[string](), ""},
		{reflect.TypeFor[unexported](), "not exported"},
		{reflect.TypeFor[withSlice](), "slice"},
		{reflect.TypeFor[withMap](), "map"},
		{reflect.TypeFor[withPtr](), "ptr"},
		{reflect.TypeFor[withAny](), "interface"},
		{reflect.TypeFor[listOfPtr](), "ptr"},
	}
	for _, tt := range tests {
		err := CheckRow(tt.typ)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.typ, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.typ, err, tt.want)
		}
	}
}

// TestListIsImmutable: Append and Set never change the List they start
// from nor a List sharing its elements.
func TestListIsImmutable(t *testing.T) {
	t.Parallel()
	a := ListOf("x", "y")
	b := a.Append("z")
	c := a.Append("w")
	d := b.Set(0, "X")
	e := b.From(1)
	f := e.Append("v")
	got := [][]string{a.Slice(), b.Slice(), c.Slice(), d.Slice(), e.Slice(), f.Slice()}
	want := [][]string{{"x", "y"}, {"x", "y", "z"}, {"x", "y", "w"}, {"X", "y", "z"}, {"y", "z"}, {"y", "z", "v"}}
	if diff := gocmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("lists (-want +got):\n%s", diff)
	}
	s := a.Slice()
	s[0] = "changed"
	if a.At(0) != "x" {
		t.Error("Slice shares the list's elements")
	}
	if last, ok := b.Last(); !ok || last != "z" {
		t.Errorf("Last = %q %v", last, ok)
	}
}

// TestTableNamesAreUnique: two tables of one kernel cannot share a name.
func TestTableNamesAreUnique(t *testing.T) {
	t.Parallel()
	var k Kernel
	NewTable[string, int](&k, "x")
	mustPanic(t, "a second table x", func() { NewCell(&k, "x", 0) })
	if n := len(k.Tables()); n != 1 {
		t.Errorf("%d tables", n)
	}
}
