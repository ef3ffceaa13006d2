package datadir

// Snapshots of a data directory (store.go): written in the background every
// so many inputs and at Close, read at restart.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datafile"
)

// Meta heads the snapshot file: its first line, the header as JSON
// padded with spaces to SnapshotHead bytes (a reader takes the line up to
// its newline, so one unpadded, as earlier builds wrote it, reads the
// same). Size and CRC are those of the bytes after that line.
type Meta struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	Seq       int64     `json:"seq"`        // the last input the image includes
	Offset    int64     `json:"offset"`     // the log offset after that input
	LastFrame int64     `json:"last_frame"` // the offset of that input's frame
	Clock     time.Time `json:"clock"`
	Size      int       `json:"size"`
	CRC       uint32    `json:"crc"`
}

// Source is the state a store's snapshots image: the simulator answers
// it.
type Source interface {
	// Capture takes the state lock and captures the state, calling held
	// with the state's clock while the lock is still held; it reports
	// false, having captured nothing and without calling held, when it
	// must be tried again later (a request waits in a delay fault, its
	// continuation on its goroutine).
	Capture(held func(clock time.Time)) (Capture, bool)
}

// Capture is a captured state, written outside the state lock.
type Capture interface {
	// Write writes the state by name to w and releases the capture,
	// whether it succeeds or not.
	Write(w io.Writer) error
	// Release lets the capture go unwritten.
	Release()
}

// StartSnapshots starts the goroutine that writes snapshots of the state
// src captures; snapSeq is the input the directory's snapshot holds the
// state after (0: none this build reads), so that a restart that replayed
// inputs (a snapshot of an earlier format ignored, or the tail after it)
// writes one at Close even when no input came since.
func (st *Store) StartSnapshots(src Source, snapSeq int64) {
	st.src = src
	st.mu.Lock()
	st.lastSnap = snapSeq
	st.mu.Unlock()
	if st.snapEvery <= 0 {
		return
	}
	st.kick, st.quit, st.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go st.snapshotLoop()
}

func (st *Store) snapshotLoop() {
	defer close(st.done)
	for {
		select {
		case <-st.quit:
			return
		case <-st.kick:
		}
		for !st.Snapshot() {
			// A request waits in a delay fault: try again shortly.
			select {
			case <-st.quit:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// Snapshot writes a snapshot of the state; it reports false when it must
// be tried again later (a request waits in a delay fault, its
// continuation on its goroutine).
//
// The state lock is held only while the state is captured
// (kernel.Capture: the tables' rows are shared, not copied): the state is
// written by name from the capture (kernel.WriteState) straight to the
// file, checksummed as it goes (WriteSnapshot), and the log made durable
// up to it, while requests run on.
func (st *Store) Snapshot() bool {
	var meta Meta
	var failed error
	c, ok := st.src.Capture(func(clock time.Time) {
		st.mu.Lock()
		meta = Meta{Format: SnapshotFormat, Version: SnapshotVersion, Seq: st.seq, Offset: st.written,
			LastFrame: st.lastFrame, Clock: clock}
		st.sinceSnap = 0
		failed = st.failed
		st.mu.Unlock()
	})
	if !ok {
		return false
	}
	if failed != nil || meta.Seq == st.lastSnap {
		c.Release()
		return true
	}
	written := false
	err := st.WriteSnapshot(meta, func(w io.Writer) error { written = true; return c.Write(w) },
		func() error { return st.Durable(meta.Offset) })
	if !written {
		c.Release() // the file could not be made: the capture goes unwritten
	}
	if err != nil {
		if !errors.Is(err, errLogNotDurable) {
			st.Report("no snapshot: %v", err)
		}
		return true
	}
	st.lastSnap = meta.Seq
	return true
}

// errLogNotDurable is a snapshot not put in place because the log could
// not be made durable up to it (the store reported that already).
var errLogNotDurable = errors.New("the log is not durable up to the snapshot")

// SnapshotHead is the width of a snapshot's first line, the header padded
// with spaces: the state after it is streamed to the file as it is
// encoded, and the header, which holds its size and checksum, written
// over the reserved line at the end.
const SnapshotHead = 256

// WriteSnapshot writes DIR/snapshot: a temporary file gets the state
// write writes, streamed through its checksum (datafile.Stream, which
// keeps the file's dirty pages few as it goes), then its header, and is
// synced; ready (when set) runs before it replaces the last snapshot,
// which it does only when ready succeeds. A failure leaves no temporary
// file.
func (st *Store) WriteSnapshot(meta Meta, write func(io.Writer) error, ready func() error) error {
	tmp := filepath.Join(st.dir, SnapshotName+".tmp")
	s, err := datafile.CreateStream(tmp, SnapshotHead)
	if err != nil {
		return err
	}
	if err := write(s); err != nil {
		s.Abort()
		return err
	}
	meta.Size, meta.CRC = int(s.Size()), s.CRC()
	head, err := json.Marshal(meta)
	if err == nil && len(head) >= SnapshotHead {
		err = fmt.Errorf("a header of %d bytes, wider than the %d reserved", len(head), SnapshotHead-1)
	}
	if err != nil {
		s.Abort()
		return err
	}
	head = append(head, bytes.Repeat([]byte{' '}, SnapshotHead-1-len(head))...)
	if err := s.Finish(append(head, '\n')); err != nil {
		return err
	}
	if ready != nil {
		if err := ready(); err != nil {
			_ = os.Remove(tmp)
			return errLogNotDurable
		}
	}
	if err := os.Rename(tmp, filepath.Join(st.dir, SnapshotName)); err != nil {
		return err
	}
	datafile.SyncDir(st.dir)
	return nil
}

// SnapshotFile is DIR/snapshot as read.
type SnapshotFile struct {
	Meta Meta
	Img  []byte // the state by name
	// damage says why it does not verify ("" when it does), at offset
	// damageAt of the file.
	damage   string
	damageAt int64
	// other says why a snapshot that verifies is of another version.
	other string
}

// LoadSnapshot reads DIR/snapshot; nil when there is none.
func (st *Store) LoadSnapshot() (*SnapshotFile, error) {
	b, err := os.ReadFile(filepath.Join(st.dir, SnapshotName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("simulator: data directory: %w", err)
	}
	sf := &SnapshotFile{}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		sf.damage = "no header line"
		return sf, nil
	}
	if err := json.Unmarshal(b[:i], &sf.Meta); err != nil || sf.Meta.Format != SnapshotFormat {
		sf.damage = "its header line is not a snapshot's"
		return sf, nil
	}
	sf.Img = b[i+1:]
	switch {
	case sf.Meta.Version != SnapshotVersion:
		sf.other = fmt.Sprintf("of format version %d", sf.Meta.Version)
	case len(sf.Img) != sf.Meta.Size || datafile.CRC(sf.Img) != sf.Meta.CRC:
		sf.damage, sf.damageAt = fmt.Sprintf("the state (%d bytes, %d in its header) does not match its checksum", len(sf.Img), sf.Meta.Size), int64(i+1)
	}
	return sf, nil
}

// Verify checks a snapshot against the checked log: it must end at a
// frame of the log, after as many inputs as it says. It returns the damage,
// or whether the snapshot can be used (and why not).
func (sf *SnapshotFile) Verify(st *Store, c *LogCheck) (ok bool, why string, damage *Damage) {
	bad := func(off int64, reason string) *Damage {
		return &Damage{Dir: st.dir, File: SnapshotName, Offset: off, Reason: reason}
	}
	if sf.damage != "" {
		return false, "", bad(sf.damageAt, sf.damage)
	}
	if sf.other != "" {
		return false, sf.other, nil
	}
	if sf.Meta.Offset > c.End {
		return false, "", bad(-1, fmt.Sprintf("it holds the state after offset %d of the log, which has %d whole bytes: the log lost inputs the snapshot holds", sf.Meta.Offset, c.End))
	}
	if n, at := c.Marks[sf.Meta.Offset]; !at || n != sf.Meta.Seq {
		return false, "", bad(-1, fmt.Sprintf("it holds the state after input %d at log offset %d, which is not where that input ends in the log", sf.Meta.Seq, sf.Meta.Offset))
	}
	return true, "", nil
}
