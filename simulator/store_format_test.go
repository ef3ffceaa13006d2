package simulator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataDirWithASnapshotOfFormat1 starts on a data directory the last
// build of snapshot format 1 wrote (testdata/datadir-snapshot-v1: three
// members made through the control API, six signed deposits, a clock
// advance, closed with SIGINT, which wrote a snapshot of input 14 that
// build read back): the snapshot is ignored and the whole log replayed, to
// the digest that build served (GET /_sim/digest before it stopped); Close
// then writes a snapshot of format 2, which the next start reads in place
// of the log, to the same digest.
func TestDataDirWithASnapshotOfFormat1(t *testing.T) {
	t.Parallel()
	const want = "sha256:e869841474e118e1400166bcfeadd2d2abd1e77711fce59d5321be2482cd1cd3"
	dir := copyDataDir(t, "datadir-snapshot-v1")
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag)
	if got := mustDigest(t, sim); got != want {
		t.Errorf("digest %s, the writing build's %s", got, want)
	}
	for _, s := range []string{"snapshot not used (of format version 1): replaying the whole log", "restarted at input 14: 14 inputs replayed"} {
		if !strings.Contains(diag.String(), s) {
			t.Errorf("diagnostics %q, want %q", diag.String(), s)
		}
	}
	for _, id := range []string{"old-1", "old-2", "old-3"} {
		if _, ok := sim.Members.Get(id); !ok {
			t.Errorf("member %s missing", id)
		}
	}
	sim.Close()

	head, err := os.ReadFile(filepath.Join(dir, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(head, []byte(`{"format":"mwallet-sim-snapshot","version":2,"seq":14,`)) {
		t.Errorf("the snapshot Close wrote begins %.80q", head)
	}
	diag.Reset()
	again := openDir(t, dir, &diag)
	defer again.Close()
	if !strings.Contains(diag.String(), "snapshot of input 14 read") || !strings.Contains(diag.String(), " 0 inputs replayed") {
		t.Errorf("the second start did not read the new snapshot: %q", diag.String())
	}
	if got := mustDigest(t, again); got != want {
		t.Errorf("digest after the new snapshot %s, want %s", got, want)
	}
}
