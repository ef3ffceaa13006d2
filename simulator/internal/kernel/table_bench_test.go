package kernel

import (
	"strconv"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/money"
)

// The cost of a table against the plain map of pointers it replaces: a
// read, a write inside a step (undo log included), a step of writes that
// commits and one that is refused, with and without verify mode.

// benchRow is about the size of a line's object (a deposit).
type benchRow struct {
	Seq       int64
	Reference string
	MemberID  string
	Asset     string
	Amount    money.Amount
	Network   string
	CreatedAt time.Time
}

const benchRows = 10000

func benchKeys() []string {
	keys := make([]string, benchRows)
	for i := range keys {
		keys[i] = "dep_" + strconv.Itoa(i*7919%benchRows)
	}
	return keys
}

func benchTable(verify bool) (*Kernel, *Table[string, benchRow]) {
	k := new(Kernel)
	k.SetVerify(verify)
	t := NewTable[string, benchRow](k, "bench.rows")
	tx := k.BeginSetup()
	for i, key := range benchKeys() {
		t.Put(tx, key, benchRow{Seq: int64(i), Reference: key, Amount: money.MustParse("1", 6)})
	}
	tx.End()
	return k, t
}

func benchMap() map[string]*benchRow {
	m := map[string]*benchRow{}
	for i, key := range benchKeys() {
		m[key] = &benchRow{Seq: int64(i), Reference: key, Amount: money.MustParse("1", 6)}
	}
	return m
}

func BenchmarkTableGet(b *testing.B) {
	k, t := benchTable(false)
	keys := benchKeys()
	tx := k.Begin()
	defer tx.End()
	b.ReportAllocs()
	var n int64
	for i := 0; b.Loop(); i++ {
		r, _ := t.Get(tx, keys[i%benchRows])
		n += r.Seq
	}
	_ = n
}

func BenchmarkMapGet(b *testing.B) {
	m := benchMap()
	keys := benchKeys()
	b.ReportAllocs()
	var n int64
	for i := 0; b.Loop(); i++ {
		n += m[keys[i%benchRows]].Seq
	}
	_ = n
}

// BenchmarkTableUpdate is one write of an existing row in a step of 16
// writes that commits (the undo log kept, then dropped).
func BenchmarkTableUpdate(b *testing.B) { benchUpdate(b, false, false) }

// BenchmarkTableUpdateRefused is the same step refused: every write undone.
func BenchmarkTableUpdateRefused(b *testing.B) { benchUpdate(b, false, true) }

// BenchmarkTableUpdateVerify is BenchmarkTableUpdateRefused in verify mode.
func BenchmarkTableUpdateVerify(b *testing.B) { benchUpdate(b, true, true) }

func benchUpdate(b *testing.B, verify, refuse bool) {
	k, t := benchTable(verify)
	keys := benchKeys()
	tx := k.Begin()
	defer tx.End()
	b.ReportAllocs()
	for b.Loop() {
		_ = tx.Step("bench", func() error {
			for j := 0; j < 16; j++ {
				r, _ := t.Get(tx, keys[j])
				r.Seq++
				t.Put(tx, keys[j], r)
			}
			if refuse {
				return errNo
			}
			return nil
		})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/16, "ns/write")
}

// BenchmarkMapUpdate is 16 writes through pointers in a plain map, the
// same work without a step.
func BenchmarkMapUpdate(b *testing.B) {
	m := benchMap()
	keys := benchKeys()
	b.ReportAllocs()
	for b.Loop() {
		for j := 0; j < 16; j++ {
			m[keys[j%benchRows]].Seq++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/16, "ns/write")
}

// BenchmarkTableInsert puts a new row and deletes it in a committed step.
func BenchmarkTableInsert(b *testing.B) {
	k, t := benchTable(false)
	tx := k.Begin()
	defer tx.End()
	b.ReportAllocs()
	for b.Loop() {
		_ = tx.Step("bench", func() error {
			t.Put(tx, "new", benchRow{Reference: "new"})
			t.Delete(tx, "new")
			return nil
		})
	}
}

// BenchmarkMapInsert is the same insert and delete on a plain map.
func BenchmarkMapInsert(b *testing.B) {
	m := benchMap()
	b.ReportAllocs()
	for b.Loop() {
		m["new"] = &benchRow{Reference: "new"}
		delete(m, "new")
	}
}
