package simulator

// Snapshots of a data directory (store.go): written in the background every
// so many inputs and at Close, read at restart.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"
)

// snapshotMeta heads the snapshot file.
type snapshotMeta struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	Seq       int64     `json:"seq"`        // the last input the image includes
	Offset    int64     `json:"offset"`     // the log offset after that input
	LastFrame int64     `json:"last_frame"` // the offset of that input's frame
	Schema    string    `json:"schema"`
	Clock     time.Time `json:"clock"`
	Size      int       `json:"size"`
	CRC       uint32    `json:"crc"`
}

// startSnapshots starts the goroutine that writes snapshots.
func (st *store) startSnapshots(s *Simulator) {
	st.sim = s
	st.mu.Lock()
	st.lastSnap = st.seq
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
func (st *store) snapshot() bool {
	s := st.sim
	s.inputs.Lock()
	s.mu.Lock()
	if s.rec.parked > 0 {
		s.mu.Unlock()
		s.inputs.Unlock()
		return false
	}
	img, err := s.encodeImage()
	clock := s.clock.Now()
	st.mu.Lock()
	meta := snapshotMeta{Format: snapshotFormat, Version: snapshotVersion, Seq: st.seq, Offset: st.written,
		LastFrame: st.lastFrame, Schema: imageSchema(), Clock: clock, Size: len(img), CRC: crcOf(img)}
	st.sinceSnap = 0
	failed := st.failed
	st.mu.Unlock()
	s.mu.Unlock()
	s.inputs.Unlock()
	if err != nil {
		st.report("no snapshot: %v", err)
		return true
	}
	if failed != nil || meta.Seq == st.lastSnap {
		return true
	}
	if err := st.durable(meta.Offset); err != nil {
		return true
	}
	if err := st.writeSnapshot(meta, img); err != nil {
		st.report("no snapshot: %v", err)
		return true
	}
	st.lastSnap = meta.Seq
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
	syncDir(st.dir)
	return nil
}

// readSnapshot returns the snapshot of DIR when it is whole, of this
// schema, and within a log of size logSize; otherwise nil and why.
func (st *store) readSnapshot(logSize int64) (*snapshotMeta, []byte, string) {
	b, err := os.ReadFile(filepath.Join(st.dir, snapshotName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, ""
	}
	if err != nil {
		return nil, nil, err.Error()
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, nil, "no header"
	}
	var meta snapshotMeta
	if err := json.Unmarshal(b[:i], &meta); err != nil || meta.Format != snapshotFormat || meta.Version != snapshotVersion {
		return nil, nil, "not a snapshot of this version"
	}
	img := b[i+1:]
	switch {
	case meta.Schema != imageSchema():
		return nil, nil, "written by another version of the simulator"
	case len(img) != meta.Size || crc32.Checksum(img, crcTable) != meta.CRC:
		return nil, nil, "cut short or corrupt"
	case meta.Offset > logSize:
		return nil, nil, "ahead of the log"
	}
	return &meta, img, ""
}
