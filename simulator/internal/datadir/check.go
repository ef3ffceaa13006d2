package datadir

// Checking a data directory before it is used (store.go): what it is (new,
// a simulator's, or something else) and whether its log and snapshot
// verify. Only what a crash can leave is cut at a start: a last frame cut
// short at the end of the log (its header or payload runs past the end,
// and nothing after it verifies), or a tail of zero bytes (a file that
// grew before its data reached the disk). Anything else (a checksum
// mismatch, a length no frame has, a whole frame that is not an input,
// frames that still verify after a bad one, a snapshot that does not
// verify or does not match the log) is damage: the start stops, names the
// offset and changes nothing; RepairDataDir (mwallet-sim repair DIR,
// -data-repair) sets the damaged files aside and cuts.

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/datafile"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Damage is a data directory a simulator does not start on: a log or
// snapshot damaged in a way a crash does not leave, or a directory (or
// log) that is not a simulator's. Nothing in the directory was changed.
// Damage can be repaired (Repair); a foreign directory cannot. The
// simulator answers it as its public DataDirError, which documents the
// fields: the two are converted into each other, so their fields stay the
// same, in the same order.
type Damage struct {
	Dir         string
	File        string // "log", "snapshot", "" for the directory itself
	Offset      int64  // where the damage starts in File, -1 when not about a position
	Reason      string
	Foreign     bool  // the directory or its log is not a simulator's
	Inputs      int64 // whole inputs before Offset (what a repair keeps)
	Rest        int64 // bytes from Offset to the end of File
	Following   int   // frames that still verify after the damage, from FollowingAt
	FollowingAt int64
}

// Error says what is wrong and how to repair it.
func (e *Damage) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "simulator: data directory %s: ", e.Dir)
	if e.Foreign {
		if e.File != "" {
			fmt.Fprintf(&b, "%s is not a simulator's %s (%s); nothing was changed: give -data (WithDataDir) an empty or new directory, or move the file away", filepath.Join(e.Dir, e.File), e.File, e.Reason)
		} else {
			fmt.Fprintf(&b, "%s; nothing was changed: give -data (WithDataDir) an empty or new directory", e.Reason)
		}
		return b.String()
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, "%s is damaged at offset %d: %s", filepath.Join(e.Dir, e.File), e.Offset, e.Reason)
		if e.Rest > 0 {
			fmt.Fprintf(&b, " (%d bytes from there to its end", e.Rest)
			if e.Following > 0 {
				fmt.Fprintf(&b, ", with %d frames that still verify from offset %d", e.Following, e.FollowingAt)
			}
			b.WriteString(")")
		}
		b.WriteString("; ")
	} else {
		fmt.Fprintf(&b, "%s is damaged: %s; ", filepath.Join(e.Dir, e.File), e.Reason)
	}
	b.WriteString("this is not what a crash leaves, so nothing was changed. ")
	if e.File == LogName {
		fmt.Fprintf(&b, "To keep the %d whole inputs before offset %d and set the damaged log aside: ", e.Inputs, e.Offset)
	} else {
		b.WriteString("To set the snapshot aside and replay the log: ")
	}
	fmt.Fprintf(&b, "mwallet-sim repair %s, or serve with -data-repair (in Go: simulator.RepairDataDir)", e.Dir)
	return b.String()
}

// ourName reports whether name is a file a data directory may hold.
func ourName(name string) bool {
	switch name {
	case LockName, LogName, LogName + ".tmp", SnapshotName, SnapshotName + ".tmp":
		return true
	}
	return strings.HasPrefix(name, LogName+".damaged-") || strings.HasPrefix(name, SnapshotName+".damaged-")
}

// CheckLayout refuses a directory that holds files a simulator does not
// write. It reports whether dir holds a log. It reads only.
func CheckLayout(dir string) (hasLog bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("simulator: data directory: %w", err)
	}
	var foreign []string
	hasSnap := false
	for _, en := range entries {
		switch {
		case !ourName(en.Name()) || (en.IsDir() && en.Name() != ""):
			foreign = append(foreign, en.Name())
		case en.Name() == LogName:
			hasLog = true
		case en.Name() == SnapshotName:
			hasSnap = true
		}
	}
	if len(foreign) > 0 {
		sort.Strings(foreign)
		if len(foreign) > 5 {
			foreign = append(foreign[:5], fmt.Sprintf("and %d more", len(foreign)-5))
		}
		return false, &Damage{Dir: dir, Offset: -1, Foreign: true,
			Reason: "it holds files a simulator does not write (" + strings.Join(foreign, ", ") + "): it is not a simulator's data directory"}
	}
	if hasSnap && !hasLog {
		return false, &Damage{Dir: dir, File: SnapshotName, Offset: -1, Reason: "a snapshot without its log"}
	}
	return hasLog, nil
}

// LogCheck is what verifying a log found.
type LogCheck struct {
	Size      int64   // the log's size
	Hdr       *Header // nil for an empty log
	HeaderLen int64   // the header frame's length
	End       int64   // the offset after the last whole frame
	Last      int64   // the offset of the last whole input frame, -1 for none
	Inputs    int64   // whole input frames
	Torn      string  // what a crash left after End ("" when nothing)
	Damage    *Damage // the damage found, nil when the log verifies
	// Marks maps an offset the caller asked about (a snapshot's) to the
	// number of inputs before it, when a frame starts there.
	Marks map[int64]int64
}

// CheckLog verifies every frame of the log: its length and checksum, the
// header, and with decode that every next frame is an input. It reads
// only.
func (st *Store) CheckLog(decode bool, marks ...int64) (*LogCheck, error) {
	c := &LogCheck{Last: -1, Marks: map[int64]int64{}}
	f, err := os.Open(st.path)
	if err != nil {
		return nil, fmt.Errorf("simulator: data directory: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	c.Size = info.Size()
	want := map[int64]bool{}
	for _, m := range marks {
		want[m] = true
	}
	ours := headerLooksOurs(f, c.Size)
	br := bufio.NewReaderSize(f, 256<<10)
	var buf []byte // one frame's payload, reused
	for {
		off := c.End
		if want[off] {
			c.Marks[off] = c.Inputs
		}
		var h [8]byte
		n, err := io.ReadFull(br, h[:])
		if n == 0 && err == io.EOF {
			return c, nil
		}
		if off == 0 && !ours {
			c.Damage = &Damage{Dir: st.dir, File: LogName, Offset: 0, Foreign: true, Reason: "it does not start with a simulator header"}
			return c, nil
		}
		if err != nil {
			return c, st.cutShort(c, f, off, "a frame header cut short")
		}
		size := binary.LittleEndian.Uint32(h[:])
		if size == 0 {
			// No frame is empty: zero bytes are a file that grew before its
			// data reached the disk, when nothing else follows.
			return c, st.cutShort(c, f, off, "an empty frame")
		}
		if size > datafile.MaxFrame {
			c.Damage = st.damaged(c, f, off, fmt.Sprintf("a frame length of %d bytes, more than any frame", size))
			return c, nil
		}
		if cap(buf) < int(size) {
			buf = make([]byte, size)
		}
		p := buf[:size]
		if _, err := io.ReadFull(br, p); err != nil {
			return c, st.cutShort(c, f, off, "a frame cut short")
		}
		if datafile.CRC(p) != binary.LittleEndian.Uint32(h[4:]) {
			c.Damage = st.damaged(c, f, off, "checksum mismatch")
			return c, nil
		}
		if off == 0 {
			var hdr Header
			if err := json.Unmarshal(p, &hdr); err != nil || hdr.Format != recfile.Format || st.checkConfig(hdr.Config) != nil {
				c.Damage = &Damage{Dir: st.dir, File: LogName, Offset: 0, Foreign: true, Reason: "its first frame is not a simulator header"}
				return c, nil
			}
			if err := hdr.Check(); err != nil {
				return c, fmt.Errorf("simulator: data directory: %s: %w", st.path, err)
			}
			c.Hdr, c.HeaderLen = &hdr, int64(8+len(p))
		} else {
			if decode {
				var in recfile.Input
				if err := json.Unmarshal(p, &in); err != nil {
					c.Damage = st.damaged(c, f, off, "a whole frame that is not an input")
					return c, nil
				}
				if in.Seq != c.Inputs+1 {
					c.Damage = st.damaged(c, f, off, fmt.Sprintf("input %d where input %d should be", in.Seq, c.Inputs+1))
					return c, nil
				}
			}
			c.Last = off
			c.Inputs++
		}
		c.End = off + int64(8+len(p))
	}
}

// headerPrefix is how every log's first payload starts.
var headerPrefix = []byte(`{"format":"` + recfile.Format + `"`)

// headerLooksOurs reports whether a log of size bytes starts as a
// simulator's does (a frame header, then headerPrefix), or is too short to
// tell.
func headerLooksOurs(f *os.File, size int64) bool {
	head := make([]byte, min(size, int64(8+len(headerPrefix))))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return true
	}
	if len(head) <= 8 {
		return true
	}
	// A byte or two of the prefix may be what is damaged.
	diff := 0
	for i, x := range head[8:] {
		if x != headerPrefix[i] {
			diff++
		}
	}
	if diff <= 2 {
		return true
	}
	// Or frames that verify follow: no other file is framed that way.
	rest, err := datafile.ReadRest(f, 1, min(size, 1<<20))
	if err != nil {
		return true
	}
	_, n := datafile.Resync(rest, 1)
	return n > 0
}

// cutShort decides what a frame cut short at off is: what a crash leaves
// when nothing after it verifies and it is not the header, damage
// otherwise.
func (st *Store) cutShort(c *LogCheck, f *os.File, off int64, what string) error {
	rest, err := datafile.ReadRest(f, off, c.Size)
	if err != nil {
		return err
	}
	if datafile.AllZero(rest) {
		c.Torn = fmt.Sprintf("%d zero bytes", len(rest))
		return nil
	}
	if at, n := datafile.Resync(rest[1:], off+1); n > 0 {
		c.Damage = &Damage{Dir: st.dir, File: LogName, Offset: off, Inputs: c.Inputs, Rest: int64(len(rest)),
			Following: n, FollowingAt: at, Reason: what + ", followed by frames that verify"}
		return nil
	}
	if off == 0 {
		// A log is created whole (written aside, then renamed): a header
		// cut short is not a crash's.
		c.Damage = &Damage{Dir: st.dir, File: LogName, Offset: 0, Rest: c.Size, Reason: "the header frame: " + what}
		return nil
	}
	c.Torn = fmt.Sprintf("%d bytes of %s", len(rest), what[2:])
	return nil
}

// damaged is the damage of the frame at off, with what follows it.
func (st *Store) damaged(c *LogCheck, f *os.File, off int64, reason string) *Damage {
	e := &Damage{Dir: st.dir, File: LogName, Offset: off, Inputs: c.Inputs, Reason: reason}
	if off == 0 {
		e.Reason = "the header frame: " + reason
	}
	e.Rest = c.Size - off
	if rest, err := datafile.ReadRest(f, off, c.Size); err == nil && len(rest) > 1 {
		e.FollowingAt, e.Following = datafile.Resync(rest[1:], off+1)
	}
	return e
}
