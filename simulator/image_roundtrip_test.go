package simulator_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestSnapshotReadBackWritesTheSameState runs every kind of input against
// a simulator with a data directory and closes it (which writes a snapshot
// of its last state, by name: kernel.WriteState); a simulator started on
// the directory reads that snapshot and, with no input since, writes the
// same state byte for byte, and has the same digest: reading a state back
// loses nothing and adds nothing, and it is written in one order whatever
// its history. The state written has rows in a table of every product
// line and kernel service.
func TestSnapshotReadBackWritesTheSameState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var diag bytes.Buffer
	sim := openDir(t, dir, &diag, simulator.WithSnapshotEvery(25))
	scenario(t, newEdgeOn(t, sim))
	digest := mustDigest(t, sim)
	sim.Close()
	file, err := os.ReadFile(filepath.Join(dir, "snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	written := file[bytes.IndexByte(file, '\n')+1:]
	rows := map[string]int{}
	for line := range strings.Lines(string(written)) {
		var h struct {
			Table string
			Rows  int
		}
		if strings.HasPrefix(line, `{"table":`) {
			if err := json.Unmarshal([]byte(line), &h); err != nil {
				t.Fatal(err)
			}
			owner, _, _ := strings.Cut(h.Table, ".")
			rows[owner] += h.Rows
		}
	}
	for _, owner := range []string{"auth", "cards", "catalogue", "clock", "deposits", "gateway", "ids", "kyc",
		"ledger", "members", "merchant", "outcomes", "qrpay", "remittances", "stepup", "webhooks"} {
		if rows[owner] == 0 {
			t.Errorf("no row of %s in the snapshot: the scenario does not reach it", owner)
		}
	}
	if len(rows) != 16 {
		t.Errorf("the tables' owners: %v", rows)
	}

	diag.Reset()
	again := openDir(t, dir, &diag, simulator.WithSnapshotEvery(25))
	t.Cleanup(again.Close)
	if !strings.Contains(diag.String(), "snapshot of input") || !strings.Contains(diag.String(), " 0 inputs replayed") {
		t.Fatalf("the restart did not start from the snapshot alone: %q", diag.String())
	}
	if d := mustDigest(t, again); d != digest {
		t.Errorf("digest after the restart %s, before %s", d, digest)
	}
	read, err := simulator.NamedState(again)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read, written) {
		i := 0
		for i < len(read) && i < len(written) && read[i] == written[i] {
			i++
		}
		t.Errorf("the state read back (%d bytes) differs from the one written (%d bytes) from byte %d", len(read), len(written), i)
	}
}
