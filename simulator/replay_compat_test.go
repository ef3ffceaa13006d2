package simulator_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestRecordingsOfEarlierBuildsReplay: recordings written by earlier builds
// (testdata/recordings, one of them read from a data directory) replay on
// this build to the state digest their end line carries, with the books
// balanced and the invariants holding. A change that makes an input act
// differently, or renames what a recording names, fails here.
func TestRecordingsOfEarlierBuildsReplay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file   string
		inputs int // inputs in the recording
	}{
		{"walk-0906f14-seed-11.jsonl", 358},
		{"walk-0906f14-seed-12-data.jsonl", 403},
		{"calls-0906f14.jsonl", 137},
		{"walk-86da9d7-seed-13-v2.jsonl", 548},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "recordings", tc.file)
			want := endDigest(t, path)
			rec, err := simulator.ReadRecordingFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Len() != tc.inputs {
				t.Errorf("%d inputs, want %d", rec.Len(), tc.inputs)
			}
			sim, err := simulator.New(simulator.WithRecording(rec))
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			defer sim.Close()
			// The replay itself checks the end line's digest (want): a
			// version 1 recording against the image as its build encoded
			// it, the clock included (WithRecording refuses a replay that
			// reaches another state, as the renamed call below shows).
			if want == "" {
				t.Fatal("the recording has no end digest")
			}
			// The replayed state, recorded again by this build, replays to
			// this build's digest.
			got, err := sim.Digest()
			if err != nil {
				t.Fatal(err)
			}
			rec2, err := sim.Recording()
			if err != nil {
				t.Fatal(err)
			}
			sim2, err := simulator.New(simulator.WithRecording(rec2))
			if err != nil {
				t.Fatalf("replay of the replay: %v", err)
			}
			defer sim2.Close()
			if got2, err := sim2.Digest(); err != nil || got2 != got {
				t.Errorf("the replay recorded again replays to %s (%v), want %s", got2, err, got)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Error(err)
			}
			if err := sim.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}

// endDigest reads the digest of a recording's end line.
func endDigest(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var last []byte
	for sc.Scan() {
		last = append(last[:0], sc.Bytes()...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	var end struct {
		Op     string `json:"op"`
		Digest string `json:"digest"`
	}
	if err := json.Unmarshal(last, &end); err != nil || end.Op != "end" || end.Digest == "" {
		t.Fatalf("%s: last line is not an end line with a digest: %.200s", path, last)
	}
	return end.Digest
}

// TestRecordingOfEarlierBuildWithARenamedCallFails: the check above has
// teeth: the same recording with one Go control method renamed (as a build
// that renamed Cards.Ship would need) is refused.
func TestRecordingOfEarlierBuildWithARenamedCallFails(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "recordings", "calls-0906f14.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := bytes.ReplaceAll(b, []byte(`"call":"Cards.Ship"`), []byte(`"call":"Cards.ShipCard"`))
	if bytes.Equal(renamed, b) {
		t.Fatal("the recording has no Cards.Ship call")
	}
	rec, err := simulator.ReadRecording(bytes.NewReader(renamed))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulator.New(simulator.WithRecording(rec))
	if err == nil {
		sim.Close()
		t.Fatal("a recording naming an unknown call replayed")
	}
}
