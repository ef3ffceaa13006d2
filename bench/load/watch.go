package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// snapshotEvent is a snapshot of the data directory, seen by its files:
// the simulator encodes the state into memory holding its state lock, then
// writes DIR/snapshot.tmp, syncs it and renames it to DIR/snapshot.
type snapshotEvent struct {
	Seq  int64 // the last input it holds, from its header (-1 when unreadable)
	Size int64 // bytes
	// Seen is when DIR/snapshot.tmp was first seen: the encoding had ended
	// (zero when the file came and went between two looks).
	Seen time.Time
	// Done is the new DIR/snapshot's modification time: written and synced.
	Done time.Time
}

// mark is the best estimate of when the encoding ended.
func (e snapshotEvent) mark() time.Time {
	if !e.Seen.IsZero() {
		return e.Seen
	}
	return e.Done
}

// controlRead is one whole-state control read the tool made under load.
type controlRead struct {
	Path  string
	Span  interval
	Bytes int64
	Err   error
}

// monitor samples the simulator while the clients run: its stats (store
// sizes), its clock, its data directory's snapshots, and the whole-state
// control reads it is asked to make.
type monitor struct {
	ctl        *controlClient
	dataDir    string
	clockEvery time.Duration
	statsEvery time.Duration
	readPaths  []string
	readEvery  time.Duration

	mu       sync.Mutex
	stats    map[string]int64 // the latest
	statsMax map[string]int64 // the largest since the last take
	fill     []fillSample
	lags     []time.Duration // clock lags since the last take
	allLags  []time.Duration
	snaps    []snapshotEvent
	reads    []controlRead
	errs     map[string]int // sampling errors by what failed

	wg sync.WaitGroup
}

// fillSample is one reading of GET /_sim/stats.
type fillSample struct {
	At    time.Time
	Stats map[string]int64
}

func (m *monitor) start(ctx context.Context) {
	m.stats, m.statsMax, m.errs = map[string]int64{}, map[string]int64{}, map[string]int{}
	m.every(ctx, m.statsEvery, m.sampleStats)
	m.every(ctx, m.clockEvery, m.sampleClock)
	if len(m.readPaths) > 0 && m.readEvery > 0 {
		i := 0
		m.every(ctx, m.readEvery, func(ctx context.Context) {
			m.controlRead(ctx, m.readPaths[i%len(m.readPaths)])
			i++
		})
	}
	if m.dataDir != "" {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.watchSnapshots(ctx)
		}()
	}
}

// wait waits for the samplers to end (after their context has).
func (m *monitor) wait() { m.wg.Wait() }

func (m *monitor) every(ctx context.Context, d time.Duration, f func(context.Context)) {
	if d <= 0 {
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				f(ctx)
			}
		}
	}()
}

func (m *monitor) failed(what string) {
	m.mu.Lock()
	m.errs[what]++
	m.mu.Unlock()
}

func (m *monitor) sampleStats(ctx context.Context) {
	var raw map[string]json.RawMessage
	if err := m.ctl.call(ctx, http.MethodGet, "/_sim/stats", nil, &raw); err != nil {
		if ctx.Err() == nil {
			m.failed("GET /_sim/stats")
		}
		return
	}
	s := numbers(raw)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats = s
	for k, v := range s {
		m.statsMax[k] = max(m.statsMax[k], v)
	}
	m.fill = append(m.fill, fillSample{At: time.Now(), Stats: s})
}

// numbers keeps the whole numbers of a JSON object.
func numbers(raw map[string]json.RawMessage) map[string]int64 {
	out := map[string]int64{}
	for k, v := range raw {
		var n int64
		if json.Unmarshal(v, &n) == nil {
			out[k] = n
		}
	}
	return out
}

// sampleClock reads GET /_sim/clock: the lag is the host time half-way
// through the request minus the simulator's reading. The reading counts
// whole seconds, so a clock in step reads a lag of 0 to 1 s; 1 s or more
// means it is behind.
func (m *monitor) sampleClock(ctx context.Context) {
	var c struct {
		Unix int64 `json:"unix"`
	}
	t0 := time.Now()
	if err := m.ctl.call(ctx, http.MethodGet, "/_sim/clock", nil, &c); err != nil {
		if ctx.Err() == nil {
			m.failed("GET /_sim/clock")
		}
		return
	}
	t1 := time.Now()
	lag := t0.Add(t1.Sub(t0) / 2).Sub(time.Unix(c.Unix, 0))
	m.mu.Lock()
	m.lags = append(m.lags, lag)
	m.allLags = append(m.allLags, lag)
	m.mu.Unlock()
}

func (m *monitor) controlRead(ctx context.Context, path string) {
	from := time.Now()
	n, err := m.ctl.count(ctx, path)
	if ctx.Err() != nil {
		return
	}
	m.mu.Lock()
	m.reads = append(m.reads, controlRead{Path: path, Span: interval{From: from, To: time.Now()}, Bytes: n, Err: err})
	m.mu.Unlock()
}

// snapshotPoll is how often the data directory is looked at.
const snapshotPoll = 20 * time.Millisecond

func (m *monitor) watchSnapshots(ctx context.Context) {
	sw := newSnapshotWatcher(m.dataDir)
	t := time.NewTicker(snapshotPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if e, ok := sw.look(time.Now()); ok {
			m.mu.Lock()
			m.snaps = append(m.snaps, e)
			m.mu.Unlock()
		}
	}
}

// snapshotWatcher looks at a data directory's snapshot files.
type snapshotWatcher struct {
	snap, tmp string
	last      os.FileInfo
	lastSeq   int64
	seen      time.Time
}

// newSnapshotWatcher watches dir from now: a snapshot already there is
// not counted.
func newSnapshotWatcher(dir string) *snapshotWatcher {
	sw := &snapshotWatcher{snap: filepath.Join(dir, "snapshot"), lastSeq: -1}
	sw.tmp = sw.snap + ".tmp"
	if fi, err := os.Stat(sw.snap); err == nil {
		sw.last, sw.lastSeq = fi, snapshotSeq(sw.snap)
	}
	return sw
}

// look looks at the files at now and returns the snapshot written since
// the last look, if any.
func (sw *snapshotWatcher) look(now time.Time) (snapshotEvent, bool) {
	if _, err := os.Stat(sw.tmp); err == nil && sw.seen.IsZero() {
		sw.seen = now
	}
	fi, err := os.Stat(sw.snap)
	if err != nil || (sw.last != nil && fi.ModTime().Equal(sw.last.ModTime()) && fi.Size() == sw.last.Size()) {
		return snapshotEvent{}, false
	}
	sw.last = fi
	seq := snapshotSeq(sw.snap)
	e := snapshotEvent{Seq: seq, Size: fi.Size(), Seen: sw.seen, Done: fi.ModTime()}
	isNew := seq < 0 || seq != sw.lastSeq
	sw.lastSeq, sw.seen = seq, time.Time{}
	return e, isNew
}

// snapshotSeq reads the input count from a snapshot's header line; -1 when
// it cannot.
func snapshotSeq(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil {
		return -1
	}
	var h struct {
		Seq *int64 `json:"seq"`
	}
	if json.Unmarshal(line, &h) != nil || h.Seq == nil {
		return -1
	}
	return *h.Seq
}

// take returns the largest store sizes and the clock lags since the last
// take, and the latest stats.
func (m *monitor) take() (latest, largest map[string]int64, lags []time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	latest, largest, lags = m.stats, m.statsMax, m.lags
	m.statsMax, m.lags = map[string]int64{}, nil
	return latest, largest, lags
}

// results returns everything sampled.
func (m *monitor) results() (fill []fillSample, lags []time.Duration, snaps []snapshotEvent, reads []controlRead, errs map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	errs = map[string]int{}
	for k, v := range m.errs {
		errs[k] = v
	}
	return append([]fillSample(nil), m.fill...), append([]time.Duration(nil), m.allLags...),
		append([]snapshotEvent(nil), m.snaps...), append([]controlRead(nil), m.reads...), errs
}

func (m *monitor) snapshotCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.snaps)
}

// attribution sorts the stalls of at least min: those that ended at a
// snapshot (its encoding ended, as seen by its files, within the stall or
// up to slack after it), those that overlapped a whole-state control read,
// and the others.
type attribution struct {
	Stalls, AtSnapshot, AtControlRead, Other int
	// The longest of each.
	LongestAtSnapshot, LongestAtControlRead, LongestOther time.Duration
}

// snapshotSlack is how long after a stall ends the files may show that a
// snapshot's encoding ended: the log's sync it waits for, and the polling.
const snapshotSlack = 500 * time.Millisecond

func attribute(stalls []interval, minLen time.Duration, snaps []snapshotEvent, reads []controlRead) attribution {
	var a attribution
	for _, s := range stalls {
		if s.Len() < minLen {
			continue
		}
		a.Stalls++
		atSnap := false
		for _, e := range snaps {
			if mk := e.mark(); !mk.Before(s.From) && !mk.After(s.To.Add(snapshotSlack)) {
				atSnap = true
			}
		}
		atRead := false
		for _, r := range reads {
			if r.Span.overlaps(s) {
				atRead = true
			}
		}
		switch {
		case atSnap:
			a.AtSnapshot++
			a.LongestAtSnapshot = max(a.LongestAtSnapshot, s.Len())
		case atRead:
			a.AtControlRead++
			a.LongestAtControlRead = max(a.LongestAtControlRead, s.Len())
		default:
			a.Other++
			a.LongestOther = max(a.LongestOther, s.Len())
		}
	}
	return a
}
