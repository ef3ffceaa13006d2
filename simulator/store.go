package simulator

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
)

// A data directory (WithDataDir, mwallet-sim serve -data DIR) holds:
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
// Restart: every frame of the log is verified first (store_check.go), then
// the snapshot, when there is one for this log of this snapshot version
// (2; a version 1 snapshot, the positional image of earlier builds, is
// ignored) whose tables are this build's (kernel.ReadState refuses
// another), is read and the inputs after it are replayed; without one the
// whole log is replayed, and Close writes a snapshot. What a crash leaves at the end of the log (a last
// frame cut short, a tail of zero bytes) is cut, and a line on the
// diagnostics writer says how much; any other damage, in the log or the
// snapshot, stops the start with a *DataDirError and changes nothing
// (RepairDataDir repairs it, store_repair.go). A directory that holds
// anything but a simulator's files, or a log that does not start with a
// simulator header, is refused the same way: only a directory without a
// log (or with an empty one) is new.

const (
	logName      = "log"
	snapshotName = "snapshot"
	lockName     = "lock"

	snapshotFormat  = "mwallet-sim-snapshot"
	snapshotVersion = 2
)

// logFile is what the store needs of its log file (tests put a failing one
// in its place).
type logFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Close() error
}

// store is an open data directory.
type store struct {
	dir  string
	diag io.Writer
	lock io.Closer
	path string // DIR/log
	// newLock is set when opening created DIR/lock; it is removed again
	// when the directory is refused (claim not called), so a refused start
	// leaves the directory as it was.
	newLock bool
	claimed bool

	mu        sync.Mutex // guards the appends and the fields below
	f         logFile
	written   int64 // the log's size
	lastFrame int64 // offset of the last frame
	seq       int64 // the seq of the last input written
	sinceSnap int
	failed    error // set once an fsync failed: everything is refused
	refusing  int   // appends refused in a row (reported once)

	syncMu sync.Mutex
	synced int64
	// slowestSync is the longest fsync of the log, in nanoseconds, since
	// it was last set to 0 (BenchmarkSnapshotStall reads it per window).
	slowestSync atomic.Int64

	inputs    *inputLog // the log of the state the snapshots image
	snapEvery int
	kick      chan struct{}
	quit      chan struct{}
	done      chan struct{}
	lastSnap  int64 // seq of the last snapshot
	lastSize  int   // its size: the next one is about as large
}

// openStore creates dir if needed and takes its lock.
func openStore(dir string, diag io.Writer, snapEvery int) (*store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("simulator: data directory: %w", err)
	}
	_, statErr := os.Stat(filepath.Join(dir, lockName))
	lk, err := datafile.Lock(filepath.Join(dir, lockName))
	if err != nil {
		return nil, fmt.Errorf("simulator: data directory %s: %w", dir, err)
	}
	return &store{dir: dir, diag: diag, lock: lk, path: filepath.Join(dir, logName), snapEvery: snapEvery, newLock: errors.Is(statErr, os.ErrNotExist)}, nil
}

// claim records in DIR/lock that this process holds the directory, once
// the directory is accepted.
func (st *store) claim() {
	st.claimed = true
	if f, ok := st.lock.(*os.File); ok {
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
}

func (st *store) report(format string, args ...any) {
	fmt.Fprintf(st.diag, "mwallet-sim: data %s: "+format+"\n", append([]any{st.dir}, args...)...)
}

// create starts a new log with its header, synced. The header is written
// to DIR/log.tmp and renamed, so a log exists only whole: a crash during
// create leaves no log, and a log whose header does not verify is damage.
func (st *store) create(hdr recordingHeader) error {
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
func (st *store) logHeader() (*recordingHeader, int64, error) {
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
	var hdr recordingHeader
	if err := json.Unmarshal(p, &hdr); err != nil {
		return nil, 0, fmt.Errorf("simulator: data directory: %s: header: %w", st.path, err)
	}
	if err := hdr.Check(); err != nil {
		return nil, 0, fmt.Errorf("simulator: data directory: %s: %w", st.path, err)
	}
	return &hdr, int64(8 + len(p)), nil
}

// scan reads the inputs of the log from offset from up to offset limit
// (the end of the frames checkLog verified), calling fn for each with its
// frame's offset. A whole frame that is not an input is a *DataDirError.
// It returns the offset after the last frame read and that frame's offset.
func (st *store) scan(from, limit int64, fn func(in *recordedInput, off int64) error) (end, last int64, n int, err error) {
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
		in := &recordedInput{}
		if err := json.Unmarshal(p, in); err != nil {
			return end, last, n, &DataDirError{Dir: st.dir, File: logName, Offset: end, Inputs: int64(n), Reason: "a whole frame that is not an input"}
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

// readInputs returns the inputs of the log up to offset limit (for
// Recording).
func (st *store) readInputs(limit int64) ([]*recordedInput, error) {
	_, hlen, err := st.logHeader()
	if err != nil {
		return nil, err
	}
	var out []*recordedInput
	_, _, _, err = st.scan(hlen, limit, func(in *recordedInput, off int64) error {
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

// writeRecording writes the log as a recording (GET /_sim/recording)
// without decoding its inputs: the header of this version (the log's own
// may be of an earlier one), every input up to the point p, and the end
// line.
func (st *store) writeRecording(w io.Writer, p recordingPoint) error {
	limit, seq := p.limit, p.seq
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
	head, err := json.Marshal(p.hdr)
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
	last, _ := json.Marshal(&recordedInput{Seq: seq, Op: opEnd, Clock: p.end, Digest: p.digest})
	bw.Write(last)
	bw.WriteByte('\n')
	return bw.Flush()
}

// openLog opens the log for appending after its last whole frame,
// truncating what follows it.
func (st *store) openLog(end, last, seq int64) error {
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

// append writes one input to the log. The caller holds the recorder's
// lock (so inputs are written in seq order).
func (st *store) append(in *recordedInput) (int64, error) {
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
			st.report("cannot append to %s: %v; refusing requests (service_unavailable) until it can", st.path, err)
		}
		st.refusing++
		return 0, fmt.Errorf("data directory: %w", err)
	}
	if st.refusing > 0 {
		st.report("appending to %s again after refusing %d requests", st.path, st.refusing)
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

// durable waits until the log is on stable storage up to end. Concurrent
// callers share one fsync.
func (st *store) durable(end int64) error {
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
		st.fail(fmt.Errorf("fsync %s: %w", st.path, err))
		return st.failure()
	}
	st.synced = target
	return nil
}

func (st *store) failure() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.failed
}

// fail makes the store refuse every input until the simulator restarts.
func (st *store) fail(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.setFailed(err)
}

// setFailed records the first failure of the store; st.mu is held.
func (st *store) setFailed(err error) {
	if st.failed == nil {
		st.failed = fmt.Errorf("data directory: %w", err)
		st.report("%v; refusing every request until the simulator restarts", err)
	}
}

// close stops the snapshots (writing a last one when inputs came since
// the last) and releases the directory.
func (st *store) close() {
	if st.quit != nil {
		close(st.quit)
		<-st.done
		st.quit = nil
		st.mu.Lock()
		pending := st.seq != st.lastSnap && st.failed == nil
		st.mu.Unlock()
		if pending {
			st.snapshot()
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
			_ = os.Remove(filepath.Join(st.dir, lockName))
		}
		_ = st.lock.Close()
		st.lock = nil
	}
}

// closeStore closes the data directory of the log, if any.
func (l *inputLog) closeStore() {
	if l == nil || l.rec == nil {
		return
	}
	l.rec.mu.Lock()
	st := l.rec.store
	l.rec.mu.Unlock()
	if st == nil {
		return
	}
	// Advances that ran nothing are not logged; the last clock reading is,
	// so a restart continues from it.
	tx := l.k.BeginInput()
	now := l.st.clock.Now()
	l.rec.mu.Lock()
	moved := now.After(l.rec.clock)
	l.rec.mu.Unlock()
	var end int64
	var err error
	if moved {
		end, err = l.rec.log(&recordedInput{Op: opAdvance, Clock: now, To: now})
	}
	tx.End()
	if moved && err == nil {
		_ = l.rec.durable(end)
	}
	st.close()
}
