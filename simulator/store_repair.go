package simulator

// Repairing a data directory, and the errors of one a simulator does not
// start on: the public face of internal/datadir (check.go says what is
// damage, repair.go what a repair does).

import "github.com/mwallet/mwallet-go/simulator/internal/datadir"

// DataDirError is a data directory a simulator does not start on: a log or
// snapshot damaged in a way a crash does not leave, or a directory (or
// log) that is not a simulator's. Nothing in the directory was changed.
// Damage can be repaired (RepairDataDir, mwallet-sim repair DIR, serve
// -data-repair); a foreign directory cannot.
type DataDirError struct {
	Dir string
	// File is the damaged or foreign file ("log", "snapshot"), "" for the
	// directory itself.
	File string
	// Offset is where the damage starts in File (the start of the frame
	// that does not verify), -1 when the error is not about a position.
	Offset int64
	// Reason says what is wrong, for example "checksum mismatch".
	Reason string
	// Foreign is set when the directory or its log is not a simulator's.
	Foreign bool
	// Inputs is the number of whole inputs before Offset (what a repair
	// keeps).
	Inputs int64
	// Rest is the number of bytes from Offset to the end of File.
	Rest int64
	// Following is the number of frames that still verify after the
	// damage, one after another from offset FollowingAt (a repair drops
	// them with it: an input cannot run without the ones before it).
	Following   int
	FollowingAt int64
}

// Error says what is wrong and how to repair it.
func (e *DataDirError) Error() string { return (*datadir.Damage)(e).Error() }

// dataDirErr is err with a *datadir.Damage in it (the store's) as the
// public *DataDirError; other errors, and nil, as they are.
func dataDirErr(err error) error {
	if d, ok := err.(*datadir.Damage); ok {
		if d == nil {
			return nil
		}
		return (*DataDirError)(d)
	}
	return err
}

// DataDirRepair is what RepairDataDir did.
type DataDirRepair struct {
	// Damage is what was found in the log or the snapshot; nil when both
	// verified (a cut-short tail, which a start cuts itself, is not
	// damage).
	Damage *DataDirError
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
func (r *DataDirRepair) String() string {
	rep := datadir.Repair{KeptInputs: r.KeptInputs, KeptBytes: r.KeptBytes, DroppedBytes: r.DroppedBytes,
		DroppedFrames: r.DroppedFrames, SavedLog: r.SavedLog, SavedSnapshot: r.SavedSnapshot}
	if r.Damage != nil {
		rep.Damage = (*datadir.Damage)(r.Damage)
	}
	return rep.String()
}

// RepairDataDir repairs the data directory dir, which no simulator may be
// using (it takes its lock): a log damaged in a way a crash does not leave
// (see DataDirError) is copied aside (DIR/log.damaged-TIME) and cut before
// the frame that does not verify, so the inputs before it are kept and
// every byte from it on is dropped (an input cannot run without the ones
// before it); a cut-short tail is cut the same way; a snapshot that does
// not verify, or holds inputs the cut dropped, is moved aside
// (DIR/snapshot.damaged-TIME). A directory that is not a simulator's is
// refused and left alone. mwallet-sim repair DIR runs it; WithDataRepair
// runs it before a start.
func RepairDataDir(dir string) (*DataDirRepair, error) {
	rep, err := datadir.RepairDir(dir, datadir.CheckConfig[recordingConfig])
	if err != nil {
		return nil, dataDirErr(err)
	}
	return &DataDirRepair{Damage: (*DataDirError)(rep.Damage), KeptInputs: rep.KeptInputs, KeptBytes: rep.KeptBytes,
		DroppedBytes: rep.DroppedBytes, DroppedFrames: rep.DroppedFrames, SavedLog: rep.SavedLog, SavedSnapshot: rep.SavedSnapshot}, nil
}

// WithDataRepair repairs the data directory (RepairDataDir) before the
// simulator starts on it, and reports what it did on the diagnostics
// writer. mwallet-sim serve -data-repair.
func WithDataRepair() Option { return func(o *options) { o.dataRepair = true } }
