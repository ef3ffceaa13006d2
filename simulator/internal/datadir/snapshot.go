package datadir

// Snapshots of a data directory (store.go): written in the background every
// so many inputs and at Close, read at restart.

import (
	"bufio"
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

// Meta heads the snapshot file.
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
	// Write writes the state by name to w.
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
// written by name from the capture (kernel.WriteState), checksummed and
// written, and the log made durable up to it, while requests run on.
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
	var b bytes.Buffer
	b.Grow(st.lastSize)
	err := c.Write(&b)
	img := b.Bytes()
	if err != nil {
		st.Report("no snapshot: %v", err)
		return true
	}
	meta.Size, meta.CRC = len(img), datafile.CRC(img)
	if err := st.Durable(meta.Offset); err != nil {
		return true
	}
	if err := st.WriteSnapshot(meta, img); err != nil {
		st.Report("no snapshot: %v", err)
		return true
	}
	st.lastSnap, st.lastSize = meta.Seq, len(img)
	return true
}

// WriteSnapshot writes DIR/snapshot: meta's line, then img; the file is
// replaced atomically (written aside, synced, renamed).
func (st *Store) WriteSnapshot(meta Meta, img []byte) error {
	tmp := filepath.Join(st.dir, SnapshotName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	head, _ := json.Marshal(meta)
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.Write(head)
	bw.WriteByte('\n')
	bw.Write(img)
	if err := bw.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
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
