package datadir

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

type testConfig struct {
	Seed int64 `json:"seed"`
}

func decodeConfig(raw json.RawMessage) error {
	var c testConfig
	return json.Unmarshal(raw, &c)
}

// newLog opens a store in a new directory and writes a header and n
// inputs, synced; it returns the store and the inputs' end offsets.
func newLog(t *testing.T, n int) (*Store, []int64) {
	t.Helper()
	st, err := Open(t.TempDir(), io.Discard, 0, decodeConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if err := st.Create(recfile.Header[testConfig]{Format: recfile.Format, Version: recfile.Version, Config: testConfig{Seed: 7}}); err != nil {
		t.Fatal(err)
	}
	var ends []int64
	for i := 1; i <= n; i++ {
		end, err := st.Append(&recfile.Input{Seq: int64(i), Op: recfile.OpHTTP, Method: "POST", Target: "/v1/x", Body: []byte(`{"n":1}`)})
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, end)
	}
	if err := st.Durable(st.Written()); err != nil {
		t.Fatal(err)
	}
	return st, ends
}

// TestAppendedInputsReadBack: what Append writes, CheckLog verifies and
// Scan and ReadInputs read back in order.
func TestAppendedInputsReadBack(t *testing.T) {
	t.Parallel()
	st, ends := newLog(t, 3)
	c, err := st.CheckLog(true, ends[1])
	if err != nil {
		t.Fatal(err)
	}
	if c.Damage != nil || c.Torn != "" || c.Inputs != 3 || c.End != ends[2] || c.Size != ends[2] || c.Marks[ends[1]] != 2 {
		t.Fatalf("CheckLog = %+v", c)
	}
	var cfg testConfig
	if err := json.Unmarshal(c.Hdr.Config, &cfg); err != nil || cfg.Seed != 7 {
		t.Fatalf("header config %s: %v", c.Hdr.Config, err)
	}
	var seqs []int64
	end, last, n, err := st.Scan(c.HeaderLen, c.End, func(in *recfile.Input, _ int64) error {
		seqs = append(seqs, in.Seq)
		return nil
	})
	if err != nil || end != c.End || last != c.Last || n != 3 {
		t.Fatalf("Scan = %d, %d, %d, %v; want %d, %d, 3", end, last, n, err, c.End, c.Last)
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, seqs); diff != "" {
		t.Errorf("scanned seqs (-want +got):\n%s", diff)
	}
	ins, err := st.ReadInputs(ends[1])
	if err != nil || len(ins) != 2 || string(ins[1].Body) != `{"n":1}` {
		t.Fatalf("ReadInputs(up to input 2) = %d inputs, %v", len(ins), err)
	}
	var rec bytes.Buffer
	if err := st.WriteRecording(&rec, ends[0], map[string]string{"format": "x"}, &recfile.Input{Seq: 1, Op: recfile.OpEnd}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(rec.String()), "\n")
	if len(lines) != 3 || lines[0] != `{"format":"x"}` || !strings.Contains(lines[1], `"seq":1`) || !strings.Contains(lines[2], `"op":"end"`) {
		t.Errorf("WriteRecording up to input 1:\n%s", rec.String())
	}
}

// TestCheckLogTellsACrashFromDamage: what a crash leaves at the end of the
// log is a torn tail, anything else is damage with its offset, and a file
// a simulator does not write makes the directory foreign.
func TestCheckLogTellsACrashFromDamage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		spoil      func(t *testing.T, path string, ends []int64)
		wantTorn   bool
		wantDamage string // a part of the damage's reason, "" for none
	}{
		{"clean", func(*testing.T, string, []int64) {}, false, ""},
		{"a frame cut short at the end", func(t *testing.T, path string, ends []int64) {
			if err := os.Truncate(path, ends[2]-3); err != nil {
				t.Fatal(err)
			}
		}, true, ""},
		{"zero bytes at the end", func(t *testing.T, path string, _ []int64) { appendBytes(t, path, make([]byte, 100)) }, true, ""},
		{"a flipped bit in the middle", func(t *testing.T, path string, ends []int64) { flip(t, path, ends[0]+12) }, false, "checksum mismatch"},
		{"a length no frame has", func(t *testing.T, path string, ends []int64) {
			appendBytes(t, path, []byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0})
		}, false, "more than any frame"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, ends := newLog(t, 3)
			tt.spoil(t, st.path, ends)
			c, err := st.CheckLog(true)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Torn != ""; got != tt.wantTorn {
				t.Errorf("torn = %q, want torn %v", c.Torn, tt.wantTorn)
			}
			switch {
			case tt.wantDamage == "" && c.Damage != nil:
				t.Errorf("damage %v, want none", c.Damage)
			case tt.wantDamage != "" && (c.Damage == nil || !strings.Contains(c.Damage.Reason, tt.wantDamage)):
				t.Errorf("damage %v, want %q", c.Damage, tt.wantDamage)
			}
		})
	}
}

// TestCheckLayoutRefusesForeignDirectories: a directory with files a
// simulator does not write, or a snapshot without its log, is refused
// with a *Damage.
func TestCheckLayoutRefusesForeignDirectories(t *testing.T) {
	t.Parallel()
	for name, files := range map[string][]string{"foreign file": {"notes.txt"}, "snapshot without log": {SnapshotName}} {
		dir := t.TempDir()
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		var d *Damage
		if _, err := CheckLayout(dir); !errors.As(err, &d) {
			t.Errorf("%s: CheckLayout = %v, want a *Damage", name, err)
		}
	}
	if hasLog, err := CheckLayout(t.TempDir()); hasLog || err != nil {
		t.Errorf("an empty directory: %v, %v", hasLog, err)
	}
}

// source captures a fixed state, or asks to be tried again.
type source struct {
	state   string
	busy    bool
	release int
}

func (s *source) Capture(held func(time.Time)) (Capture, bool) {
	if s.busy {
		return nil, false
	}
	held(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	return capture{s}, true
}

type capture struct{ s *source }

func (c capture) Write(w io.Writer) error { _, err := io.WriteString(w, c.s.state); return err }
func (c capture) Release()                { c.s.release++ }

// TestSnapshotOfTheSource: a snapshot holds what the source captured, at
// the log's end, and verifies against the log; a busy source writes
// nothing; a snapshot with nothing new is not written again.
func TestSnapshotOfTheSource(t *testing.T) {
	t.Parallel()
	st, ends := newLog(t, 2)
	src := &source{state: "{\"t\":1}\n", busy: true}
	st.StartSnapshots(src, 0)
	if st.Snapshot() {
		t.Fatal("Snapshot of a busy source reported done")
	}
	if sf, err := st.LoadSnapshot(); sf != nil || err != nil {
		t.Fatalf("a busy source left a snapshot: %+v, %v", sf, err)
	}
	src.busy = false
	if !st.Snapshot() {
		t.Fatal("Snapshot did not complete")
	}
	sf, err := st.LoadSnapshot()
	if err != nil || sf == nil {
		t.Fatalf("LoadSnapshot = %v, %v", sf, err)
	}
	if string(sf.Img) != src.state || sf.Meta.Seq != 2 || sf.Meta.Offset != ends[1] || sf.Meta.Version != SnapshotVersion {
		t.Fatalf("snapshot %+v %q", sf.Meta, sf.Img)
	}
	c, err := st.CheckLog(false, sf.Meta.Offset)
	if err != nil {
		t.Fatal(err)
	}
	if ok, why, damage := sf.Verify(st, c); !ok || why != "" || damage != nil {
		t.Fatalf("Verify = %v, %q, %v", ok, why, damage)
	}
	if !st.Snapshot() || src.release != 1 {
		t.Errorf("a snapshot with nothing new: released %d captures, want 1", src.release)
	}
}

// TestRepairKeepsTheInputsBeforeTheDamage: the damaged log is saved aside
// and cut before the frame that does not verify.
func TestRepairKeepsTheInputsBeforeTheDamage(t *testing.T) {
	t.Parallel()
	st, ends := newLog(t, 3)
	flip(t, st.path, ends[1]+12)
	rep, err := st.Repair()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Damage == nil || rep.KeptInputs != 2 || rep.KeptBytes != ends[1] || rep.SavedLog == "" {
		t.Fatalf("Repair = %+v", rep)
	}
	if _, err := os.Stat(rep.SavedLog); err != nil {
		t.Errorf("the damaged log was not saved: %v", err)
	}
	c, err := st.CheckLog(true)
	if err != nil || c.Damage != nil || c.Inputs != 2 {
		t.Fatalf("after the repair: %+v, %v", c, err)
	}
	if !strings.Contains(rep.String(), "kept 2 whole inputs") {
		t.Errorf("String() = %q", rep.String())
	}
}

func appendBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

func flip(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 1
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCheckConfig checks that a configuration is refused exactly when it
// does not decode as the build's.
func TestCheckConfig(t *testing.T) {
	type config struct {
		Seed int64 `json:"seed"`
	}
	tests := []struct {
		raw  string
		fail bool
	}{
		{`{"seed":1}`, false},
		{`{"seed":1,"other":true}`, false},
		{`{"seed":"one"}`, true},
		{`[1]`, true},
		{`{`, true},
	}
	for _, tt := range tests {
		if err := CheckConfig[config](json.RawMessage(tt.raw)); (err != nil) != tt.fail {
			t.Errorf("CheckConfig(%s) = %v, want failure %v", tt.raw, err, tt.fail)
		}
	}
}
