package simulator

// The data directory (WithDataDir, mwallet-sim serve -data DIR) is
// internal/datadir: its files, the store that appends the input log and
// makes it durable, the snapshots, the checks before a start and the
// repair, over the frames of internal/datafile. What stays here is what
// needs the simulator: the simulators a directory opens into
// (store_open.go, datadir.Start's host), the public DataDirError, DataDirRepair and
// RepairDataDir (store_repair.go), the state the snapshots capture
// (snapshotSource) and closing the store with the log's last clock
// reading (closeStore).

import (
	"encoding/json"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"io"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// openStore opens the data directory dir (datadir.Open) for the
// configurations this build reads.
func openStore(dir string, diag io.Writer, snapEvery int) (*datadir.Store, error) {
	return datadir.Open(dir, diag, snapEvery, checkConfig)
}

// checkConfig refuses a log header's configuration this build does not
// read.
func checkConfig(raw json.RawMessage) error {
	var c recordingConfig
	return json.Unmarshal(raw, &c)
}

// snapshotSource is the state the data directory's snapshots capture:
// the state of the simulator whose inputs l logs.
type snapshotSource struct{ l *inputLog }

// Capture captures the state under the state lock, unless a request waits
// in a delay fault (its continuation lives on its goroutine).
func (s snapshotSource) Capture(held func(clock time.Time)) (datadir.Capture, bool) {
	l := s.l
	tx := l.k.BeginCapture(true)
	if l.rec.Parked() > 0 {
		tx.End()
		return nil, false
	}
	c := l.k.Capture(tx)
	held(c.Now())
	tx.End()
	return stateCapture{c: c, image: l.image}, true
}

// stateCapture writes a captured state by name (stateImage.writeState).
type stateCapture struct {
	c     *kernel.Capture
	image *stateImage
}

func (c stateCapture) Write(w io.Writer) error { return c.image.writeState(w, c.c) }
func (c stateCapture) Release()                { c.c.Release() }

// closeStore closes the data directory of the log, if any.
func (l *inputLog) closeStore() {
	if l == nil || l.rec == nil {
		return
	}
	st := l.rec.Store()
	if st == nil {
		return
	}
	// Advances that ran nothing are not logged; the last clock reading is,
	// so a restart continues from it.
	tx := l.k.BeginInput()
	now := l.st.clock.Now()
	moved := l.rec.Behind(now)
	var end int64
	var err error
	if moved {
		end, err = l.rec.Log(&recordedInput{Op: recfile.OpAdvance, Clock: now, To: now})
	}
	tx.End()
	if moved && err == nil {
		_ = l.rec.Durable(end)
	}
	st.Close()
}
