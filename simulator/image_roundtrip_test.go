package simulator_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestSnapshotReadBackWritesTheSameImage runs every kind of input against
// a simulator with a data directory and closes it (which writes a snapshot
// of its last state); a simulator started on the directory reads that
// snapshot and, with no input since, writes the same image byte for byte:
// reading an image back loses nothing and adds nothing, and the image
// writes its maps and tables in one order whatever their history.
func TestSnapshotReadBackWritesTheSameImage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag, simulator.WithSnapshotEvery(25))
	scenario(t, newEdgeOn(t, sim))
	sim.Close()
	file, err := os.ReadFile(filepath.Join(dir, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	written := file[bytes.IndexByte(file, '\n')+1:]

	diag.Reset()
	again := openDir(t, dir, &diag, simulator.WithSnapshotEvery(25))
	t.Cleanup(again.Close)
	if !strings.Contains(diag.String(), "snapshot of input") || !strings.Contains(diag.String(), " 0 inputs replayed") {
		t.Fatalf("the restart did not start from the snapshot alone: %q", diag.String())
	}
	read, err := simulator.StateImage(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read, written) {
		i := 0
		for i < len(read) && i < len(written) && read[i] == written[i] {
			i++
		}
		t.Errorf("the image read back (%d bytes) differs from the one written (%d bytes) from byte %d", len(read), len(written), i)
	}
}
