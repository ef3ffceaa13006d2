package kernel

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// filled is a fixture holding rows in every table and cell.
func filled(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(true)
	tx := f.k.BeginSetup()
	defer tx.End()
	f.t.Put(tx, "b", row{Name: "b <&>", Seq: 2, At: at(5), Balance: money.MustParse("1.50", 2), Tags: ListOf("x", "y")})
	f.t.Put(tx, "a", row{Name: "a", Seq: 1, At: at(9)})
	f.c.Set(tx, 7)
	f.rec.Put(tx, 3, "three")
	f.rec.Put(tx, 1, "one")
	f.plain.Put(tx, "p", 4)
	return f
}

func writeState(t *testing.T, f *fixture) string {
	t.Helper()
	tx := f.k.Begin()
	defer tx.End()
	var b bytes.Buffer
	if err := WriteState(&b, tx); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestStateRoundTrip: a state written by name and read into a kernel of the
// same tables (holding other rows) gives the same rows, indexes and
// checksums, and writes the same text again.
func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	f := filled(t)
	text := writeState(t, f)
	want := `{"format":"mwallet-sim-state","version":1,"now":"0001-01-01T00:00:00Z","tables":4}
{"table":"test.rows","version":1,"class":"state","rows":2}
{"k":"a","v":{"Name":"a","Balance":"0","At":"1970-01-01T00:00:09Z","Seq":1,"Tags":[]}}
{"k":"b","v":{"Name":"b <&>","Balance":"1.50","At":"1970-01-01T00:00:05Z","Seq":2,"Tags":["x","y"]}}
{"table":"test.seq","version":1,"class":"state","cell":true,"rows":1}
{"v":7}
{"table":"test.journal","version":1,"class":"record","rows":2}
{"k":1,"v":"one"}
{"k":3,"v":"three"}
{"table":"test.plain","version":1,"class":"state","rows":1}
{"k":"p","v":4}
`
	if text != want {
		t.Fatalf("state:\n%s\nwant:\n%s", text, want)
	}
	g := newFixture(true)
	tx := g.k.BeginSetup()
	g.t.Put(tx, "z", row{Name: "gone"})
	g.plain.Put(tx, "q", 1)
	if _, err := ReadState(strings.NewReader(text), tx); err != nil {
		t.Fatal(err)
	}
	tx.End()
	ftx, gtx := f.k.Begin(), g.k.Begin()
	if a, b := f.contents(ftx), g.contents(gtx); a != b {
		t.Errorf("read back: %s, want %s", b, a)
	}
	for i, h := range f.k.Tables() {
		if a, b := h.checksum(), g.k.Tables()[i].checksum(); a != b {
			t.Errorf("%s: checksum %v, want %v", h.Name(), b, a)
		}
	}
	ftx.End()
	gtx.End()
	if again := writeState(t, g); again != text {
		t.Errorf("written again:\n%s", again)
	}
}

// TestStateRefused: each way a state can be wrong is refused with a
// *StateError naming the line and the table.
func TestStateRefused(t *testing.T) {
	t.Parallel()
	good := strings.SplitAfter(writeState(t, filled(t)), "\n")
	good = good[:len(good)-1] // the empty string after the last newline
	edit := func(f func(lines []string) []string) string {
		return strings.Join(f(append([]string(nil), good...)), "")
	}
	set := func(i int, s string) string {
		return edit(func(l []string) []string { l[i] = s + "\n"; return l })
	}
	for _, tc := range []struct {
		name, text string
		line       int
		table      string
		reason     string
	}{
		{"empty", "", 1, "", "ends here"},
		{"another form", set(0, `{"format":"other","version":1,"tables":4}`), 1, "", "not a state"},
		{"another form version", set(0, `{"format":"mwallet-sim-state","version":2,"tables":4}`), 1, "", "not a state"},
		{"unknown header field", set(0, `{"format":"mwallet-sim-state","version":1,"tables":4,"x":1}`), 1, "", "unknown field"},
		{"unknown table", set(1, `{"table":"test.other","version":1,"class":"state","rows":2}`), 2, "test.other", "no such table"},
		{"table version", set(1, `{"table":"test.rows","version":2,"class":"state","rows":2}`), 2, "test.rows", "version 2"},
		{"table class", set(1, `{"table":"test.rows","version":1,"class":"record","rows":2}`), 2, "test.rows", "class record"},
		{"cell as table", set(4, `{"table":"test.seq","version":1,"class":"state","rows":1}`), 5, "test.seq", "cell"},
		{"unknown row field", set(2, `{"k":"a","v":{"Name":"a","Nick":"x"}}`), 3, "test.rows", "unknown field"},
		{"row without value", set(2, `{"k":"a"}`), 3, "test.rows", "key (k) and its value (v)"},
		{"cell without value", set(5, `{}`), 6, "test.seq", "its value (v)"},
		{"keys out of order", edit(func(l []string) []string { l[2], l[3] = l[3], l[2]; return l }), 4, "test.rows", "key order"},
		{"key twice", set(3, strings.TrimSuffix(good[2], "\n")), 4, "test.rows", "key order"},
		{"wrong type", set(8, `{"k":3,"v":3}`), 9, "test.journal", "cannot unmarshal"},
		{"bad amount", set(2, `{"k":"a","v":{"Balance":1.5}}`), 3, "test.rows", "amounts are JSON strings"},
		{"table twice", edit(func(l []string) []string { return append(l[:9], l[1:4]...) }), 10, "test.rows", "given twice"},
		{"table missing", edit(func(l []string) []string {
			l[0] = `{"format":"mwallet-sim-state","version":1,"tables":3}` + "\n"
			return l[:9]
		}), 9, "test.plain", "missing"},
		{"truncated", edit(func(l []string) []string { return l[:7] }), 8, "test.journal", "ends here"},
		{"more after", edit(func(l []string) []string { return append(l, `{"k":"q","v":1}`+"\n") }), 12, "", "more after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newFixture(true)
			tx := g.k.BeginSetup()
			defer tx.End()
			_, err := ReadState(strings.NewReader(tc.text), tx)
			var se *StateError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a *StateError", err)
			}
			if se.Line != tc.line || se.Table != tc.table || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error %q (line %d, table %q), want line %d, table %q, %q", err, se.Line, se.Table, tc.line, tc.table, tc.reason)
			}
		})
	}
}

// TestStateListRefusesUnknownFields: a List's elements are read as
// strictly as the row around them.
func TestStateListRefusesUnknownFields(t *testing.T) {
	t.Parallel()
	type elem struct{ A int }
	var l List[elem]
	if err := l.UnmarshalJSON([]byte(`[{"A":1}]`)); err != nil || l.Len() != 1 || l.At(0).A != 1 {
		t.Fatalf("%v %v", l, err)
	}
	if err := l.UnmarshalJSON([]byte(`[{"A":1,"B":2}]`)); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("unknown field: %v", err)
	}
}

// TestStateRefusesWhatJSONCannotKeep: a string that is not UTF-8 would be
// changed by JSON (to U+FFFD): the state is not written, and the error
// says where; a real U+FFFD is kept.
func TestStateRefusesWhatJSONCannotKeep(t *testing.T) {
	t.Parallel()
	f := newFixture(true)
	tx := f.k.BeginSetup()
	f.t.Put(tx, "a", row{Name: "ok \uFFFD", Tags: ListOf("x")})
	tx.End()
	writeState(t, f)
	tx = f.k.BeginSetup()
	f.t.Put(tx, "b", row{Name: "b", Tags: ListOf("\uFFFD", "\xff")})
	tx.End()
	tx = f.k.Begin()
	defer tx.End()
	err := WriteState(new(bytes.Buffer), tx)
	if err == nil || !strings.Contains(err.Error(), "table test.rows: value.V.Tags[1] holds bytes that are not UTF-8") {
		t.Errorf("error %v", err)
	}
}

// TestStateOfACapture: a capture is written as it was taken, whatever
// was written to the live tables since.
func TestStateOfACapture(t *testing.T) {
	t.Parallel()
	f := filled(t)
	before := writeState(t, f)
	tx := f.k.BeginCapture(false)
	c := f.k.Capture(tx)
	tx.End()
	tx = f.k.BeginSetup()
	f.t.Put(tx, "c", row{Name: "c"})
	f.c.Set(tx, 8)
	tx.End()
	rtx := c.ReadOnce()
	var b bytes.Buffer
	if err := WriteState(&b, rtx); err != nil {
		t.Fatal(err)
	}
	rtx.End()
	if b.String() != before {
		t.Errorf("capture:\n%s\nwant:\n%s", b.String(), before)
	}
}
