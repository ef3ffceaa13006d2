package simulator_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
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
	if i := bytes.IndexByte(head, '\n'); i != 255 || !bytes.HasSuffix(head[:i], []byte("  ")) {
		t.Errorf("the snapshot's first line is %d bytes (%q), want the header padded with spaces to 255", i, head[:max(i, 0)])
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

// TestDataDirWithAnUnpaddedSnapshot starts on a snapshot whose header line
// is not padded (as builds before the streamed snapshot wrote it: the
// header, a newline, the state): it is read in place of the log, to the
// digest of the state it holds.
func TestDataDirWithAnUnpaddedSnapshot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sim := openDir(t, dir, &bytes.Buffer{})
	for i := range 5 {
		if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: fmt.Sprintf("pad-%d", i), Balances: map[string]string{"USDT": "7"}}); err != nil {
			t.Fatal(err)
		}
	}
	want := mustDigest(t, sim)
	sim.Close()
	path := filepath.Join(dir, "snapshot")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexByte(b, '\n')
	unpadded := splice(bytes.TrimRight(b[:i], " "), b[i:])
	if len(unpadded) >= len(b) {
		t.Fatalf("the snapshot's header line %q is not padded", b[:i])
	}
	if err := os.WriteFile(path, unpadded, 0o600); err != nil {
		t.Fatal(err)
	}
	var diag bytes.Buffer
	again := openDir(t, dir, &diag)
	defer again.Close()
	if !strings.Contains(diag.String(), " 0 inputs replayed") {
		t.Errorf("the unpadded snapshot was not read: %q", diag.String())
	}
	if got := mustDigest(t, again); got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
}
