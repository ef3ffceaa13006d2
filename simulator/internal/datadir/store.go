// Package datadir is the simulator's data directory (WithDataDir,
// mwallet-sim serve -data DIR): the store that appends the input log and
// makes it durable, the snapshots written beside it, checking a directory
// before it is used, repairing one and opening one into a simulator, new
// or restarted from its snapshot and log (Start, start.go and restart.go).
// The frames are internal/datafile's, the inputs and the log's header
// internal/recfile's; the simulator gives the store the state to snapshot
// (Source), builds the simulator and replays what it reads (Host). A
// data directory holds:
//
//	DIR/lock      held (flock) by the one simulator using DIR
//	DIR/log       the input log: an append-only file of frames, each
//	              [4-byte length][4-byte CRC-32C of the payload][payload]
//	              (internal/datafile, with the lock and the synced writes);
//	              the first payload is the recording header, each next one
//	              an input, both in the JSON of a recording's lines
//	DIR/snapshot  the state after input N: a JSON line with N, the log
//	              offset after it, the clock and the size and CRC of the
//	              rest, then the state by name (kernel.WriteState: JSON
//	              lines, every table's rows by their field names), written
//	              every WithSnapshotEvery inputs and at Close; it is
//	              replaced atomically (write, fsync, rename)
//
// Durability: an input is written to the log (write(2)) before it runs,
// and its answer waits until an fsync covers it; concurrent answers share
// one fsync (group commit). A crash after the write but before the answer
// runs the input again at restart; its client had no answer and resends
// with the same idempotency key, which replays it. An input the log cannot
// take (disk full, I/O error) does not run and is answered
// service_unavailable; an fsync that fails makes the directory refuse every
// input until the simulator restarts, since what reached the disk is then
// unknown.
//
// Restart: every frame of the log is verified first (check.go), then
// the snapshot, when there is one for this log of this snapshot version
// (2; a version 1 snapshot, the positional image of earlier builds, is
// ignored) whose tables are this build's (kernel.ReadState refuses
// another), is read and the inputs after it are replayed; without one the
// whole log is replayed, and Close writes a snapshot. What a crash leaves at the end of the log (a last
// frame cut short, a tail of zero bytes) is cut, and a line on the
// diagnostics writer says how much; any other damage, in the log or the
// snapshot, stops the start with a *Damage and changes nothing
// (RepairDataDir repairs it, repair.go). A directory that holds
// anything but a simulator's files, or a log that does not start with a
// simulator header, is refused the same way: only a directory without a
// log (or with an empty one) is new.

package datadir

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datafile"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// The files of a data directory.
const (
	LogName      = "log"
	SnapshotName = "snapshot"
	LockName     = "lock"
)

// SnapshotFormat and SnapshotVersion head every snapshot (Meta).
const (
	SnapshotFormat  = "mwallet-sim-snapshot"
	SnapshotVersion = 2
)

// LogFile is what the store needs of its log file (tests put a failing one
// in its place).
type LogFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Close() error
}

// Header is the header of a log as the store reads it: the configuration
// stays in its JSON, which the simulator decodes (Open's checkConfig says
// whether it does).
type Header = recfile.Header[json.RawMessage]

// Store is an open data directory.
type Store struct {
	dir string
	// checkConfig reports whether a log header's configuration is one the
	// simulator reads: a header whose configuration is not is not a
	// simulator's.
	checkConfig func(json.RawMessage) error
	diag        io.Writer
	lock        io.Closer
	path        string // DIR/log
	// newLock is set when opening created DIR/lock; it is removed again
	// when the directory is refused (claim not called), so a refused start
	// leaves the directory as it was.
	newLock bool
	claimed bool

	mu        sync.Mutex // guards the appends and the fields below
	f         LogFile
	written   int64 // the log's size
	lastFrame int64 // offset of the last frame
	seq       int64 // the seq of the last input written
	sinceSnap int
	failed    error // set once an fsync failed: everything is refused
	refusing  int   // appends refused in a row (reported once)

	syncMu sync.Mutex
	synced int64
	// slowestSync is the longest fsync of the log, in nanoseconds, since
	// it was last set to 0 (SlowestSync: BenchmarkSnapshotStall reads it
	// per window).
	slowestSync atomic.Int64

	src       Source // the state the snapshots image
	snapEvery int
	kick      chan struct{}
	quit      chan struct{}
	done      chan struct{}
	lastSnap  int64 // seq of the last snapshot
}

// Open creates dir if needed and takes its lock. Diagnostics go to diag;
// a snapshot is written every snapEvery inputs (0: only at Close);
// checkConfig decodes the configuration of a log's header (CheckConfig).
func Open(dir string, diag io.Writer, snapEvery int, checkConfig func(json.RawMessage) error) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("simulator: data directory: %w", err)
	}
	_, statErr := os.Stat(filepath.Join(dir, LockName))
	lk, err := datafile.Lock(filepath.Join(dir, LockName))
	if err != nil {
		return nil, fmt.Errorf("simulator: data directory %s: %w", dir, err)
	}
	return &Store{dir: dir, diag: diag, checkConfig: checkConfig, lock: lk, path: filepath.Join(dir, LogName), snapEvery: snapEvery, newLock: errors.Is(statErr, os.ErrNotExist)}, nil
}

// Claim records in DIR/lock that this process holds the directory, once
// the directory is accepted.
func (st *Store) Claim() {
	st.claimed = true
	if f, ok := st.lock.(*os.File); ok {
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
}

// Report writes a line on the diagnostics writer, naming the directory.
func (st *Store) Report(format string, args ...any) {
	fmt.Fprintf(st.diag, "mwallet-sim: data %s: "+format+"\n", append([]any{st.dir}, args...)...)
}

// Create starts a new log with its header (a recfile.Header), synced. The header is written
// to DIR/log.tmp and renamed, so a log exists only whole: a crash during
// create leaves no log, and a log whose header does not verify is damage.
func (st *Store) Create(hdr any) error {
	p, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	fr := datafile.Frame(p)
	tmp := st.path + ".tmp"
	if err := datafile.WriteSynced(tmp, fr); err != nil {
		return fmt.Errorf("simulator: data directory: %w", err)
	}
	if err := os.Rename(tmp, st.path); err != nil {
		return fmt.Errorf("simulator: data directory: %w", err)
	}
	datafile.SyncDir(st.dir)
	f, err := os.OpenFile(st.path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("simulator: data directory: %w", err)
	}
	st.f, st.written, st.synced = f, int64(len(fr)), int64(len(fr))
	return nil
}

// logHeader reads the header of an existing log; nil when there is no log
// (or only an empty or torn first frame, which a crash during create
// leaves).
func (st *Store) logHeader() (*Header, int64, error) {
	f, err := os.Open(st.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("simulator: data directory: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	p, err := datafile.ReadFrame(br)
	if err != nil {
		return nil, 0, nil
	}
	var hdr Header
	if err = json.Unmarshal(p, &hdr); err == nil {
		err = st.checkConfig(hdr.Config)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("simulator: data directory: %s: header: %w", st.path, err)
	}
	if err := hdr.Check(); err != nil {
		return nil, 0, fmt.Errorf("simulator: data directory: %s: %w", st.path, err)
	}
	return &hdr, int64(8 + len(p)), nil
}

// Scan reads the inputs of the log from offset from up to offset limit
// (the end of the frames checkLog verified), calling fn for each with its
// frame's offset. A whole frame that is not an input is a *Damage.
// It returns the offset after the last frame read and that frame's offset.
func (st *Store) Scan(from, limit int64, fn func(in *recfile.Input, off int64) error) (end, last int64, n int, err error) {
	f, err := os.Open(st.path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return 0, 0, 0, err
	}
	br := bufio.NewReaderSize(io.LimitReader(f, limit-from), 256<<10)
	end, last = from, -1
	for {
		p, err := datafile.ReadFrame(br)
		if err == io.EOF {
			return end, last, n, nil
		}
		if err != nil {
			return end, last, n, fmt.Errorf("simulator: data directory %s: %s at offset %d: %w", st.dir, st.path, end, err)
		}
		in := &recfile.Input{}
		if err := json.Unmarshal(p, in); err != nil {
			return end, last, n, &Damage{Dir: st.dir, File: LogName, Offset: end, Inputs: int64(n), Reason: "a whole frame that is not an input"}
		}
		if fn != nil {
			if err := fn(in, end); err != nil {
				return end, last, n, err
			}
		}
		last = end
		end += int64(8 + len(p))
		n++
	}
}

// ReadInputs returns the inputs of the log up to offset limit (for
// Recording).
func (st *Store) ReadInputs(limit int64) ([]*recfile.Input, error) {
	_, hlen, err := st.logHeader()
	if err != nil {
		return nil, err
	}
	var out []*recfile.Input
	_, _, _, err = st.Scan(hlen, limit, func(in *recfile.Input, off int64) error {
		if off >= limit {
			return errStop
		}
		out = append(out, in)
		return nil
	})
	if err == errStop {
		err = nil
	}
	return out, err
}

var errStop = errors.New("stop")

// WriteRecording writes the log up to offset limit as a recording (GET
// /_sim/recording) without decoding its inputs: hdr (the header of this
// version: the log's own may be of an earlier one), every input up to
// limit, and the end line last.
func (st *Store) WriteRecording(w io.Writer, limit int64, hdr any, last *recfile.Input) error {
	f, err := os.Open(st.path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, limit), 256<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := datafile.ReadFrame(br); err != nil {
		return fmt.Errorf("simulator: data directory: %s: header: %w", st.path, err)
	}
	head, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	bw.Write(head)
	bw.WriteByte('\n')
	for {
		p, err := datafile.ReadFrame(br)
		if err != nil {
			break
		}
		bw.Write(p)
		bw.WriteByte('\n')
	}
	end, _ := json.Marshal(last)
	bw.Write(end)
	bw.WriteByte('\n')
	return bw.Flush()
}

// OpenLog opens the log for appending after its last whole frame,
// truncating what follows it.
func (st *Store) OpenLog(end, last, seq int64) error {
	f, err := os.OpenFile(st.path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("simulator: data directory: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	if info.Size() > end {
		if err := f.Truncate(end); err != nil {
			_ = f.Close()
			return fmt.Errorf("simulator: data directory: truncating the torn tail: %w", err)
		}
		if err := f.Sync(); err != nil {
			_ = f.Close()
			return fmt.Errorf("simulator: data directory: %w", err)
		}
	}
	st.f, st.written, st.synced, st.lastFrame, st.seq = f, end, end, last, seq
	return nil
}

// Append writes one input to the log. The caller holds the recorder's
// lock (so inputs are written in seq order).
func (st *Store) Append(in *recfile.Input) (int64, error) {
	p, err := json.Marshal(in)
	if err != nil {
		return 0, err
	}
	fr := datafile.Frame(p)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.failed != nil {
		return 0, st.failed
	}
	n, err := st.f.Write(fr)
	if err != nil {
		if n > 0 {
			// Take the partial frame back, so the next input follows the
			// last whole one.
			if terr := st.f.Truncate(st.written); terr != nil {
				st.setFailed(fmt.Errorf("cannot take back a partial write: %w", terr))
			}
		}
		if st.refusing == 0 {
			st.Report("cannot append to %s: %v; refusing requests (service_unavailable) until it can", st.path, err)
		}
		st.refusing++
		return 0, fmt.Errorf("data directory: %w", err)
	}
	if st.refusing > 0 {
		st.Report("appending to %s again after refusing %d requests", st.path, st.refusing)
		st.refusing = 0
	}
	st.lastFrame = st.written
	st.written += int64(n)
	st.seq = in.Seq
	st.sinceSnap++
	if st.snapEvery > 0 && st.sinceSnap >= st.snapEvery && st.kick != nil {
		select {
		case st.kick <- struct{}{}:
		default:
		}
	}
	return st.written, nil
}

// SetLog puts f in the place of the log file and returns the one it
// replaces (tests put a failing one there).
func (st *Store) SetLog(f LogFile) LogFile {
	st.mu.Lock()
	defer st.mu.Unlock()
	old := st.f
	st.f = f
	return old
}

// Source returns what the snapshots capture (StartSnapshots), nil before.
func (st *Store) Source() Source { return st.src }

// SlowestSync returns the longest fsync of the log since the last call
// with reset (or since the store opened), and with reset starts the
// count again.
func (st *Store) SlowestSync(reset bool) time.Duration {
	if reset {
		return time.Duration(st.slowestSync.Swap(0))
	}
	return time.Duration(st.slowestSync.Load())
}

// Written is the log's size: the offset after the last input appended.
func (st *Store) Written() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.written
}

// Durable waits until the log is on stable storage up to end. Concurrent
// callers share one fsync.
func (st *Store) Durable(end int64) error {
	st.syncMu.Lock()
	defer st.syncMu.Unlock()
	st.mu.Lock()
	failed, target := st.failed, st.written
	st.mu.Unlock()
	if failed != nil {
		return failed
	}
	if st.synced >= end {
		return nil
	}
	t0 := time.Now()
	err := st.f.Sync()
	if d := int64(time.Since(t0)); d > st.slowestSync.Load() {
		st.slowestSync.Store(d) // only durable writes it, under syncMu
	}
	if err != nil {
		st.Fail(fmt.Errorf("fsync %s: %w", st.path, err))
		return st.failure()
	}
	st.synced = target
	return nil
}

func (st *Store) failure() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.failed
}

// Fail makes the store refuse every input until the simulator restarts.
func (st *Store) Fail(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.setFailed(err)
}

// setFailed records the first failure of the store; st.mu is held.
func (st *Store) setFailed(err error) {
	if st.failed == nil {
		st.failed = fmt.Errorf("data directory: %w", err)
		st.Report("%v; refusing every request until the simulator restarts", err)
	}
}

// Close stops the snapshots (writing a last one when inputs came since
// the last) and releases the directory.
func (st *Store) Close() {
	if st.quit != nil {
		close(st.quit)
		<-st.done
		st.quit = nil
		st.mu.Lock()
		pending := st.seq != st.lastSnap && st.failed == nil
		st.mu.Unlock()
		if pending {
			st.Snapshot()
		}
	}
	st.mu.Lock()
	if st.f != nil {
		_ = st.f.Sync()
		_ = st.f.Close()
		st.f = nil
		st.failed = errors.New("data directory closed")
	}
	st.mu.Unlock()
	if st.lock != nil {
		if st.newLock && !st.claimed {
			_ = os.Remove(filepath.Join(st.dir, LockName))
		}
		_ = st.lock.Close()
		st.lock = nil
	}
}

// CheckConfig refuses a log header's configuration raw that does not
// decode as a C (the configuration a build reads): Open's and RepairDir's
// checkConfig.
func CheckConfig[C any](raw json.RawMessage) error {
	var c C
	return json.Unmarshal(raw, &c)
}
