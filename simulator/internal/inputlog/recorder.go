package inputlog

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// ControlRules is the version of the control API's argument rules the
// simulator runs control inputs under: 3, the first recording version whose
// inputs carry it (earlier builds checked fewer arguments; their inputs
// replay under what they checked).
const ControlRules = 3

// AllOrNothingRules is the version of the rules under which every input is
// all or nothing (a refused step's writes are undone by the kernel:
// internal/kernel, step.go). An input logged with earlier rules (of an
// earlier build) is replayed as it ran: the writes of a refusal stand.
const AllOrNothingRules = 4

// Recorder keeps the input log of one simulator, built with the
// configuration C: in memory (recfile.MemLog, up to a limit), or in a data
// directory's store. It numbers each input, stamps it with the rules it
// runs under, checks it against the recording being replayed, if any, and
// knows the rules of the input running.
type Recorder[C any] struct {
	mu  sync.Mutex // guards the fields below; loggers also hold the input order
	cfg C
	seq int64 // the last input logged
	// clock is the latest clock reading the log holds (an input's clock, or
	// an advance's target).
	clock time.Time

	mem      recfile.MemLog // the in-memory recording (no store)
	memOff   bool           // not kept in memory (a store keeps it)
	memLimit int64
	dropped  int64 // inputs not kept because of memLimit

	store  *datadir.Store // the data directory, when there is one
	replay *replay.Check  // while a recording is replayed: what the next input must be

	// parked counts the requests waiting in a delay fault (guarded by the
	// state lock, not mu): their continuation lives on their goroutine, so
	// no snapshot is taken while one waits.
	parked int

	// base returns the simulator's address; lastBase is the one the log
	// last recorded. Answers that carry a link (hosted_url) are built from
	// the address and some are kept under idempotency keys, so a change of
	// address is logged (base_url) before the next input, and a replay
	// answers with the recorded address.
	base     func() string
	lastBase string

	ctl *ControlIDs // control request ids (ControlID)

	// lastRules is the Rules of the input logged last: a control op runs
	// right after its own input is logged, holding the input order.
	lastRules int
	// running are the Rules of the input running, as the kernel asks for
	// them when a step begins (Undo): read under the state lock, without
	// mu. A replay sets them before the timers an input's clock reading
	// brings due.
	running atomic.Int64
	// rules are the Rules the simulator runs and logs its own inputs under.
	rules int
}

// NewRecorder returns the recorder of a simulator built with cfg and seed
// (which mixes the control ids), keeping at most limit bytes of inputs in
// memory and logging its own inputs under rules.
func NewRecorder[C any](cfg C, seed, limit int64, rules int) *Recorder[C] {
	r := &Recorder[C]{cfg: cfg, memLimit: limit, ctl: NewControlIDs(seed), rules: rules}
	r.running.Store(int64(rules))
	return r
}

// Header is the first line of a recording of this log and the first record
// of a data directory's log.
func (r *Recorder[C]) Header() recfile.Header[C] {
	return recfile.Header[C]{Format: recfile.Format, Version: recfile.Version, Config: r.cfg}
}

// SetBase makes base the simulator's address, logged when it changes.
func (r *Recorder[C]) SetBase(base func() string) {
	r.mu.Lock()
	r.base = base
	r.mu.Unlock()
}

// Log appends in to the log and numbers it, after a base_url input when
// the address changed since the log last recorded it. With a store it is
// written to the data directory (not yet synced: see Durable) and its end
// offset returned; an error means it was not logged, and the input must
// not run. The caller holds the input order.
func (r *Recorder[C]) Log(in *recfile.Input) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if in.Op != recfile.OpBase && r.base != nil {
		if u := r.base(); u != r.lastBase {
			if _, err := r.appendInput(&recfile.Input{Op: recfile.OpBase, Clock: in.Clock, URL: u}); err != nil {
				return 0, err
			}
		}
	}
	return r.appendInput(in)
}

// appendInput numbers in and appends it to the log; r.mu is held.
func (r *Recorder[C]) appendInput(in *recfile.Input) (int64, error) {
	in.Seq = r.seq + 1
	if in.Op != recfile.OpBase && in.Op != recfile.OpEnd {
		in.Rules = r.rules
	}
	if r.replay != nil {
		if err := r.replay.Check(in); err != nil {
			return 0, err
		}
	}
	var end int64
	if r.store != nil {
		var err error
		if end, err = r.store.Append(in); err != nil {
			return 0, err
		}
	}
	r.seq = in.Seq
	r.clock = in.Clock
	r.lastRules = in.Rules
	r.SetRunning(in)
	if in.Op == recfile.OpBase {
		r.lastBase = in.URL
	}
	if in.To.After(r.clock) {
		r.clock = in.To
	}
	if !r.memOff {
		if r.dropped > 0 || !r.mem.Add(in, r.memLimit) {
			// The recording is incomplete from here on: let it go.
			r.dropped++
			r.mem = recfile.MemLog{}
		}
	}
	return end, nil
}

// Durable waits until the input logged up to end is on stable storage. A
// replay into a data directory does not wait input by input: it syncs
// once when it is done.
func (r *Recorder[C]) Durable(end int64) error {
	r.mu.Lock()
	st, replaying := r.store, r.replay != nil
	r.mu.Unlock()
	if st == nil || replaying {
		return nil
	}
	return st.Durable(end)
}

// Fail makes the data directory refuse every input from now on: a part of
// an input that already ran could not be logged.
func (r *Recorder[C]) Fail(err error) {
	if st := r.Store(); st != nil {
		st.Fail(err)
	}
}

// ControlID returns the request id of a control answer (ControlIDs).
func (r *Recorder[C]) ControlID() string { return r.ctl.Next() }
