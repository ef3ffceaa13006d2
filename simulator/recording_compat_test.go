package simulator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
