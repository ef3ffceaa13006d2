package simulator_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestDataDirDamageSweep starts on a log cut at every 11th byte, with a
// byte flipped at every 11th position, a chunk of it duplicated and one
// removed: a refused start is a *DataDirError (or names the configuration)
// and leaves the log as it was with no other file written; an accepted one
// keeps a prefix of the log: a cut log up to its last whole frame, any
// other at most its last frame (a flipped length that runs past the end
// reads as a frame a crash cut short), and serves its recording.
func TestDataDirDamageSweep(t *testing.T) {
	t.Parallel()
	base := newDamageBase(t, 0)
	valid := base.log
	lastOff := base.offs[len(base.offs)-1]
	type mutation struct {
		name string
		log  []byte
		keep int // bytes an accepted start keeps at least
	}
	var muts []mutation
	for n := 0; n < len(valid); n += 11 {
		whole := 0
		for _, off := range base.offs {
			if off <= n {
				whole = off
			}
		}
		if base.end(len(base.offs)-1) <= n {
			whole = n
		}
		muts = append(muts, mutation{fmt.Sprintf("cut at %d", n), valid[:n], whole})
		muts = append(muts, mutation{fmt.Sprintf("flip at %d", n), flip(valid, n), lastOff})
	}
	for i := 1; i+1 < len(base.offs); i++ {
		a, b := base.offs[i], base.end(i)
		muts = append(muts,
			mutation{fmt.Sprintf("frame %d twice", i), splice(valid[:b], valid[a:b], valid[b:]), len(valid)},
			mutation{fmt.Sprintf("frame %d half twice", i), splice(valid[:b], valid[a:(a+b)/2], valid[b:]), len(valid)})
	}
	accepted, refused := 0, 0
	for _, m := range muts {
		dir := t.TempDir()
		path := filepath.Join(dir, "log")
		if err := os.WriteFile(path, m.log, 0o600); err != nil {
			t.Fatal(err)
		}
		sim, err := simulator.New(simulator.WithDataDir(dir), simulator.WithDiagnostics(&bytes.Buffer{}), simulator.WithSnapshotEvery(0))
		if err != nil {
			refused++
			var de *simulator.DataDirError
			after, rerr := os.ReadFile(path)
			entries, _ := os.ReadDir(dir)
			if !errors.As(err, &de) || rerr != nil || !bytes.Equal(after, m.log) || len(entries) != 1 {
				t.Errorf("%s: refused (%v), log unchanged %v, %d files", m.name, err, bytes.Equal(after, m.log), len(entries))
			}
			continue
		}
		accepted++
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, rerr := sim.Recording()
		switch {
		case len(m.log) == 0:
		case !bytes.HasPrefix(m.log, after):
			t.Errorf("%s: the start kept %d bytes that are not a prefix of the log", m.name, len(after))
		case len(after) < m.keep:
			t.Errorf("%s: the start cut into whole inputs (kept %d bytes, want at least %d)", m.name, len(after), m.keep)
		case rerr != nil:
			t.Errorf("%s: recording: %v", m.name, rerr)
		}
		sim.Close()
	}
	t.Logf("%d damaged logs: %d started (a crash's tail cut), %d refused with nothing changed", len(muts), accepted, refused)
}
