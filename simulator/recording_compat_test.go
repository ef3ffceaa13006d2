package simulator_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestReplayVersion1Recording replays a recording written by an earlier
// build (version 1: the start cut to whole seconds, the end line's digest
// over the whole state with the clock): it replays, its digest is checked
// the way it was written, and the simulator records on in the current
// version. The same file with one balance changed is refused.
func TestReplayVersion1Recording(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "recording-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"version":1,`)) {
		t.Fatal("testdata/recording-v1.jsonl is not of version 1")
	}
	rec, err := simulator.ReadRecording(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	sim := simtest.Start(t, simulator.WithRecording(rec))
	if got, want := sim.Clock.Now(), time.Date(2026, 3, 1, 10, 1, 30, 0, time.UTC); !got.Equal(want) {
		t.Errorf("clock after the replay %s, want the recording's end %s", got, want)
	}
	if m, ok := sim.Members.Get("old-2"); !ok || m.ExternalID != "old-2" {
		t.Errorf("member old-2: %+v, %v", m, ok)
	}
	again, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := again.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"version":2,`)) {
		t.Errorf("the recording taken after the replay is not of the current version: %.200s", out.String())
	}
	replayed, err := simulator.ReadRecording(&out)
	if err != nil {
		t.Fatal(err)
	}
	rp := simtest.Start(t, simulator.WithRecording(replayed))
	sameState(t, sim, rp)

	edited := bytes.Replace(b, []byte(`\"USDT\":\"3\"`), []byte(`\"USDT\":\"4\"`), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("the edit did not apply")
	}
	rec, err = simulator.ReadRecording(bytes.NewReader(edited))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := simulator.New(simulator.WithRecording(rec)); err == nil || !strings.Contains(err.Error(), "another state") {
		t.Errorf("an edited version 1 recording: %v", err)
	}
}

// TestPartialRecording cuts a recording short: without its end line (or in
// the middle of its last line) ReadRecording refuses it with
// ErrPartialRecording and a message naming the way to replay it anyway;
// ReadPartialRecording reads it, and a simulator started from it reaches
// the state after the inputs it holds and says so in its state (GET
// /_sim/state partial_replay, which the dashboard shows). A whole recording
// is not partial either way; a line after the end line is refused.
func TestPartialRecording(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile(filepath.Join("testdata", "recording-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSpace(whole), []byte("\n"))
	n := len(lines) - 2 // inputs: the header and the end line are not
	noEnd := bytes.Join(lines[:len(lines)-1], nil)
	midLine := append(append([]byte(nil), noEnd...), lines[len(lines)-1][:20]...)
	midInput := bytes.Join(lines[:len(lines)-2], nil)
	midInput = append(midInput, lines[len(lines)-2][:30]...)
	for _, tc := range []struct {
		name   string
		file   []byte
		inputs int
	}{
		{"no end line", noEnd, n},
		{"cut inside the end line", midLine, n},
		{"cut inside the last input", midInput, n - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := simulator.ReadRecording(bytes.NewReader(tc.file))
			if err == nil || (tc.name == "no end line" && (!errors.Is(err, simulator.ErrPartialRecording) || !strings.Contains(err.Error(), "-replay-partial"))) {
				t.Errorf("ReadRecording: %v, want ErrPartialRecording naming -replay-partial", err)
			}
			rec, err := simulator.ReadPartialRecording(bytes.NewReader(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !rec.Partial() || rec.Len() != tc.inputs {
				t.Errorf("partial %v, %d inputs; want partial, %d", rec.Partial(), rec.Len(), tc.inputs)
			}
			sim := simtest.Start(t, simulator.WithRecording(rec))
			want := &simulator.PartialReplay{Inputs: tc.inputs, Note: fmt.Sprintf("started from a recording cut short (no end line): the state after its %d inputs, not checked against the recorded state", tc.inputs)}
			if diff := cmp.Diff(want, sim.State().PartialReplay); diff != "" {
				t.Errorf("State().PartialReplay (-want +got):\n%s", diff)
			}
			resp, err := http.Get(sim.URL() + "/_sim/state")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var st struct {
				PartialReplay *simulator.PartialReplay `json:"partial_replay"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, st.PartialReplay); diff != "" {
				t.Errorf("GET /_sim/state partial_replay (-want +got):\n%s", diff)
			}
		})
	}
	rec, err := simulator.ReadPartialRecording(bytes.NewReader(whole))
	if err != nil || rec.Partial() {
		t.Errorf("a whole recording read by ReadPartialRecording: partial %v, %v", rec != nil && rec.Partial(), err)
	}
	if sim := simtest.Start(t, simulator.WithRecording(rec)); sim.State().PartialReplay != nil {
		t.Error("a whole recording's replay reports itself partial")
	}
	after := append(append([]byte(nil), whole...), lines[1]...)
	if _, err := simulator.ReadRecording(bytes.NewReader(after)); err == nil || !strings.Contains(err.Error(), "follows the end line") {
		t.Errorf("a line after the end line: %v", err)
	}
	// The dashboard shows it.
	sim := simtest.Start(t)
	for path, want := range map[string]string{"/_sim/ui/app.js": "s.partial_replay", "/_sim/ui/": `id="partial-replay"`} {
		resp, err := http.Get(sim.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s does not show the partial replay (%q)", path, want)
		}
	}
}

// TestDataDirOfAnEarlierBuild starts on a data directory an earlier build
// wrote on the wall clock and left with kill -9 (testdata/datadir-v1: a
// version 1 log whose header keeps the start cut to the second, and a
// snapshot of input 4 keeping it whole, two inputs after it): it
// continues with every member, and its recording (now of version 2)
// replays to the same digest.
func TestDataDirOfAnEarlierBuild(t *testing.T) {
	t.Parallel()
	dir := copyDataDir(t, "datadir-v1")
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag)
	defer sim.Close()
	for i := 1; i <= 5; i++ {
		if _, ok := sim.Members.Get(fmt.Sprintf("o-%d", i)); !ok {
			t.Errorf("member o-%d missing after the restart (%s)", i, diag.String())
		}
	}
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := rec.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte(`{"format":"mwallet-sim-recording","version":2,`)) {
		t.Errorf("recording header %.80s", buf.String())
	}
	back, err := simulator.ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rp := simtest.Start(t, simulator.WithRecording(back))
	if a, b := mustDigest(t, sim), mustDigest(t, rp); a != b {
		t.Errorf("digest of the restarted directory %s, of its recording's replay %s", a, b)
	}
}
