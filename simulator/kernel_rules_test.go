package simulator

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The rules that make every input all or nothing by construction: the
// state is only in the kernel's tables, and a row is a value, so that the
// only way to change the state is a write the undo log sees.

// TestEveryRowIsAValue holds the key and row type of every table and cell
// of a simulator to kernel.CheckRow: values only (no pointer, map, slice,
// interface, channel or function), every field exported (written by name).
func TestEveryRowIsAValue(t *testing.T) {
	t.Parallel()
	s := mustNewHandler()
	tables := s.k.Tables()
	var bad []string
	for _, h := range tables {
		if kt := h.KeyType(); kt != nil {
			if err := kernel.CheckRow(kt); err != nil {
				bad = append(bad, h.Name()+" key: "+err.Error())
			}
		}
		if err := kernel.CheckRow(h.RowType()); err != nil {
			bad = append(bad, h.Name()+": "+err.Error())
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("%d tables and cells checked", len(tables))
}

// updateTables rewrites testdata/kernel-tables.txt.
var updateTables = flag.Bool("update-tables", false, "rewrite testdata/kernel-tables.txt from the kernel's tables")

// TestTablesAreListed holds the kernel's tables to testdata/kernel-tables.txt:
// each table's and cell's name, class, version, key and row type, in the
// order the kernel registers them. The state is what the list says: a table
// added, renamed or given another row type shows in review.
func TestTablesAreListed(t *testing.T) {
	t.Parallel()
	s := mustNewHandler()
	var b strings.Builder
	b.WriteString("# The kernel's tables and cells: name, class, version, key type (- for a cell), row type.\n")
	b.WriteString("# go test ./simulator -run TestTablesAreListed -update-tables rewrites it.\n")
	for _, h := range s.k.Tables() {
		key := "-"
		if kt := h.KeyType(); kt != nil {
			key = kt.String()
		}
		fmt.Fprintf(&b, "%s %s v%d %s %s\n", h.Name(), h.Class(), h.Version(), key, h.RowType())
	}
	const path = "testdata/kernel-tables.txt"
	if *updateTables {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("the kernel's tables differ from %s (-want +got); run go test ./simulator -run TestTablesAreListed -update-tables:\n%s", path, diff)
	}
}
