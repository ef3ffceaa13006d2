package simulator

// Snapshots of a data directory (store.go): written in the background every
// so many inputs and at Close, read at restart.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datafile"
)

// snapshotMeta heads the snapshot file.
type snapshotMeta struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	Seq       int64     `json:"seq"`        // the last input the image includes
	Offset    int64     `json:"offset"`     // the log offset after that input
	LastFrame int64     `json:"last_frame"` // the offset of that input's frame
	Clock     time.Time `json:"clock"`
	Size      int       `json:"size"`
	CRC       uint32    `json:"crc"`
}

// startSnapshots starts the goroutine that writes snapshots of the state
// l logs the inputs of; snapSeq is the input the directory's snapshot
// holds the state after (0: none this build reads), so that a restart
// that replayed inputs (a snapshot of an earlier format ignored, or the
// tail after it) writes one at Close even when no input came since.
func (st *store) startSnapshots(l *inputLog, snapSeq int64) {
	st.inputs = l
	st.mu.Lock()
	st.lastSnap = snapSeq
	st.mu.Unlock()
	if st.snapEvery <= 0 {
		return
	}
	st.kick, st.quit, st.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	go st.snapshotLoop()
}

func (st *store) snapshotLoop() {
	defer close(st.done)
	for {
		select {
		case <-st.quit:
			return
		case <-st.kick:
		}
		for !st.snapshot() {
			// A request waits in a delay fault: try again shortly.
			select {
			case <-st.quit:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// snapshot writes a snapshot of the state; it reports false when it must
// be tried again later (a request waits in a delay fault, its
// continuation on its goroutine).
//
// The state lock is held only while the state is captured
// (kernel.Capture: the tables' rows are shared, not copied): the state is
// written by name from the capture (kernel.WriteState), checksummed and
// written, and the log made durable up to it, while requests run on.
func (st *store) snapshot() bool {
	l := st.inputs
	tx := l.k.BeginCapture(true)
	if l.rec.parked > 0 {
		tx.End()
		return false
	}
	c := l.k.Capture(tx)
	st.mu.Lock()
	meta := snapshotMeta{Format: snapshotFormat, Version: snapshotVersion, Seq: st.seq, Offset: st.written,
		LastFrame: st.lastFrame, Clock: c.Now()}
	st.sinceSnap = 0
	failed := st.failed
	st.mu.Unlock()
	tx.End()
	if failed != nil || meta.Seq == st.lastSnap {
		c.Release()
		return true
	}
	var b bytes.Buffer
	b.Grow(st.lastSize)
	err := l.image.writeState(&b, c)
	img := b.Bytes()
	if err != nil {
		st.report("no snapshot: %v", err)
		return true
	}
	meta.Size, meta.CRC = len(img), datafile.CRC(img)
	if err := st.durable(meta.Offset); err != nil {
		return true
	}
	if err := st.writeSnapshot(meta, img); err != nil {
		st.report("no snapshot: %v", err)
		return true
	}
	st.lastSnap, st.lastSize = meta.Seq, len(img)
	return true
}

func (st *store) writeSnapshot(meta snapshotMeta, img []byte) error {
	tmp := filepath.Join(st.dir, snapshotName+".tmp")
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
	if err := os.Rename(tmp, filepath.Join(st.dir, snapshotName)); err != nil {
		return err
	}
	datafile.SyncDir(st.dir)
	return nil
}

// snapshotFile is DIR/snapshot as read.
type snapshotFile struct {
	meta snapshotMeta
	img  []byte
	// damage says why it does not verify ("" when it does), at offset
	// damageAt of the file.
	damage   string
	damageAt int64
	// other says why a snapshot that verifies is of another version.
	other string
}

// loadSnapshot reads DIR/snapshot; nil when there is none.
func (st *store) loadSnapshot() (*snapshotFile, error) {
	b, err := os.ReadFile(filepath.Join(st.dir, snapshotName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("simulator: data directory: %w", err)
	}
	sf := &snapshotFile{}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		sf.damage = "no header line"
		return sf, nil
	}
	if err := json.Unmarshal(b[:i], &sf.meta); err != nil || sf.meta.Format != snapshotFormat {
		sf.damage = "its header line is not a snapshot's"
		return sf, nil
	}
	sf.img = b[i+1:]
	switch {
	case sf.meta.Version != snapshotVersion:
		sf.other = fmt.Sprintf("of format version %d", sf.meta.Version)
	case len(sf.img) != sf.meta.Size || datafile.CRC(sf.img) != sf.meta.CRC:
		sf.damage, sf.damageAt = fmt.Sprintf("the state (%d bytes, %d in its header) does not match its checksum", len(sf.img), sf.meta.Size), int64(i+1)
	}
	return sf, nil
}

// verify checks a snapshot against the checked log: it must end at a
// frame of the log, after as many inputs as it says. It returns the damage,
// or whether the snapshot can be used (and why not).
func (sf *snapshotFile) verify(st *store, c *logCheck) (ok bool, why string, damage *DataDirError) {
	bad := func(off int64, reason string) *DataDirError {
		return &DataDirError{Dir: st.dir, File: snapshotName, Offset: off, Reason: reason}
	}
	if sf.damage != "" {
		return false, "", bad(sf.damageAt, sf.damage)
	}
	if sf.other != "" {
		return false, sf.other, nil
	}
	if sf.meta.Offset > c.end {
		return false, "", bad(-1, fmt.Sprintf("it holds the state after offset %d of the log, which has %d whole bytes: the log lost inputs the snapshot holds", sf.meta.Offset, c.end))
	}
	if n, at := c.marks[sf.meta.Offset]; !at || n != sf.meta.Seq {
		return false, "", bad(-1, fmt.Sprintf("it holds the state after input %d at log offset %d, which is not where that input ends in the log", sf.meta.Seq, sf.meta.Offset))
	}
	return true, "", nil
}
