package simulator

// Opening a data directory (store.go): a new one, or a restart from its
// snapshot and log.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
)

// openDataDir builds the simulator of a data directory: a new one, or the
// one its log and snapshot describe. A directory that is not a
// simulator's, or whose log or snapshot is damaged in a way a crash does
// not leave, is refused with a *DataDirError before any byte in it
// changes (internal/datadir, check.go).
func openDataDir(o options) (s *Simulator, err error) {
	if _, err := datadir.CheckLayout(o.dataDir); err != nil {
		return nil, dataDirErr(err)
	}
	st, err := openStore(o.dataDir, o.diag, o.snapshotEvery)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	if o.dataRepair {
		if _, err := repairStore(st); err != nil {
			return nil, err
		}
	}
	// Again under the lock: what was checked may have changed meanwhile.
	hasLog, err := datadir.CheckLayout(o.dataDir)
	if err != nil {
		return nil, dataDirErr(err)
	}
	var c *datadir.LogCheck
	var sf *datadir.SnapshotFile
	if hasLog {
		if sf, err = st.LoadSnapshot(); err != nil {
			return nil, err
		}
		var marks []int64
		if sf != nil {
			marks = append(marks, sf.Meta.Offset)
		}
		if c, err = st.CheckLog(false, marks...); err != nil {
			return nil, err
		}
		if c.Damage != nil {
			return nil, (*DataDirError)(c.Damage)
		}
	}
	if c == nil || c.Hdr == nil {
		// A new directory: no log, or an empty one.
		if sf != nil {
			return nil, &DataDirError{Dir: o.dataDir, File: datadir.SnapshotName, Offset: -1, Reason: "a snapshot beside an empty log"}
		}
		st.Claim()
		if s, err = build(o); err != nil {
			return nil, err
		}
		if err = st.Create(s.wiring.rec.Header()); err != nil {
			return nil, err
		}
		s.wiring.rec.AttachStore(st)
		if o.recording != nil {
			if err = replayRecording(s, o.recording); err != nil {
				return nil, err
			}
		}
		st.StartSnapshots(snapshotSource{s.wiring.inputs}, 0)
		return s, nil
	}
	hlen := c.HeaderLen
	if o.recording != nil {
		return nil, fmt.Errorf("simulator: data directory %s already holds a log: replay a recording into an empty directory", o.dataDir)
	}
	cfg, err := headerConfig(c.Hdr)
	if err != nil {
		return nil, err
	}
	if err := cfg.sameFixture(configOf(o)); err != nil {
		return nil, fmt.Errorf("simulator: data directory %s: %w", o.dataDir, err)
	}
	if err := cfg.apply(&o); err != nil {
		return nil, err
	}
	t0 := time.Now()
	var from, snapSeq int64 = hlen, 0
	if sf != nil {
		ok, why, damage := sf.Verify(st, c)
		switch {
		case damage != nil:
			return nil, (*DataDirError)(damage)
		case ok:
			if s, err = build(o); err != nil {
				return nil, err
			}
			if derr := s.wiring.image.readState(bytes.NewReader(sf.Img)); derr != nil {
				st.Report("snapshot not used (%v): replaying the whole log", derr)
				s = nil
			} else {
				from, snapSeq = sf.Meta.Offset, sf.Meta.Seq
				s.wiring.rec.StartAt(sf.Meta.Seq)
			}
		default:
			st.Report("snapshot not used (%s): replaying the whole log", why)
		}
	}
	if s == nil {
		if s, err = build(o); err != nil {
			return nil, err
		}
	}
	tSnap := time.Since(t0)
	s.wiring.rec.NotInMemory() // the log is the recording
	p := newReplayer(s)
	end, _, n, err := st.Scan(from, c.End, func(in *recordedInput, off int64) error {
		if want := s.wiring.rec.Seq() + 1; in.Seq != want {
			return &DataDirError{Dir: o.dataDir, File: datadir.LogName, Offset: off, Reason: fmt.Sprintf("input %d where input %d should be", in.Seq, want)}
		}
		return p.Step(in)
	})
	if err = dataDirErr(err); err != nil {
		p.Abandon()
		var de *DataDirError
		if errors.As(err, &de) {
			// Described in full (what follows it, what a repair keeps).
			if full, cerr := st.CheckLog(true); cerr == nil && full.Damage != nil {
				return nil, (*DataDirError)(full.Damage)
			}
			return nil, de
		}
		return nil, fmt.Errorf("simulator: data directory %s: the log does not replay: %w", o.dataDir, err)
	}
	if end != c.End {
		p.Abandon()
		return nil, fmt.Errorf("simulator: data directory %s: the log changed while it was read", o.dataDir)
	}
	st.Claim()
	if c.Size > end {
		st.Report("%s: kept %d whole inputs up to offset %d; discarded %d bytes a crash left at its end (%s)",
			filepath.Join(o.dataDir, datadir.LogName), s.wiring.rec.Seq(), end, c.Size-end, c.Torn)
	}
	if err = st.OpenLog(end, c.Last, s.wiring.rec.Seq()); err != nil {
		p.Abandon()
		return nil, err
	}
	s.wiring.rec.AttachStore(st)
	p.Finish()
	if snapSeq > 0 {
		st.Report("restarted at input %d: snapshot of input %d read in %s, %d inputs replayed in %s",
			s.wiring.rec.Seq(), snapSeq, tSnap.Round(time.Millisecond), n, (time.Since(t0) - tSnap).Round(time.Millisecond))
	} else {
		st.Report("restarted at input %d: %d inputs replayed in %s", s.wiring.rec.Seq(), n, time.Since(t0).Round(time.Millisecond))
	}
	st.StartSnapshots(snapshotSource{s.wiring.inputs}, snapSeq)
	return s, nil
}

// sameFixture reports how a data directory's configuration differs from
// the options given now, in what shapes the fixture (naming the settings,
// never showing a credential).
func (c recordingConfig) sameFixture(o recordingConfig) error {
	var diff []string
	add := func(name string, same bool) {
		if !same {
			diff = append(diff, name)
		}
	}
	add("model", c.Model == o.Model)
	add("environment", c.Environment == o.Environment)
	add("client id", c.ClientID == o.ClientID)
	add("API key", c.APIKey == o.APIKey)
	add("signing key", c.SigningKey == o.SigningKey)
	add("webhook secret", c.WebhookSecret == o.WebhookSecret)
	add("merchant id", c.MerchantID == o.MerchantID)
	add("seed", c.Seed == o.Seed)
	ma, _ := json.Marshal(c.Members)
	mb, _ := json.Marshal(o.Members)
	add("members", bytes.Equal(ma, mb) && c.NoFixtureMember == o.NoFixtureMember)
	if len(diff) > 0 {
		return fmt.Errorf("its log was started with another %s; start with the options it was started with, or use another directory", strings.Join(diff, ", "))
	}
	return nil
}
