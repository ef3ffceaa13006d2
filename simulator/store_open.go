package simulator

// Opening a data directory (store.go): a new one, or a restart from its
// snapshot and log.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// openDataDir builds the simulator of a data directory: a new one, or the
// one its log and snapshot describe.
func openDataDir(o options) (s *Simulator, err error) {
	st, err := openStore(o.dataDir, o.diag, o.snapshotEvery)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st.close()
		}
	}()
	hdr, hlen, err := st.logHeader()
	if err != nil {
		return nil, err
	}
	if hdr == nil {
		// A new directory (or one whose creation never finished).
		if s, err = build(o); err != nil {
			return nil, err
		}
		if err = st.create(recordingHeader{Format: recordingFormat, Version: recordingVersion, Config: s.rec.cfg}); err != nil {
			return nil, err
		}
		s.attachStore(st)
		if o.recording != nil {
			if err = s.replayRecording(o.recording); err != nil {
				return nil, err
			}
		}
		st.startSnapshots(s)
		return s, nil
	}
	if o.recording != nil {
		return nil, fmt.Errorf("simulator: data directory %s already holds a log: replay a recording into an empty directory", o.dataDir)
	}
	if err := hdr.Config.sameFixture(configOf(o)); err != nil {
		return nil, fmt.Errorf("simulator: data directory %s: %w", o.dataDir, err)
	}
	if err := hdr.Config.apply(&o); err != nil {
		return nil, err
	}
	info, err := os.Stat(st.path)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	var from, snapSeq int64 = hlen, 0
	var p *replayer
	if meta, img, why := st.readSnapshot(info.Size()); meta != nil {
		if s, err = build(o); err != nil {
			return nil, err
		}
		if derr := s.decodeImage(img); derr != nil {
			st.report("snapshot not used (%v): replaying the whole log", derr)
			s = nil
		} else {
			from, snapSeq = meta.Offset, meta.Seq
			s.rec.seq = meta.Seq
		}
	} else if why != "" {
		st.report("snapshot not used (%s): replaying the whole log", why)
	}
	if s == nil {
		if s, err = build(o); err != nil {
			return nil, err
		}
	}
	tSnap := time.Since(t0)
	s.rec.memOff = true // the log is the recording
	p = newReplayer(s)
	end, last, n, err := st.scan(from, func(in *recordedInput, _ int64) error { return p.step(in) })
	if err != nil {
		p.abandon()
		return nil, fmt.Errorf("simulator: data directory %s: the log does not replay: %w", o.dataDir, err)
	}
	if last < 0 {
		last = -1
	}
	if info.Size() > end {
		st.report("%s: kept %d whole inputs up to offset %d; discarded %d bytes of a cut-short or corrupt tail",
			st.path, s.rec.seq, end, info.Size()-end)
	}
	if err = st.openLog(end, last, s.rec.seq); err != nil {
		p.abandon()
		return nil, err
	}
	s.attachStore(st)
	p.finish()
	if snapSeq > 0 {
		st.report("restarted at input %d: snapshot of input %d read in %s, %d inputs replayed in %s",
			s.rec.seq, snapSeq, tSnap.Round(time.Millisecond), n, (time.Since(t0) - tSnap).Round(time.Millisecond))
	} else {
		st.report("restarted at input %d: %d inputs replayed in %s", s.rec.seq, n, time.Since(t0).Round(time.Millisecond))
	}
	st.startSnapshots(s)
	return s, nil
}

// attachStore makes st the sink of the input log of s.
func (s *Simulator) attachStore(st *store) {
	s.rec.mu.Lock()
	s.rec.store = st
	s.rec.memOff = true
	s.rec.mem = memLog{}
	s.rec.mu.Unlock()
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
