package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	bin32 "encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// dirHashes returns the SHA-256 of every file in dir, by name.
func dirHashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, en := range entries {
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[en.Name()] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return out
}

// runSim runs the binary to its end and returns its exit status and
// output.
func runSim(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatalf("%s %v: %v\n%s", bin, args, err, out.String())
	return 0, ""
}

// TestRestartAfterMidLogDamage serves with -data, writes, kills the
// process with SIGKILL and flips a byte in a frame in the middle of the
// log: the restart exits with status 1, names the offset and the repair
// command, and changes no byte of the directory (every file hashed before
// and after). mwallet-sim repair DIR then saves the log aside and cuts it,
// and the restart keeps the inputs before the damage.
func TestRestartAfterMidLogDamage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds mwallet-sim (-short)")
	}
	bin := buildSim(t)
	dir := filepath.Join(t.TempDir(), "data")
	addr := freeAddr(t)
	base := "http://" + addr
	srv := startSim(t, bin, addr, dir)
	for i := 1; i <= 20; i++ {
		controlCall(t, "POST", base+"/_sim/members", fmt.Sprintf(`{"external_member_id":"dmg-%d","kyc_level":1,"balances":{"USDT":"%d"}}`, i, i))
	}
	srv.kill(t)
	logPath := filepath.Join(dir, "log")
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var offs []int
	for off := 0; off < len(log); off += 8 + int(bin32.LittleEndian.Uint32(log[off:])) {
		offs = append(offs, off)
	}
	mid := len(offs) / 2
	log[offs[mid]+20] ^= 0x01
	if err := os.WriteFile(logPath, log, 0o600); err != nil {
		t.Fatal(err)
	}
	before := dirHashes(t, dir)
	status, out := runSim(t, bin, "serve", "-addr", freeAddr(t), "-data", dir)
	if status != 1 || !strings.Contains(out, fmt.Sprintf("damaged at offset %d: checksum mismatch", offs[mid])) || !strings.Contains(out, "mwallet-sim repair "+dir) {
		t.Errorf("restart on a damaged log: exit status %d, output:\n%s", status, out)
	}
	if diff := cmp.Diff(before, dirHashes(t, dir)); diff != "" {
		t.Errorf("the refused restart changed the directory (-before +after):\n%s", diff)
	}

	status, out = runSim(t, bin, "repair", dir)
	if status != 0 || !strings.Contains(out, fmt.Sprintf("dropped %d bytes", len(log)-offs[mid])) || !strings.Contains(out, "still verified") {
		t.Errorf("repair: exit status %d, output:\n%s", status, out)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "log.damaged-*"))
	if len(saved) != 1 {
		t.Fatalf("saved copies: %v", saved)
	}
	if b, err := os.ReadFile(saved[0]); err != nil || !bytes.Equal(b, log) {
		t.Errorf("the saved copy is not the damaged log (%v)", err)
	}
	srv = startSim(t, bin, addr, dir)
	defer srv.stop(t)
	var kept int
	for i := 1; i <= 20; i++ {
		resp, err := httpGetStatus(base + fmt.Sprintf("/_sim/members/dmg-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if resp == 200 {
			kept++
		}
	}
	// The log holds the header, a base_url input, then one input a member.
	if want := mid - 2; kept != want {
		t.Errorf("%d members kept after the repair, want the %d before the damaged frame", kept, want)
	}
	if status, out := runSim(t, bin, "repair"); status != 2 {
		t.Errorf("repair without a directory: exit status %d\n%s", status, out)
	}
}

func httpGetStatus(url string) (int, error) {
	resp, err := newHTTPClient(10 * time.Second).Get(url)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
