package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAttribute(t *testing.T) {
	t.Parallel()
	snaps := []snapshotEvent{
		{Seq: 10000, Seen: at(1250), Done: at(1400)}, // encoding ended at 1250, within the first stall's slack
		{Seq: 20000, Done: at(5000)},                 // .tmp never seen: its modification time
		{Seq: 30000, Seen: at(9000), Done: at(9100)}, // no stall near it
	}
	reads := []controlRead{{Path: "/_sim/digest", Span: span(7000, 8000)}}
	stalls := []interval{
		span(200, 1000),    // a snapshot's encoding seen 250 ms after it: at a snapshot
		span(2000, 2100),   // under the threshold: not counted
		span(4500, 5000),   // ends as the snapshot file appears: at a snapshot
		span(7200, 7900),   // inside the digest: at a control read
		span(12000, 12600), // nothing: other
		span(3000, 3450),   // a snapshot 1.55 s after it is too late: other
	}
	got := attribute(stalls, 400*time.Millisecond, snaps, reads)
	want := attribution{
		Stalls: 5, AtSnapshot: 2, AtControlRead: 1, Other: 2,
		LongestAtSnapshot: 800 * time.Millisecond, LongestAtControlRead: 700 * time.Millisecond, LongestOther: 600 * time.Millisecond,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attribute (-want +got):\n%s", diff)
	}
}

// TestSnapshotWatcher plays a data directory's files as the simulator
// writes them: a snapshot already there, snapshot.tmp written, renamed
// over snapshot; a write too quick to be seen; a snapshot rewritten with
// the same input count (a Close with nothing new) is not a new one.
func TestSnapshotWatcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	snap, tmp := filepath.Join(dir, "snapshot"), filepath.Join(dir, "snapshot.tmp")
	write := func(path string, seq int, mtime time.Time) {
		t.Helper()
		head := `{"format":"mwallet-sim snapshot","version":1,"seq":` + strconv.Itoa(seq) + `,"offset":1}` + "\n"
		if err := os.WriteFile(path, []byte(head+"image bytes"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write(snap, 5000, at(0)) // there before the run
	sw := newSnapshotWatcher(dir)
	if e, ok := sw.look(at(10)); ok {
		t.Fatalf("the snapshot that was there counted: %+v", e)
	}

	write(tmp, 15000, at(100)) // encoded: being written
	if _, ok := sw.look(at(120)); ok {
		t.Fatal("a snapshot counted before its rename")
	}
	if err := os.Rename(tmp, snap); err != nil {
		t.Fatal(err)
	}
	e, ok := sw.look(at(140))
	if diff := cmp.Diff(snapshotEvent{Seq: 15000, Size: e.Size, Seen: at(120), Done: at(100)}, e); !ok || diff != "" {
		t.Errorf("after the rename (counted %v) (-want +got):\n%s", ok, diff)
	}
	if !e.mark().Equal(at(120)) {
		t.Errorf("mark = %v, want when snapshot.tmp was seen", e.mark())
	}

	write(snap, 25000, at(300)) // written and renamed between two looks
	e, ok = sw.look(at(320))
	if diff := cmp.Diff(snapshotEvent{Seq: 25000, Size: e.Size, Done: at(300)}, e); !ok || diff != "" {
		t.Errorf("a quick write (counted %v) (-want +got):\n%s", ok, diff)
	}
	if !e.mark().Equal(at(300)) {
		t.Errorf("mark = %v, want the modification time", e.mark())
	}

	write(snap, 25000, at(400)) // the same state written again
	if e, ok := sw.look(at(420)); ok {
		t.Errorf("the same input count counted again: %+v", e)
	}
	if e, ok := sw.look(at(440)); ok {
		t.Errorf("nothing changed, yet %+v", e)
	}
}

func TestSnapshotSeq(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, content string
		want          int64
	}{
		{"header", `{"format":"f","seq":42}` + "\nimage", 42},
		{"no seq", `{"format":"f"}` + "\nimage", -1},
		{"no line", `{"seq":42}`, -1},
		{"not JSON", "garbage\n", -1},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := snapshotSeq(path); got != tt.want {
			t.Errorf("%s: snapshotSeq = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := snapshotSeq(filepath.Join(dir, "missing")); got != -1 {
		t.Errorf("missing file: %d, want -1", got)
	}
}
