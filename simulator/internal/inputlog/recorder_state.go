package inputlog

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// What a Recorder tells of the log and of the input running, and the
// settings a data directory or a replay makes.

// Undo reports whether the input running undoes a refused step's writes:
// the kernel's rule (kernel.SetUndo).
func (r *Recorder[C]) Undo() bool { return r.running.Load() >= AllOrNothingRules }

// SetRunning records the Rules of in, the input about to run (an input of
// the log's own, base_url or end, leaves them).
func (r *Recorder[C]) SetRunning(in *recfile.Input) {
	if in.Op != recfile.OpBase && in.Op != recfile.OpEnd {
		r.running.Store(int64(in.Rules))
	}
}

// RunningRules are the Rules of the input running.
func (r *Recorder[C]) RunningRules() int { return int(r.running.Load()) }

// LegacyRules reports whether the input logged last ran under the
// argument rules of an earlier build (a replayed input of one).
func (r *Recorder[C]) LegacyRules() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRules < ControlRules
}

// Seq returns the number of the last input logged.
func (r *Recorder[C]) Seq() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// StartAt makes seq the last input logged: the input of the snapshot a
// restart read the state from.
func (r *Recorder[C]) StartAt(seq int64) {
	r.mu.Lock()
	r.seq = seq
	r.mu.Unlock()
}

// Behind reports whether now is later than the latest clock reading the
// log holds.
func (r *Recorder[C]) Behind(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return now.After(r.clock)
}

// NotInMemory stops keeping the log in memory: a data directory's log, or
// a scratch replay, keeps it.
func (r *Recorder[C]) NotInMemory() {
	r.mu.Lock()
	r.memOff = true
	r.mu.Unlock()
}

// AttachStore makes st the sink of the log.
func (r *Recorder[C]) AttachStore(st *datadir.Store) {
	r.mu.Lock()
	r.store = st
	r.memOff = true
	r.mem = recfile.MemLog{}
	r.mu.Unlock()
}

// Store returns the data directory's store, or nil.
func (r *Recorder[C]) Store() *datadir.Store {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.store
}

// MemInputs decodes the inputs kept in memory.
func (r *Recorder[C]) MemInputs() ([]*recfile.Input, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mem.Inputs()
}

// Park counts a request that waits in a delay fault, Unpark one that
// resumed; Parked is how many wait. The caller holds the state lock.
func (r *Recorder[C]) Park() { r.parked++ }

// Unpark counts a parked request that resumed (Park).
func (r *Recorder[C]) Unpark() { r.parked-- }

// Parked returns how many requests wait in a delay fault (Park).
func (r *Recorder[C]) Parked() int { return r.parked }

// Point is where the log stands at one instant.
type Point[C any] struct {
	// Header opens a recording of the log.
	Header recfile.Header[C]
	// Store is the data directory's store (nil: the log is in memory) and
	// Written the size of its log then.
	Store   *datadir.Store
	Written int64
	// Chunks and N are the in-memory log then (recfile.MemLog.View), and
	// Dropped the inputs it did not keep because of its limit.
	Chunks  [][]byte
	N       int
	Dropped int64
	// Seq is the last input logged.
	Seq int64
	// End and Digest, set by Log.Point, are the simulator's clock then
	// and the state's digest then ("" when not asked for).
	End    time.Time
	Digest string
}

// Point returns where the log stands now.
func (r *Recorder[C]) Point() Point[C] {
	r.mu.Lock()
	p := Point[C]{Header: r.Header(), Store: r.store, Dropped: r.dropped, Seq: r.seq}
	p.Chunks, p.N = r.mem.View()
	r.mu.Unlock()
	if p.Store != nil {
		p.Written = p.Store.Written()
	}
	return p
}

// Replaying reports whether a recording is being replayed.
func (r *Recorder[C]) Replaying() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replay != nil
}

// Expect makes in the input the log must take next (replay.Target's
// Expect); it returns the replay's divergence, if an earlier input diverged.
func (r *Recorder[C]) Expect(in *recfile.Input) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.replay == nil {
		r.replay = &replay.Check{}
	}
	if r.replay.Err != nil {
		return r.replay.Err
	}
	r.replay.Want = in
	return nil
}

// Logged ends the replay of in, which ran with err (replay.Check's Done).
func (r *Recorder[C]) Logged(in *recfile.Input, err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.replay.Done(in, err)
}

// EndReplay ends a replay: the log takes inputs of its own again.
func (r *Recorder[C]) EndReplay() {
	r.mu.Lock()
	r.replay = nil
	r.mu.Unlock()
}

// Inputs reads back the inputs logged up to the point: from the data
// directory's log, or from memory; full is the error of an in-memory log
// that dropped inputs.
func (p Point[C]) Inputs(full error) ([]*recfile.Input, error) {
	switch {
	case p.Store != nil:
		return p.Store.ReadInputs(p.Written)
	case p.Dropped > 0:
		return nil, full
	}
	return recfile.DecodeChunks(p.Chunks, p.N)
}
