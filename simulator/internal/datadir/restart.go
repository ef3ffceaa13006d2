package datadir

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// restart builds the simulator a directory's log describes (c, checked):
// from its snapshot sf when it verifies and reads, then the inputs after
// it replayed; else the whole log replayed. The log is then opened for
// appending after its last whole input (a torn tail is cut) and the
// snapshots start.
func restart[S any](o Options, h Host[S], st *Store, c *LogCheck, sf *SnapshotFile) (S, error) {
	var none S
	t0 := time.Now()
	var s S
	built := false
	var from, snapSeq int64 = c.HeaderLen, 0
	if sf != nil {
		ok, why, damage := sf.Verify(st, c)
		switch {
		case damage != nil:
			return none, damage
		case ok:
			var err error
			if s, err = h.Build(); err != nil {
				return none, err
			}
			if derr := h.ReadState(s, bytes.NewReader(sf.Img)); derr != nil {
				st.Report("snapshot not used (%v): replaying the whole log", derr)
			} else {
				built = true
				from, snapSeq = sf.Meta.Offset, sf.Meta.Seq
				h.Log(s).StartAt(sf.Meta.Seq)
			}
		default:
			st.Report("snapshot not used (%s): replaying the whole log", why)
		}
	}
	if !built {
		var err error
		if s, err = h.Build(); err != nil {
			return none, err
		}
	}
	tSnap := time.Since(t0)
	log := h.Log(s)
	log.NotInMemory() // the log is the recording
	p := h.Replayer(s)
	end, _, n, err := st.Scan(from, c.End, func(in *recfile.Input, off int64) error {
		if want := log.Seq() + 1; in.Seq != want {
			return &Damage{Dir: o.Dir, File: LogName, Offset: off, Reason: fmt.Sprintf("input %d where input %d should be", in.Seq, want)}
		}
		return p.Step(in)
	})
	if err != nil {
		p.Abandon()
		var de *Damage
		if errors.As(err, &de) {
			// Described in full (what follows it, what a repair keeps).
			if full, cerr := st.CheckLog(true); cerr == nil && full.Damage != nil {
				return none, full.Damage
			}
			return none, de
		}
		return none, fmt.Errorf("simulator: data directory %s: the log does not replay: %w", o.Dir, err)
	}
	if end != c.End {
		p.Abandon()
		return none, fmt.Errorf("simulator: data directory %s: the log changed while it was read", o.Dir)
	}
	st.Claim()
	if c.Size > end {
		st.Report("%s: kept %d whole inputs up to offset %d; discarded %d bytes a crash left at its end (%s)",
			filepath.Join(o.Dir, LogName), log.Seq(), end, c.Size-end, c.Torn)
	}
	if err = st.OpenLog(end, c.Last, log.Seq()); err != nil {
		p.Abandon()
		return none, err
	}
	log.AttachStore(st)
	p.Finish()
	if snapSeq > 0 {
		st.Report("restarted at input %d: snapshot of input %d read in %s, %d inputs replayed in %s",
			log.Seq(), snapSeq, tSnap.Round(time.Millisecond), n, (time.Since(t0) - tSnap).Round(time.Millisecond))
	} else {
		st.Report("restarted at input %d: %d inputs replayed in %s", log.Seq(), n, time.Since(t0).Round(time.Millisecond))
	}
	st.StartSnapshots(h.Source(s), snapSeq)
	return s, nil
}
