package simulator_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// damageBase is a closed data directory's files: its log, the offsets of
// the log's frames (the header first), and its snapshot (nil without one).
type damageBase struct {
	log  []byte
	offs []int
	snap []byte
}

// newDamageBase writes a data directory of a few inputs, with a snapshot
// when snapEvery > 0, and returns its files.
func newDamageBase(t *testing.T, snapEvery int) damageBase {
	t.Helper()
	dir := t.TempDir()
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag, simulator.WithSnapshotEvery(snapEvery))
	for i := 1; i <= 6; i++ {
		if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: fmt.Sprintf("dmg-%d", i), KYCLevel: 1, Balances: map[string]string{"USDT": "1"}}); err != nil {
			t.Fatal(err)
		}
	}
	sim.Close()
	var b damageBase
	var err error
	if b.log, err = os.ReadFile(filepath.Join(dir, "log")); err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(b.log); off += 8 + int(binary.LittleEndian.Uint32(b.log[off:])) {
		b.offs = append(b.offs, off)
	}
	if snapEvery > 0 {
		if b.snap, err = os.ReadFile(filepath.Join(dir, "snapshot")); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// end is the offset after frame i (the log's size for the last one).
func (b damageBase) end(i int) int {
	if i+1 < len(b.offs) {
		return b.offs[i+1]
	}
	return len(b.log)
}

// hashDir returns the SHA-256 of every file in dir, by name.
func hashDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, en := range entries {
		if en.IsDir() {
			out[en.Name()+"/"] = "directory"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[en.Name()] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return out
}

// moveSnapshot returns the snapshot with its log offset moved by d.
func moveSnapshot(t *testing.T, snap []byte, d int64) []byte {
	t.Helper()
	i := bytes.IndexByte(snap, '\n')
	var meta map[string]any
	dec := json.NewDecoder(bytes.NewReader(snap[:i]))
	dec.UseNumber()
	if err := dec.Decode(&meta); err != nil {
		t.Fatal(err)
	}
	off, _ := meta["offset"].(json.Number).Int64()
	meta["offset"] = off + d
	head, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	return splice(head, snap[i:])
}

func flip(b []byte, at int) []byte {
	out := append([]byte(nil), b...)
	out[at] ^= 0x5a
	return out
}

func splice(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestDataDirDamage damages a data directory each way, at each position
// (the header, the first input, one in the middle, the last, inside the
// snapshot) and starts on it. What a crash leaves (a last frame cut short,
// a tail of zero bytes) is cut at the start, which says so and keeps every
// whole input before it. Anything else stops the start with a
// *DataDirError naming the file, the offset and "mwallet-sim repair", and
// no byte of the directory changes (every file hashed before and after);
// RepairDataDir then saves the damaged log, cuts it before the damage (or
// sets the snapshot aside), and a start keeps exactly the inputs before the
// damage.
func TestDataDirDamage(t *testing.T) {
	t.Parallel()
	plain := newDamageBase(t, 0)
	snapped := newDamageBase(t, 4)
	last := len(plain.offs) - 1
	mid := last / 2
	if last < 5 {
		t.Fatalf("the log has %d inputs", last)
	}
	// A whole frame that verifies but is not an input.
	notInput := []byte("not an input")
	junk := make([]byte, 8+len(notInput))
	binary.LittleEndian.PutUint32(junk, uint32(len(notInput)))
	binary.LittleEndian.PutUint32(junk[4:], crc32.Checksum(notInput, crc32.MakeTable(crc32.Castagnoli)))
	copy(junk[8:], notInput)
	longer := func(b damageBase, i int, size uint32) []byte {
		out := append([]byte(nil), b.log...)
		binary.LittleEndian.PutUint32(out[b.offs[i]:], size)
		return out
	}
	type row struct {
		name string
		base damageBase
		log  []byte
		snap []byte // nil: the base's snapshot
		// refused: the start stops with a *DataDirError on file at offset
		// (-1: no position), and a repair keeps keep inputs.
		refused   bool
		file      string
		offset    int
		reason    string
		following bool
		// keep is the number of inputs kept (by the start when it is not
		// refused, by the repair otherwise).
		keep int
	}
	rows := []row{
		{name: "crash: last frame cut inside its payload", base: plain, log: plain.log[:plain.offs[last]+20], keep: last - 1},
		{name: "crash: last frame cut inside its header", base: plain, log: plain.log[:plain.offs[last]+3], keep: last - 1},
		{name: "crash: last frame cut one byte short", base: plain, log: plain.log[:len(plain.log)-1], keep: last - 1},
		{name: "crash: a tail of zero bytes", base: plain, log: splice(plain.log, make([]byte, 4096)), keep: last},
		{name: "crash: a frame cut short after the snapshot", base: snapped, log: splice(snapped.log, snapped.log[snapped.offs[1]:snapped.offs[1]+20]), keep: len(snapped.offs) - 1},
		{name: "checksum mismatch in the header", base: plain, log: flip(plain.log, 60), refused: true, file: "log", offset: 0, reason: "checksum mismatch", following: true},
		{name: "checksum mismatch in the header's format name", base: plain, log: flip(plain.log, 30), refused: true, file: "log", offset: 0, reason: "checksum mismatch", following: true},
		{name: "checksum mismatch in the first input", base: plain, log: flip(plain.log, plain.offs[1]+12), refused: true, file: "log", offset: plain.offs[1], reason: "checksum mismatch", following: true, keep: 0},
		{name: "checksum mismatch in a middle input", base: plain, log: flip(plain.log, plain.offs[mid]+12), refused: true, file: "log", offset: plain.offs[mid], reason: "checksum mismatch", following: true, keep: mid - 1},
		{name: "checksum mismatch in the last input", base: plain, log: flip(plain.log, plain.offs[last]+12), refused: true, file: "log", offset: plain.offs[last], reason: "checksum mismatch", keep: last - 1},
		{name: "checksum mismatch in a frame's checksum field", base: plain, log: flip(plain.log, plain.offs[mid]+5), refused: true, file: "log", offset: plain.offs[mid], reason: "checksum mismatch", following: true, keep: mid - 1},
		{name: "bad length: more than any frame, in a middle input", base: plain, log: longer(plain, mid, 1<<30), refused: true, file: "log", offset: plain.offs[mid], reason: "more than any frame", following: true, keep: mid - 1},
		{name: "bad length: a middle input running past the end", base: plain, log: longer(plain, mid, uint32(len(plain.log))), refused: true, file: "log", offset: plain.offs[mid], reason: "followed by frames that verify", following: true, keep: mid - 1},
		{name: "bad length: a shorter length in a middle input", base: plain, log: longer(plain, mid, uint32(plain.end(mid)-plain.offs[mid]-8-3)), refused: true, file: "log", offset: plain.offs[mid], reason: "checksum mismatch", following: true, keep: mid - 1},
		{name: "garbage between two inputs, frames verifying after it", base: plain, log: splice(plain.log[:plain.offs[mid]], bytes.Repeat([]byte{0xab}, 17), plain.log[plain.offs[mid]:]), refused: true, file: "log", offset: plain.offs[mid], reason: "more than any frame", following: true, keep: mid - 1},
		{name: "garbage after the last input", base: plain, log: splice(plain.log, []byte("garbage that is no frame at all, written after the log's end")), refused: true, file: "log", offset: len(plain.log), reason: "more than any frame", keep: last},
		{name: "a whole frame that is not an input, in the middle", base: plain, log: splice(plain.log[:plain.offs[mid]], junk, plain.log[plain.offs[mid]:]), refused: true, file: "log", offset: plain.offs[mid], reason: "not an input", following: true, keep: mid - 1},
		{name: "snapshot: a byte flipped inside the image", base: snapped, snap: flip(snapped.snap, len(snapped.snap)-10), refused: true, file: "snapshot", offset: bytes.IndexByte(snapped.snap, '\n') + 1, reason: "checksum", keep: len(snapped.offs) - 1},
		{name: "snapshot: cut short", base: snapped, snap: snapped.snap[:len(snapped.snap)-100], refused: true, file: "snapshot", offset: bytes.IndexByte(snapped.snap, '\n') + 1, reason: "checksum", keep: len(snapped.offs) - 1},
		{name: "snapshot: header line damaged", base: snapped, snap: splice([]byte("{]"), snapped.snap[2:]), refused: true, file: "snapshot", offset: 0, reason: "not a snapshot's", keep: len(snapped.offs) - 1},
		{name: "snapshot: a newline in the header's padding", base: snapped, snap: splice(snapped.snap[:200], []byte("\n"), snapped.snap[201:]), refused: true, file: "snapshot", offset: 201, reason: "checksum", keep: len(snapped.offs) - 1},
		{name: "snapshot: a byte in the header's padding", base: snapped, snap: splice(snapped.snap[:200], []byte("x"), snapped.snap[201:]), refused: true, file: "snapshot", offset: 0, reason: "not a snapshot's", keep: len(snapped.offs) - 1},
		{name: "snapshot: the header not written over its reserved line", base: snapped, snap: splice(bytes.Repeat([]byte(" "), 255), snapped.snap[255:]), refused: true, file: "snapshot", offset: 0, reason: "not a snapshot's", keep: len(snapped.offs) - 1},
		{name: "snapshot: ahead of a log that lost inputs", base: snapped, log: snapped.log[:snapped.offs[2]], refused: true, file: "snapshot", offset: -1, reason: "the log lost inputs", keep: 1},
		{name: "snapshot: not where its input ends in the log", base: snapped, snap: moveSnapshot(t, snapped.snap, -1), refused: true, file: "snapshot", offset: -1, reason: "not where that input ends", keep: len(snapped.offs) - 1},
		{name: "an input missing from the middle", base: plain, log: splice(plain.log[:plain.offs[mid]], plain.log[plain.offs[mid+1]:]), refused: true, file: "log", offset: plain.offs[mid], reason: fmt.Sprintf("input %d where input %d should be", mid+1, mid), following: true, keep: mid - 1},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			log, snap := tc.log, tc.snap
			if log == nil {
				log = tc.base.log
			}
			if snap == nil {
				snap = tc.base.snap
			}
			if err := os.WriteFile(filepath.Join(dir, "log"), log, 0o600); err != nil {
				t.Fatal(err)
			}
			if snap != nil {
				if err := os.WriteFile(filepath.Join(dir, "snapshot"), snap, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "lock"), []byte("12345\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			before := hashDir(t, dir)
			var diag bytes.Buffer
			sim, err := simulator.New(simulator.WithDataDir(dir), simulator.WithDiagnostics(&diag), simulator.WithSnapshotEvery(0))
			if !tc.refused {
				if err != nil {
					t.Fatalf("a crash's tail refused: %v", err)
				}
				defer sim.Close()
				rec, err := sim.Recording()
				if err != nil {
					t.Fatal(err)
				}
				if rec.Len() != tc.keep || !strings.Contains(diag.String(), "discarded") {
					t.Errorf("kept %d inputs, want %d; diagnostics %q", rec.Len(), tc.keep, diag.String())
				}
				return
			}
			var de *simulator.DataDirError
			if !errors.As(err, &de) {
				t.Fatalf("start: %v, want a *DataDirError", err)
			}
			if de.File != tc.file || int(de.Offset) != tc.offset || !strings.Contains(de.Reason, tc.reason) || (de.Following > 0) != tc.following || de.Foreign {
				t.Errorf("refused with file %q offset %d reason %q, %d frames following, foreign %v; want %q %d %q following %v",
					de.File, de.Offset, de.Reason, de.Following, de.Foreign, tc.file, tc.offset, tc.reason, tc.following)
			}
			msg := err.Error()
			if !strings.Contains(msg, "mwallet-sim repair "+dir) || !strings.Contains(msg, "nothing was changed") || (tc.offset >= 0 && !strings.Contains(msg, fmt.Sprintf("offset %d", tc.offset))) {
				t.Errorf("the refusal does not say where and how to proceed: %s", msg)
			}
			if diff := cmp.Diff(before, hashDir(t, dir)); diff != "" {
				t.Errorf("the refused start changed the directory (-before +after):\n%s", diff)
			}
			rep, err := simulator.RepairDataDir(dir)
			if err != nil {
				t.Fatalf("repair: %v", err)
			}
			if rep.Damage == nil || rep.Damage.File != tc.file {
				t.Errorf("repair found %+v, want damage in %s", rep.Damage, tc.file)
			}
			if tc.file == "log" {
				saved, err := os.ReadFile(rep.SavedLog)
				if err != nil || !bytes.Equal(saved, log) {
					t.Errorf("the damaged log was not saved as it was (%v)", err)
				}
				if rep.DroppedBytes != int64(len(log)-tc.offset) || (rep.DroppedFrames > 0) != tc.following {
					t.Errorf("repair dropped %d bytes (%d frames that verified), want %d bytes", rep.DroppedBytes, rep.DroppedFrames, len(log)-tc.offset)
				}
			} else if saved, err := os.ReadFile(rep.SavedSnapshot); err != nil || !bytes.Equal(saved, snap) {
				t.Errorf("the snapshot was not set aside as it was (%v)", err)
			}
			if !strings.Contains(rep.String(), "kept ") {
				t.Errorf("repair report %q", rep.String())
			}
			sim, err = simulator.New(simulator.WithDataDir(dir), simulator.WithDiagnostics(&diag), simulator.WithSnapshotEvery(0))
			if err != nil {
				t.Fatalf("start after the repair: %v", err)
			}
			defer sim.Close()
			rec, err := sim.Recording()
			if err != nil {
				t.Fatal(err)
			}
			if rec.Len() != tc.keep {
				t.Errorf("after the repair %d inputs, want %d", rec.Len(), tc.keep)
			}
		})
	}
}

// TestDataDirOpenKinds starts on directories of each kind: new (missing,
// empty, or a log of zero bytes) starts a new log; ours continues; ours
// with a damaged first frame, a foreign file as the log and a foreign
// directory layout stop the start with a *DataDirError (Foreign for what
// is not a simulator's) and change no byte: no file is written, not even
// the lock.
func TestDataDirOpenKinds(t *testing.T) {
	t.Parallel()
	base := newDamageBase(t, 0)
	foreign := bytes.Repeat([]byte("# my notes, not a simulator log\n"), 160)[:5000]
	recFile, err := os.ReadFile(filepath.Join("testdata", "recording-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	files := func(kv ...any) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			for i := 0; i < len(kv); i += 2 {
				path := filepath.Join(dir, kv[i].(string))
				if b, ok := kv[i+1].([]byte); ok {
					if err := os.WriteFile(path, b, 0o600); err != nil {
						t.Fatal(err)
					}
				} else if err := os.MkdirAll(path, 0o700); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, tc := range []struct {
		name    string
		missing bool // dir does not exist
		setup   func(t *testing.T, dir string)
		// want: "new", "ours" (inputs kept), or the refusal's reason.
		want    string
		foreign bool
		keep    int
	}{
		{name: "missing directory", missing: true, want: "new"},
		{name: "empty directory", setup: files(), want: "new"},
		{name: "a lock and nothing else (a start that stopped early)", setup: files("lock", []byte{}), want: "new"},
		{name: "a log of zero bytes", setup: files("log", []byte{}), want: "new"},
		{name: "ours", setup: files("log", base.log, "lock", []byte("1\n")), want: "ours", keep: len(base.offs) - 1},
		{name: "ours, a repair's saved copy beside the log", setup: files("log", base.log, "log.damaged-20260101T000000.000000000Z", base.log), want: "ours", keep: len(base.offs) - 1},
		{name: "ours with a damaged first frame (the header)", setup: files("log", flip(base.log, 70), "lock", []byte("1\n")), want: "checksum mismatch"},
		{name: "ours with a damaged first input", setup: files("log", flip(base.log, base.offs[1]+9), "lock", []byte("1\n")), want: "checksum mismatch"},
		{name: "ours with a header cut short", setup: files("log", base.log[:base.offs[1]-4]), want: "the header frame: a frame cut short"},
		{name: "a foreign file as the log", setup: files("log", foreign), want: "does not start with a simulator header", foreign: true},
		{name: "a recording file as the log", setup: files("log", recFile), want: "does not start with a simulator header", foreign: true},
		{name: "a foreign directory layout", setup: files("notes.txt", []byte("hello"), "db", nil), want: "files a simulator does not write (db, notes.txt)", foreign: true},
		{name: "a foreign file beside our log", setup: files("log", base.log, "data.sqlite", []byte("SQLite format 3\x00")), want: "files a simulator does not write (data.sqlite)", foreign: true},
		{name: "a snapshot without its log", setup: files("snapshot", []byte("{}\n")), want: "a snapshot without its log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "data")
			if !tc.missing {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				tc.setup(t, dir)
			}
			var before map[string]string
			if !tc.missing {
				before = hashDir(t, dir)
			}
			var diag bytes.Buffer
			sim, err := simulator.New(simulator.WithDataDir(dir), simulator.WithDiagnostics(&diag))
			switch tc.want {
			case "new", "ours":
				if err != nil {
					t.Fatalf("start: %v", err)
				}
				defer sim.Close()
				rec, err := sim.Recording()
				if err != nil {
					t.Fatal(err)
				}
				if rec.Len() != tc.keep {
					t.Errorf("%d inputs, want %d", rec.Len(), tc.keep)
				}
				if tc.want == "new" && strings.Contains(diag.String(), "restarted") {
					t.Errorf("a new directory restarted: %s", diag.String())
				}
				if tc.want == "ours" && !strings.Contains(diag.String(), "restarted") {
					t.Errorf("our directory did not restart: %s", diag.String())
				}
				return
			}
			var de *simulator.DataDirError
			if !errors.As(err, &de) || !strings.Contains(de.Reason, tc.want) || de.Foreign != tc.foreign {
				t.Fatalf("start: %v; want a *DataDirError %q (foreign %v)", err, tc.want, tc.foreign)
			}
			if !strings.Contains(err.Error(), "nothing was changed") {
				t.Errorf("the refusal does not say nothing changed: %v", err)
			}
			if diff := cmp.Diff(before, hashDir(t, dir)); diff != "" {
				t.Errorf("the refused start changed the directory (-before +after):\n%s", diff)
			}
			if tc.foreign {
				if _, err := simulator.RepairDataDir(dir); !errors.As(err, &de) || !de.Foreign {
					t.Errorf("repair of a foreign directory: %v", err)
				}
				if diff := cmp.Diff(before, hashDir(t, dir)); diff != "" {
					t.Errorf("the refused repair changed the directory (-before +after):\n%s", diff)
				}
			}
		})
	}
}
