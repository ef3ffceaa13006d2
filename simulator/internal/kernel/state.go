package kernel

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"time"
	"unicode/utf8"
)

// The state by name: every table and cell of a kernel written as JSON
// lines, a form a person can read and diff, and read back into the tables
// of another kernel with the same registry (a data directory's snapshot).
//
//	{"format":"mwallet-sim-state","version":1,"now":"2026-01-01T00:00:00Z","tables":84}
//	{"table":"ids.list_seq","version":1,"class":"state","cell":true,"rows":1}
//	{"v":12}
//	{"table":"auth.keys","version":1,"class":"state","rows":1}
//	{"k":"sim_client_1","v":{"ClientID":"sim_client_1",...}}
//
// The first line names the form, its version, the clock reading and the
// number of tables; each table follows in the order it was registered,
// with a line naming it (its version, class and number of rows), then its
// rows in key order, one a line: the key ("k", absent for a cell) and the
// row ("v"), written by encoding/json over the row's exported fields
// (CheckRow holds every row type to them; money.Amount, time.Time and List
// write themselves). Nothing is read by reflection over a private field.
//
// Reading refuses, with a *StateError naming the table and the line, a
// line that is not of the form, an unknown table or field, a table whose
// version is not the kernel's, a table given twice or missing, a row count
// that is not the header's and keys out of order.

const (
	// StateFormat names the form in its first line.
	StateFormat = "mwallet-sim-state"
	// StateVersion is the version of the form (not of the tables: each
	// has its own).
	StateVersion = 1
)

// stateHeader is the first line.
type stateHeader struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Now     time.Time `json:"now"`
	Tables  int       `json:"tables"`
}

// tableHeader is the line before a table's rows.
type tableHeader struct {
	Table   string `json:"table"`
	Version int    `json:"version"`
	Class   string `json:"class"`
	Cell    bool   `json:"cell,omitempty"`
	Rows    int    `json:"rows"`
}

// stateRow is a row of a table as written; cellRow the value of a cell.
type stateRow[K, V any] struct {
	K K `json:"k"`
	V V `json:"v"`
}

type cellRow[T any] struct {
	V T `json:"v"`
}

// readRow and readCell are stateRow and cellRow as read: a key or row
// that is absent (or null) is refused, not taken as the zero value.
type readRow[K, V any] struct {
	K *K `json:"k"`
	V *V `json:"v"`
}

type readCell[T any] struct {
	V *T `json:"v"`
}

// StateError is a state by name that cannot be read: Line is its line
// (from 1), Table the table being read ("" before the first).
type StateError struct {
	Line   int
	Table  string
	Reason string
	// Err is the error of the JSON decoder, when there is one.
	Err error
}

func (e *StateError) Error() string {
	at := fmt.Sprintf("line %d", e.Line)
	if e.Table != "" {
		at += " (table " + e.Table + ")"
	}
	return "kernel: state: " + at + ": " + e.Reason
}

func (e *StateError) Unwrap() error { return e.Err }

// stateWriter writes the lines of a state: each line is encoded into buf,
// checked, then written to w.
type stateWriter struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	// yield: the writer works from a capture, without the lock, beside
	// the requests; it gives up its processor every yieldEvery lines, so
	// that a request made runnable meanwhile does not wait for the
	// scheduler to preempt the encoder (every 10 ms at best), on a
	// machine with as few cores as runnable requests.
	yield bool
	n     int
}

// yieldEvery is how many lines a writer working from a capture encodes
// before it lets the other goroutines run (runtime.Gosched).
const yieldEvery = 64

// replacement is what encoding/json writes in place of a string's bytes
// that are not UTF-8 (U+FFFD): a line that holds it is checked.
var replacement = []byte("\uFFFD")

// line writes v as one line; table names what it is of, for an error.
func (sw *stateWriter) line(v any, table string) error {
	if sw.yield {
		if sw.n++; sw.n%yieldEvery == 0 {
			runtime.Gosched()
		}
	}
	sw.buf.Reset()
	if err := sw.enc.Encode(v); err != nil {
		return fmt.Errorf("kernel: state: table %s: %w", table, err)
	}
	if bytes.Contains(sw.buf.Bytes(), replacement) {
		if at := invalidUTF8(reflect.Indirect(reflect.ValueOf(v)), ""); at != "" {
			return fmt.Errorf("kernel: state: table %s: %s holds bytes that are not UTF-8, which JSON cannot keep", table, at)
		}
	}
	_, err := sw.w.Write(sw.buf.Bytes())
	return err
}

// invalidUTF8 returns the path of a string in v that is not UTF-8, or "".
func invalidUTF8(v reflect.Value, at string) string {
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return "value" + at
		}
	case reflect.Struct:
		if v.Type().Implements(listTypeType) {
			// A List: its elements.
			return invalidUTF8(v.Field(0), at)
		}
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if p := invalidUTF8(v.Field(i), at+"."+v.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if p := invalidUTF8(v.Index(i), fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if p := invalidUTF8(v.Index(i), fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

// WriteState writes the state tx reads (a capture's, or the live state
// under the lock) by name to w, every table and cell of the kernel.
func WriteState(w io.Writer, tx *Tx) error {
	tx.check()
	sw := &stateWriter{w: w, yield: tx.cap != nil}
	sw.enc = json.NewEncoder(&sw.buf)
	sw.enc.SetEscapeHTML(false)
	k := tx.k
	var now time.Time
	switch {
	case tx.cap != nil:
		now = tx.cap.now
	case k.svc != nil:
		now = k.svc.Now()
	}
	if err := sw.line(stateHeader{Format: StateFormat, Version: StateVersion, Now: now.UTC(), Tables: len(k.tables)}, ""); err != nil {
		return err
	}
	for _, t := range k.tables {
		if err := t.writeState(sw, tx); err != nil {
			return err
		}
	}
	return nil
}

func (t *Table[K, V]) writeState(sw *stateWriter, tx *Tx) error {
	h := tableHeader{Table: t.m.name, Version: t.m.version, Class: t.m.class.String(), Rows: t.Len(tx)}
	if err := sw.line(h, t.m.name); err != nil {
		return err
	}
	// One row value for the whole table, passed by pointer: a row boxed
	// into the encoder's interface would be a heap copy per row. No row
	// type marshals through a pointer method, so the bytes are the same.
	var row stateRow[K, V]
	for k, v := range t.All(tx) {
		row.K, row.V = k, v
		if err := sw.line(&row, t.m.name); err != nil {
			return err
		}
	}
	return nil
}

func (c *Cell[T]) writeState(sw *stateWriter, tx *Tx) error {
	h := tableHeader{Table: c.m.name, Version: c.m.version, Class: c.m.class.String(), Cell: true, Rows: 1}
	if err := sw.line(h, c.m.name); err != nil {
		return err
	}
	return sw.line(cellRow[T]{c.Get(tx)}, c.m.name)
}

// stateReader reads the lines of a state, one JSON value a line.
type stateReader struct {
	dec  *json.Decoder
	line int
}

// next decodes the next line into v.
func (sr *stateReader) next(v any, table string) error {
	sr.line++
	if err := sr.dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return &StateError{Line: sr.line, Table: table, Reason: "the state ends here", Err: io.ErrUnexpectedEOF}
		}
		return &StateError{Line: sr.line, Table: table, Reason: err.Error(), Err: err}
	}
	return nil
}

// ReadState reads a state written by WriteState into the tables and cells
// of tx's kernel, under a setup transaction (BeginSetup), replacing every
// row they held, and returns the clock reading it was written at. The
// kernel must have the tables the state has, of the same versions; the
// sorted keys, indexes and checksums are built again from the rows. On an
// error the tables are left part read: the caller builds the simulator
// again.
func ReadState(r io.Reader, tx *Tx) (time.Time, error) {
	tx.check()
	tx.mustLock("ReadState")
	if !tx.setup {
		panic("kernel: ReadState in a transaction not begun with BeginSetup")
	}
	k := tx.k
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	dec.DisallowUnknownFields()
	sr := &stateReader{dec: dec}
	var h stateHeader
	if err := sr.next(&h, ""); err != nil {
		return time.Time{}, err
	}
	if h.Format != StateFormat || h.Version != StateVersion {
		return time.Time{}, &StateError{Line: 1, Reason: fmt.Sprintf("not a state of form %s version %d (%q version %d)", StateFormat, StateVersion, h.Format, h.Version)}
	}
	byName := make(map[string]Handle, len(k.tables))
	for _, t := range k.tables {
		byName[t.Name()] = t
	}
	read := make(map[string]bool, len(k.tables))
	for range h.Tables {
		var th tableHeader
		if err := sr.next(&th, ""); err != nil {
			return time.Time{}, err
		}
		t, ok := byName[th.Table]
		bad := func(format string, args ...any) error {
			return &StateError{Line: sr.line, Table: th.Table, Reason: fmt.Sprintf(format, args...)}
		}
		switch {
		case th.Table == "":
			return time.Time{}, bad("a table's line without its name")
		case !ok:
			return time.Time{}, bad("no such table")
		case read[th.Table]:
			return time.Time{}, bad("the table is given twice")
		case th.Version != t.Version():
			return time.Time{}, bad("version %d, which this build does not read (it has version %d)", th.Version, t.Version())
		case th.Class != t.Class().String():
			return time.Time{}, bad("class %s, where this build's is %s", th.Class, t.Class())
		case th.Cell != (t.KeyType() == nil):
			return time.Time{}, bad("a cell and a table are not the same")
		case th.Rows < 0 || th.Cell && th.Rows != 1:
			return time.Time{}, bad("%d rows", th.Rows)
		}
		read[th.Table] = true
		if err := t.readState(sr, th.Rows); err != nil {
			return time.Time{}, err
		}
	}
	for _, t := range k.tables {
		if !read[t.Name()] {
			return time.Time{}, &StateError{Line: sr.line, Table: t.Name(), Reason: "the table is missing"}
		}
	}
	sr.line++
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return time.Time{}, &StateError{Line: sr.line, Reason: "more after the last table"}
	}
	k.rebuilt(tx)
	return h.Now, nil
}

func (t *Table[K, V]) readState(sr *stateReader, n int) error {
	if t.m.over != nil {
		panic("kernel: table " + t.m.name + " read while a capture shares it or its overlay is folded")
	}
	rows := make(map[K]V, n)
	var last K
	for i := range n {
		var r readRow[K, V]
		if err := sr.next(&r, t.m.name); err != nil {
			return err
		}
		switch {
		case r.K == nil || r.V == nil:
			return &StateError{Line: sr.line, Table: t.m.name, Reason: "a row is its key (k) and its value (v)"}
		case i > 0 && cmp.Compare(*r.K, last) <= 0:
			return &StateError{Line: sr.line, Table: t.m.name, Reason: fmt.Sprintf("key %v after key %v: rows are in key order, each once", *r.K, last)}
		}
		rows[*r.K], last = *r.V, *r.K
	}
	t.rows = rows
	return nil
}

func (c *Cell[T]) readState(sr *stateReader, _ int) error {
	var r readCell[T]
	if err := sr.next(&r, c.m.name); err != nil {
		return err
	}
	if r.V == nil {
		return &StateError{Line: sr.line, Table: c.m.name, Reason: "a cell's line is its value (v)"}
	}
	c.v = *r.V
	return nil
}
