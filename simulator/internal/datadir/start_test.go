package datadir

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// fakeSim is a simulator as Start builds it: its input log's numbering,
// the state read into it and the inputs replayed on it.
type fakeSim struct {
	seq      int64
	state    string
	steps    []int64
	store    *Store
	inMemory bool
	finished bool
	replayed bool
	failAt   int64
}

func (s *fakeSim) Seq() int64            { return s.seq }
func (s *fakeSim) StartAt(seq int64)     { s.seq = seq }
func (s *fakeSim) NotInMemory()          { s.inMemory = false }
func (s *fakeSim) AttachStore(st *Store) { s.store = st }
func (s *fakeSim) Abandon()              {}
func (s *fakeSim) Finish()               { s.finished = true }
func (s *fakeSim) Step(in *recfile.Input) error {
	if in.Seq == s.failAt {
		return errors.New("diverges")
	}
	s.seq = in.Seq
	s.steps = append(s.steps, in.Seq)
	return nil
}

// fakeHost builds fakeSims of the seed it is given.
type fakeHost struct {
	seed   int64
	failAt int64
	builds int
}

func (h *fakeHost) CheckConfig(raw json.RawMessage) error { return decodeConfig(raw) }
func (h *fakeHost) Configure(raw json.RawMessage) error {
	var c testConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return err
	}
	if c.Seed != h.seed {
		return errors.New("another seed")
	}
	return nil
}
func (h *fakeHost) Build() (*fakeSim, error) {
	h.builds++
	return &fakeSim{inMemory: true, failAt: h.failAt}, nil
}
func (h *fakeHost) Header(*fakeSim) any {
	return recfile.Header[testConfig]{Format: recfile.Format, Version: recfile.Version, Config: testConfig{Seed: h.seed}}
}
func (h *fakeHost) ReadState(s *fakeSim, r io.Reader) error {
	b, err := io.ReadAll(r)
	s.state = string(b)
	return err
}
func (h *fakeHost) Log(s *fakeSim) Log           { return s }
func (h *fakeHost) Replayer(s *fakeSim) Replayer { return s }
func (h *fakeHost) Replay(s *fakeSim) error      { s.replayed = true; return nil }
func (h *fakeHost) Source(*fakeSim) Source       { return &source{state: "{\"t\":1}\n"} }

// TestStart holds the opening of a directory: a new one (with a
// recording replayed into it), a restart that replays the whole log or
// the inputs after the snapshot, and the refusals of a log of another
// fixture, a recording into a directory with a log and a log that does
// not replay.
func TestStart(t *testing.T) {
	t.Parallel()
	type got struct {
		Seq      int64
		State    string
		Steps    []int64
		Builds   int
		Replayed bool
		InMemory bool
		Finished bool
	}
	tests := []struct {
		name     string
		inputs   int  // inputs logged by an earlier start (none: a new directory)
		snapshot bool // a snapshot taken after them, then one more input
		o        Options
		h        fakeHost
		want     got
		err      string
	}{
		{name: "new", h: fakeHost{seed: 7}, want: got{Builds: 1, InMemory: true}},
		{name: "new with a recording", o: Options{Recording: true}, h: fakeHost{seed: 7}, want: got{Builds: 1, Replayed: true, InMemory: true}},
		{name: "restart", inputs: 3, h: fakeHost{seed: 7}, want: got{Seq: 3, Steps: []int64{1, 2, 3}, Builds: 1, Finished: true}},
		{name: "restart from the snapshot", inputs: 2, snapshot: true, h: fakeHost{seed: 7}, want: got{Seq: 3, State: "{\"t\":1}\n", Steps: []int64{3}, Builds: 1, Finished: true}},
		{name: "another fixture", inputs: 1, h: fakeHost{seed: 8}, err: "another seed"},
		{name: "a recording into a log", inputs: 1, o: Options{Recording: true}, h: fakeHost{seed: 7}, err: "already holds a log"},
		{name: "does not replay", inputs: 2, h: fakeHost{seed: 7, failAt: 2}, err: "the log does not replay: diverges"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tt.inputs > 0 {
				writeLog(t, dir, tt.inputs, tt.snapshot)
			}
			o := tt.o
			o.Dir, o.Diag = dir, io.Discard
			h := tt.h
			s, err := Start[*fakeSim](o, &h)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.store.Close()
			g := got{Seq: s.seq, State: s.state, Steps: s.steps, Builds: h.builds, Replayed: s.replayed, InMemory: s.inMemory, Finished: s.finished}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("the simulator (-want +got):\n%s", diff)
			}
		})
	}
}

// writeLog writes a log of n inputs in dir as a start with seed 7 does,
// with a snapshot after them and one more input when snapshot is set.
func writeLog(t *testing.T, dir string, n int, snapshot bool) {
	t.Helper()
	st, err := Open(dir, io.Discard, 0, decodeConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Create(recfile.Header[testConfig]{Format: recfile.Format, Version: recfile.Version, Config: testConfig{Seed: 7}}); err != nil {
		t.Fatal(err)
	}
	add := func(seq int) {
		if _, err := st.Append(&recfile.Input{Seq: int64(seq), Op: recfile.OpHTTP, Method: "POST", Target: "/v1/x"}); err != nil {
			t.Fatal(err)
		}
		if err := st.Durable(st.Written()); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= n; i++ {
		add(i)
	}
	if snapshot {
		st.StartSnapshots(&source{state: "{\"t\":1}\n"}, 0)
		if !st.Snapshot() {
			t.Fatal("Snapshot did not complete")
		}
		add(n + 1)
	}
}
