package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serveFor runs serve with args until the test ends and returns its base
// URL and a function that stops it and returns its error and output.
func serveFor(t *testing.T, args ...string) (string, func() (string, error)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), &stdout, &stderr, func(u string) { urls <- u })
	}()
	select {
	case base := <-urls:
		stopped := false
		stop := func() (string, error) {
			if stopped {
				return "", nil
			}
			stopped = true
			cancel()
			err := <-done
			return stdout.String() + stderr.String(), err
		}
		t.Cleanup(func() { stop() })
		return base, stop
	case err := <-done:
		cancel()
		t.Fatalf("serve %v returned early: %v (%s%s)", args, err, stdout.String(), stderr.String())
	}
	return "", nil
}

func controlCall(t *testing.T, method, url string, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json") // control writes are JSON
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return b
}

func digestAt(t *testing.T, base string) string {
	t.Helper()
	var d struct{ Digest string }
	if err := json.Unmarshal(controlCall(t, "GET", base+"/_sim/digest", ""), &d); err != nil || d.Digest == "" {
		t.Fatalf("digest: %v", err)
	}
	return d.Digest
}

// TestServeDataAndReplay serves with -data, stops, serves again on the
// same directory (the state is there; a second server on it is refused
// meanwhile), saves the recording, and serves it with -replay: the same
// state.
func TestServeDataAndReplay(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	base, stop := serveFor(t, "-data", dir, "-clock", "manual")
	controlCall(t, "POST", base+"/_sim/members", `{"external_member_id":"kept","kyc_level":1,"balances":{"USDT":"12.5"}}`)
	controlCall(t, "POST", base+"/_sim/clock", `{"advance_seconds":90}`)
	before := digestAt(t, base)
	if out, err := stop(); err != nil || !strings.Contains(out, "data            "+dir) {
		t.Fatalf("serve: %v\n%s", err, out)
	}

	base, stop = serveFor(t, "-data", dir, "-clock", "manual")
	if got := digestAt(t, base); got != before {
		t.Errorf("digest after the restart %s, before %s", got, before)
	}
	if !strings.Contains(string(controlCall(t, "GET", base+"/_sim/members/kept", "")), `"available":"12.500000"`) {
		t.Error("the member did not survive the restart")
	}
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "-addr", "127.0.0.1:0", "-data", dir}, io.Discard, &stderr, nil)
	if err == nil || !strings.Contains(err.Error(), "in use by another simulator") {
		t.Errorf("a second server on %s: %v", dir, err)
	}
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(rec, controlCall(t, "GET", base+"/_sim/recording", ""), 0o600); err != nil {
		t.Fatal(err)
	}
	stop()

	base, _ = serveFor(t, "-replay", rec)
	if got := digestAt(t, base); got != before {
		t.Errorf("digest of the replay %s, want %s", got, before)
	}
	if _, err := parseServe([]string{"-snapshot-every", "-1"}, io.Discard); err == nil {
		t.Error("-snapshot-every -1 accepted")
	}
	if c, _ := parseServe([]string{"-replay", rec}, io.Discard); c.clock != "manual" {
		t.Errorf("-replay without -clock: clock %s, want manual", c.clock)
	}
	if c, _ := parseServe([]string{"-replay", rec, "-clock", "wall"}, io.Discard); c.clock != "wall" {
		t.Errorf("-replay -clock wall: clock %s", c.clock)
	}
}
