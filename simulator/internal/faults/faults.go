// Package faults is the gateway's fault table: the faults armed on the
// business API, in the order they were injected, matched against a
// request's method and path and counted down as requests take them. A
// random fault (OneIn) is taken on a draw the caller makes from the
// simulator's seeded generator. A fault as a request takes it (Rule, with
// the Go-only channels of a delay fault) and the envelope an error fault
// answers are here too (rule.go), and so are the checks of a fault before
// it is armed, its count as armed and as listed (check.go). The public
// fault API (simulator.Fault and its kinds) stays in the simulator package,
// which converts to and from Row.
package faults

import (
	"iter"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Row is an armed fault as a row of the table. Its Go-only channels
// (simulator.Fault's Hold and Held, Chans) are not state: internal/exchange
// keeps them by Seq.
type Row struct {
	Seq       int64
	Method    string
	Path      string
	Count     int
	Kind      string
	Status    int
	Code      string
	DelayMS   int
	OneIn     int
	Remaining int
	Unlimited bool // a OneIn fault with Count 0
}

// Meta numbers the faults injected (Seq); Held says whether the list was
// kept as a list once (an empty list, not none, in the image of earlier
// recordings).
type Meta struct {
	Seq  int64
	Held bool
}

// Table is the armed faults, by Seq (class Record).
type Table struct {
	rows *kernel.Table[int64, Row]
	meta *kernel.Cell[Meta]
}

// New registers the table, gateway.faults, and its cell,
// gateway.faults.meta, with k.
func New(k *kernel.Kernel) Table {
	rec := kernel.Records()
	return Table{
		rows: kernel.NewTable[int64, Row](k, "gateway.faults", rec, kernel.Ordered()),
		meta: kernel.NewCell(k, "gateway.faults.meta", Meta{}, rec),
	}
}

// Matches reports whether the fault applies to a request of method to
// path: Method empty or "*" matches every method (in any case), and a Path
// ending in "*" is a prefix.
func (r Row) Matches(method, path string) bool {
	if r.Method != "" && r.Method != "*" && !strings.EqualFold(r.Method, method) {
		return false
	}
	if prefix, ok := strings.CutSuffix(r.Path, "*"); ok {
		return strings.HasPrefix(path, prefix)
	}
	return r.Path == path
}

// Arm adds r, numbered after the faults injected before, and returns its
// Seq. Its Count is what remains to take (Remaining), unless Unlimited.
func (t Table) Arm(tx *kernel.Tx, r Row) int64 {
	var m Meta
	t.meta.Update(tx, func(fm *Meta) { fm.Seq++; fm.Held = true; m = *fm })
	r.Seq, r.Remaining = m.Seq, r.Count
	t.rows.Put(tx, m.Seq, r)
	return m.Seq
}

// Clear removes every fault.
func (t Table) Clear(tx *kernel.Tx) {
	t.rows.Clear(tx)
	t.meta.Update(tx, func(fm *Meta) { fm.Held = false })
}

// All is the armed faults in the order they were injected.
func (t Table) All(tx *kernel.Tx) iter.Seq2[int64, Row] { return t.rows.All(tx) }

// Len is the number of armed faults.
func (t Table) Len(tx *kernel.Tx) int { return t.rows.Len(tx) }

// Held reports whether the list was kept as a list once (Meta.Held).
func (t Table) Held(tx *kernel.Tx) bool { return t.meta.Get(tx).Held }

// Draws returns the draws Take makes for a request of method to path, one
// per OneIn fault that matches it, in order, up to the fault it takes:
// draw(n) is a draw in [0, n) of the caller's generator, a hit when 0.
func (t Table) Draws(tx *kernel.Tx, method, path string, draw func(n int) int) []bool {
	var draws []bool
	for _, r := range t.rows.All(tx) {
		if !r.Matches(method, path) {
			continue
		}
		if r.OneIn <= 1 {
			break
		}
		hit := draw(r.OneIn) == 0
		draws = append(draws, hit)
		if hit {
			break
		}
	}
	return draws
}

// Take returns the first armed fault matching a request of method to path
// (and, for a OneIn fault, drawn) and counts it down: a fault with nothing
// left to take is removed (gone). draw(n) makes the nth draw of the
// request (from 0) of a fault with OneIn ways; a hit is true.
func (t Table) Take(tx *kernel.Tx, method, path string, draw func(n, oneIn int) bool) (r Row, gone, ok bool) {
	var rows []Row
	for _, r := range t.rows.All(tx) {
		rows = append(rows, r)
	}
	n := 0
	for _, r := range rows {
		if !r.Matches(method, path) {
			continue
		}
		if r.OneIn > 1 {
			hit := draw(n, r.OneIn)
			n++
			if !hit {
				continue
			}
		}
		if r.Unlimited {
			return r, false, true
		}
		r.Remaining--
		if r.Remaining <= 0 {
			t.rows.Delete(tx, r.Seq)
			return r, true, true
		}
		t.rows.Put(tx, r.Seq, r)
		return r, false, true
	}
	return Row{}, false, false
}
