package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// endLine returns the end line of a recording file's bytes.
func endLine(t *testing.T, rec []byte) (end struct {
	Op     string
	Clock  string
	Digest string
}) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSpace(rec), []byte("\n"))
	if err := json.Unmarshal(lines[len(lines)-1], &end); err != nil || end.Op != "end" {
		t.Fatalf("the recording's last line is not its end line: %s (%v)", lines[len(lines)-1], err)
	}
	return end
}

// TestReplayEveryClockMode records a simulator served in each clock mode
// (the wall clock, a manual one at a whole and at a fractional second,
// with and without a data directory and its snapshots), replays the
// recording with mwallet-sim serve -replay, and compares the digests: the
// live one, the recording's end line and the replay's are equal, and the
// replay's clock is the recording's end.
func TestReplayEveryClockMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		inputs bool
		data   bool
		replay []string
	}{
		{name: "wall clock, no input", args: []string{}},
		{name: "wall clock, inputs", args: []string{}, inputs: true},
		{name: "wall clock, replayed on a wall clock", args: []string{}, inputs: true, replay: []string{"-clock", "wall"}},
		{name: "manual clock, whole second", args: []string{"-clock", "manual", "-start", "2026-03-01T10:00:00Z"}, inputs: true},
		{name: "manual clock, fractional start", args: []string{"-clock", "manual", "-start", "2026-03-01T10:00:00.5Z"}, inputs: true},
		{name: "manual clock, fractional start, no input", args: []string{"-clock", "manual", "-start", "2026-03-01T10:00:00.123456789Z"}},
		{name: "wall clock, -data with snapshots", args: []string{"-snapshot-every", "1"}, inputs: true, data: true},
		{name: "manual fractional, -data with snapshots", args: []string{"-clock", "manual", "-start", "2026-03-01T10:00:00.25Z", "-snapshot-every", "2"}, inputs: true, data: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := tc.args
			if tc.data {
				args = append(args, "-data", filepath.Join(t.TempDir(), "data"))
			}
			base, stop := serveFor(t, args...)
			if tc.inputs {
				controlCall(t, "POST", base+"/_sim/members", `{"external_member_id":"m-1","kyc_level":1,"balances":{"USDT":"12.5"}}`)
				controlCall(t, "POST", base+"/_sim/clock", `{"advance_seconds":30}`)
				controlCall(t, "POST", base+"/_sim/members", `{"external_member_id":"m-2","kyc_level":2,"balances":{"USDC":"0.5"}}`)
				controlCall(t, "POST", base+"/_sim/members/m-1/kyc_country", `{"country":"TH"}`)
			}
			live := digestAt(t, base)
			rec := controlCall(t, "GET", base+"/_sim/recording", "")
			end := endLine(t, rec)
			if end.Digest != live {
				t.Errorf("end line digest %s, live digest %s", end.Digest, live)
			}
			stop()
			file := filepath.Join(t.TempDir(), "rec.jsonl")
			if err := os.WriteFile(file, rec, 0o600); err != nil {
				t.Fatal(err)
			}
			base, stop = serveFor(t, append([]string{"-replay", file}, tc.replay...)...)
			if got := digestAt(t, base); got != live {
				t.Errorf("replay digest %s, live %s", got, live)
			}
			// The digest's reading is whole (GET /_sim/clock cuts it to the
			// second): a wall clock reads the host's time to the nanosecond.
			var clock struct{ Now time.Time }
			if err := json.Unmarshal(controlCall(t, "GET", base+"/_sim/digest", ""), &clock); err != nil {
				t.Fatal(err)
			}
			if want, err := time.Parse(time.RFC3339Nano, end.Clock); err != nil || (tc.replay == nil && !clock.Now.Equal(want)) {
				t.Errorf("replay clock %s, the recording's end %s (%v)", clock.Now.Format(time.RFC3339Nano), end.Clock, err)
			}
			if out, err := stop(); err != nil || !strings.Contains(out, "replayed") {
				t.Errorf("replay: %v\n%s", err, out)
			}
		})
	}
}

// TestServeReplayPartial serves a recording cut short (its end line
// missing): refused by default, with the flag to use named; served with
// -replay-partial, whose banner and GET /_sim/state (the dashboard) say
// the state is partial.
func TestServeReplayPartial(t *testing.T) {
	t.Parallel()
	base, stop := serveFor(t, "-clock", "manual")
	controlCall(t, "POST", base+"/_sim/members", `{"external_member_id":"p-1","kyc_level":1,"balances":{"USDT":"1"}}`)
	rec := controlCall(t, "GET", base+"/_sim/recording", "")
	stop()
	cut := rec[:bytes.LastIndex(bytes.TrimSpace(rec), []byte("\n"))+1]
	file := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(file, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "-addr", "127.0.0.1:0", "-replay", file}, io.Discard, &stderr, nil)
	if err == nil || !strings.Contains(err.Error(), "no end line") || !strings.Contains(err.Error(), "-replay-partial") || exitStatus(err, io.Discard) != 1 {
		t.Errorf("serve -replay of a cut recording: %v", err)
	}
	base, stop = serveFor(t, "-replay", file, "-replay-partial")
	var st struct {
		PartialReplay *struct{ Inputs int } `json:"partial_replay"`
		Members       []struct {
			ExternalMemberID string `json:"external_member_id"`
		}
	}
	if err := json.Unmarshal(controlCall(t, "GET", base+"/_sim/state", ""), &st); err != nil {
		t.Fatal(err)
	}
	if st.PartialReplay == nil || st.PartialReplay.Inputs != 2 {
		t.Errorf("partial_replay %+v, want 2 inputs", st.PartialReplay)
	}
	if out, err := stop(); err != nil || !strings.Contains(out, "PARTIAL REPLAY") {
		t.Errorf("banner of a partial replay:\n%s (%v)", out, err)
	}
	if _, err := parseServe([]string{"-replay-partial"}, io.Discard); err == nil {
		t.Error("-replay-partial without -replay accepted")
	}
	if _, err := parseServe([]string{"-data-repair"}, io.Discard); err == nil {
		t.Error("-data-repair without -data accepted")
	}
}
