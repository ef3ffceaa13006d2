package datadir

// Opening a data directory into a simulator: a new one, or a restart from
// the directory's snapshot and log (Start).

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Options say which data directory Start opens and how.
type Options struct {
	// Dir is the data directory.
	Dir string
	// Diag takes the store's diagnostics (Store.Report).
	Diag io.Writer
	// SnapshotEvery is the number of inputs between snapshots (Open).
	SnapshotEvery int
	// Repair repairs the directory (Store.Repair) before it is opened.
	Repair bool
	// Recording is set when a recording is to be replayed into the
	// directory, which must then be new (Host.Replay).
	Recording bool
}

// Host is what Start needs of the simulator a directory opens into, S:
// building one, reading a snapshot's state into it, its input log and the
// replay of one input on it.
type Host[S any] interface {
	// CheckConfig refuses a log header's configuration this build does
	// not read (Open's checkConfig).
	CheckConfig(cfg json.RawMessage) error
	// Configure takes the configuration the directory's log was started
	// with: it refuses one that shapes another fixture than the options
	// given, and Build builds from it from then on.
	Configure(cfg json.RawMessage) error
	// Build builds a simulator, nothing run on it.
	Build() (S, error)
	// Header is the header a new log of s starts with (Store.Create).
	Header(s S) any
	// ReadState reads a snapshot's state into s, just built; an error
	// leaves the snapshot unused.
	ReadState(s S, r io.Reader) error
	// Log is the input log of s.
	Log(s S) Log
	// Replayer returns a replay of inputs on s.
	Replayer(s S) Replayer
	// Replay runs the recording of Options.Recording on s, in a new
	// directory.
	Replay(s S) error
	// Source is the state of s the snapshots capture.
	Source(s S) Source
}

// Log is a simulator's input log as Start numbers it and hands it the
// store.
type Log interface {
	// Seq is the number of the last input logged.
	Seq() int64
	// StartAt numbers the next input seq+1 (the snapshot's state holds
	// the inputs up to seq).
	StartAt(seq int64)
	// NotInMemory keeps no recording in memory: the directory's log is it.
	NotInMemory()
	// AttachStore makes st the log's store: the inputs from now on are
	// appended to it.
	AttachStore(st *Store)
}

// Replayer runs a log's inputs on the simulator one by one.
type Replayer interface {
	// Step runs one input.
	Step(in *recfile.Input) error
	// Abandon lets the requests the replay left waiting finish.
	Abandon()
	// Finish completes what the log left in progress.
	Finish()
}

// Start builds the simulator of the data directory o.Dir: a new one, or
// the one its log and snapshot describe. A directory that is not a
// simulator's, or whose log or snapshot is damaged in a way a crash does
// not leave, is refused with a *Damage before any byte in it changes
// (check.go).
func Start[S any](o Options, h Host[S]) (s S, err error) {
	var none S
	if _, err := CheckLayout(o.Dir); err != nil {
		return none, err
	}
	st, err := Open(o.Dir, o.Diag, o.SnapshotEvery, h.CheckConfig)
	if err != nil {
		return none, err
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	if o.Repair {
		if _, err := st.Repair(); err != nil {
			return none, err
		}
	}
	// Again under the lock: what was checked may have changed meanwhile.
	hasLog, err := CheckLayout(o.Dir)
	if err != nil {
		return none, err
	}
	var c *LogCheck
	var sf *SnapshotFile
	if hasLog {
		if sf, err = st.LoadSnapshot(); err != nil {
			return none, err
		}
		var marks []int64
		if sf != nil {
			marks = append(marks, sf.Meta.Offset)
		}
		if c, err = st.CheckLog(false, marks...); err != nil {
			return none, err
		}
		if c.Damage != nil {
			return none, c.Damage
		}
	}
	if c == nil || c.Hdr == nil {
		return create(o, h, st, sf)
	}
	if o.Recording {
		return none, fmt.Errorf("simulator: data directory %s already holds a log: replay a recording into an empty directory", o.Dir)
	}
	if err := h.Configure(c.Hdr.Config); err != nil {
		return none, err
	}
	return restart(o, h, st, c, sf)
}

// create builds the simulator of a new directory: no log, or an empty one.
func create[S any](o Options, h Host[S], st *Store, sf *SnapshotFile) (S, error) {
	var none S
	if sf != nil {
		return none, &Damage{Dir: o.Dir, File: SnapshotName, Offset: -1, Reason: "a snapshot beside an empty log"}
	}
	st.Claim()
	s, err := h.Build()
	if err != nil {
		return none, err
	}
	if err = st.Create(h.Header(s)); err != nil {
		return none, err
	}
	h.Log(s).AttachStore(st)
	if o.Recording {
		if err = h.Replay(s); err != nil {
			return none, err
		}
	}
	st.StartSnapshots(h.Source(s), 0)
	return s, nil
}
