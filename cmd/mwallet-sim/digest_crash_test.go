package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// digestAndClock returns GET /_sim/digest's digest and clock reading.
func digestAndClock(t *testing.T, base string) (digest, now string) {
	t.Helper()
	var d struct{ Digest, Now string }
	if err := json.Unmarshal(controlCall(t, "GET", base+"/_sim/digest", ""), &d); err != nil || d.Digest == "" || d.Now == "" {
		t.Fatalf("digest: %v", err)
	}
	return d.Digest, d.Now
}

// TestDigestSurvivesKillWithWallClock serves with -data on the wall clock
// (the default), runs ten inputs, takes the digest, kills the process with
// SIGKILL and restarts it on the directory once the wall clock has moved:
// the digest is the same, and the clock reported beside it has moved on.
func TestDigestSurvivesKillWithWallClock(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds mwallet-sim (-short)")
	}
	bin := buildSim(t)
	dir := filepath.Join(t.TempDir(), "data")
	addr := freeAddr(t)
	base := "http://" + addr
	srv := startSim(t, bin, addr, dir)
	for i := 1; i <= 5; i++ {
		controlCall(t, "POST", base+"/_sim/members", fmt.Sprintf(`{"external_member_id":"wall-%d","kyc_level":1,"balances":{"USDT":"%d.5"}}`, i, i))
		controlCall(t, "POST", base+fmt.Sprintf("/_sim/members/wall-%d/kyc_country", i), `{"country":"TH"}`)
	}
	before, then := digestAndClock(t, base)
	srv.kill(t)
	srv = startSim(t, bin, addr, dir)
	defer srv.stop(t)
	// The wall clock moves on (the simulator follows it every half second).
	deadline := time.Now().Add(30 * time.Second)
	after, now := digestAndClock(t, base)
	for now == then && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		after, now = digestAndClock(t, base)
	}
	if now == then {
		t.Fatalf("the clock did not move: %s", now)
	}
	if after != before {
		t.Errorf("digest after kill -9 and restart %s (clock %s), before %s (clock %s)\n%s", after, now, before, then, srv.output())
	}
}
