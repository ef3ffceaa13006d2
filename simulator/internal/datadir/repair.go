package datadir

// Repairing a data directory (check.go says what is damage): the
// damaged log is copied aside before it is cut, a snapshot that does not
// verify (or holds inputs the cut dropped) is moved aside, and what was
// dropped is reported.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datafile"
)

// Repair is what RepairDataDir did.
type Repair struct {
	// Damage is what was found in the log or the snapshot; nil when both
	// verified (a cut-short tail, which a start cuts itself, is not
	// damage).
	Damage *Damage
	// KeptInputs and KeptBytes are what the log holds after the repair.
	KeptInputs int64
	KeptBytes  int64
	// DroppedBytes were cut from the end of the log; DroppedFrames of
	// them were frames that still verified after the damage.
	DroppedBytes  int64
	DroppedFrames int
	// SavedLog is the copy of the log as it was before the cut ("" when
	// nothing was cut); SavedSnapshot is where a snapshot that did not
	// verify or held dropped inputs was moved ("" when none was).
	SavedLog      string
	SavedSnapshot string
}

// String reports the repair in a few lines.
func (r *Repair) String() string {
	var b strings.Builder
	if r.Damage != nil {
		fmt.Fprintf(&b, "found: %s is damaged", filepath.Join(r.Damage.Dir, r.Damage.File))
		if r.Damage.Offset >= 0 {
			fmt.Fprintf(&b, " at offset %d", r.Damage.Offset)
		}
		fmt.Fprintf(&b, " (%s)\n", r.Damage.Reason)
	}
	if r.SavedLog != "" {
		fmt.Fprintf(&b, "the log as it was is saved as %s\n", r.SavedLog)
		fmt.Fprintf(&b, "dropped %d bytes at the end of the log", r.DroppedBytes)
		if r.DroppedFrames > 0 {
			fmt.Fprintf(&b, ", among them %d frames that still verified after the damage", r.DroppedFrames)
		}
		b.WriteString("\n")
	}
	if r.SavedSnapshot != "" {
		fmt.Fprintf(&b, "the snapshot is moved to %s: the start replays the log\n", r.SavedSnapshot)
	}
	fmt.Fprintf(&b, "kept %d whole inputs (%d bytes of log)", r.KeptInputs, r.KeptBytes)
	if r.SavedLog == "" && r.SavedSnapshot == "" {
		b.WriteString("; nothing to repair")
	}
	return b.String()
}

// Repair repairs the directory of st, whose lock it holds: a log damaged
// in a way a crash does not leave is copied aside (DIR/log.damaged-TIME)
// and cut before the frame that does not verify, so the inputs before it
// are kept and every byte from it on is dropped (an input cannot run
// without the ones before it); a cut-short tail is cut the same way; a
// snapshot that does not verify, or holds inputs the cut dropped, is moved
// aside (DIR/snapshot.damaged-TIME). A directory that is not a
// simulator's is refused and left alone.
func (st *Store) Repair() (*Repair, error) {
	rep := &Repair{}
	if _, err := os.Stat(st.path); errors.Is(err, os.ErrNotExist) {
		return rep, st.setSnapshotAside(rep, "a snapshot without its log")
	}
	sf, err := st.LoadSnapshot()
	if err != nil {
		return nil, err
	}
	c, err := st.CheckLog(true)
	if err != nil {
		return nil, err
	}
	cut := int64(-1)
	switch {
	case c.Damage != nil && c.Damage.Foreign:
		return nil, c.Damage
	case c.Damage != nil:
		rep.Damage, cut, rep.KeptInputs, rep.DroppedFrames = c.Damage, c.Damage.Offset, c.Damage.Inputs, c.Damage.Following
	case c.Size > c.End:
		cut, rep.KeptInputs = c.End, c.Inputs
	default:
		rep.KeptInputs = c.Inputs
	}
	rep.KeptBytes = c.Size
	if cut >= 0 {
		saved := st.path + ".damaged-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := datafile.CopyFile(st.path, saved); err != nil {
			return nil, fmt.Errorf("simulator: data directory: saving the damaged log: %w", err)
		}
		rep.SavedLog, rep.DroppedBytes, rep.KeptBytes = saved, c.Size-cut, cut
		if cut == 0 {
			// The header is damaged: nothing is kept, the directory is new.
			err = os.Remove(st.path)
		} else {
			err = datafile.TruncateSynced(st.path, cut)
		}
		if err != nil {
			return nil, fmt.Errorf("simulator: data directory: cutting the log: %w", err)
		}
	}
	if sf != nil {
		reason := ""
		if cut == 0 {
			reason = "its log's header was damaged"
		} else if c, err = st.CheckLog(false, sf.Meta.Offset); err != nil {
			return nil, err
		} else if _, _, damage := sf.Verify(st, c); damage != nil {
			reason = damage.Reason
			if rep.Damage == nil {
				rep.Damage = damage
			}
		}
		if reason != "" {
			if err := st.setSnapshotAside(rep, reason); err != nil {
				return nil, err
			}
		}
	}
	datafile.SyncDir(st.dir)
	st.Report("repair: %s", strings.ReplaceAll(rep.String(), "\n", "; "))
	return rep, nil
}

// setSnapshotAside moves DIR/snapshot aside, if there is one.
func (st *Store) setSnapshotAside(rep *Repair, reason string) error {
	path := filepath.Join(st.dir, SnapshotName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	saved := path + ".damaged-" + time.Now().UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(path, saved); err != nil {
		return fmt.Errorf("simulator: data directory: moving the snapshot aside: %w", err)
	}
	if rep.Damage == nil {
		rep.Damage = &Damage{Dir: st.dir, File: SnapshotName, Offset: -1, Reason: reason}
	}
	rep.SavedSnapshot = saved
	return nil
}
