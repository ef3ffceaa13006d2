package simulator

// Opening a data directory (store.go): a new one, or a restart from its
// snapshot and log (internal/datadir, start.go), into a simulator built
// here (dataDirHost).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
)

// openDataDir builds the simulator of a data directory: a new one, or the
// one its log and snapshot describe (datadir.Start). A directory that is
// not a simulator's, or whose log or snapshot is damaged in a way a crash
// does not leave, is refused with a *DataDirError before any byte in it
// changes (internal/datadir, check.go).
func openDataDir(o options) (*Simulator, error) {
	s, err := datadir.Start(datadir.Options{
		Dir: o.dataDir, Diag: o.diag, SnapshotEvery: o.snapshotEvery,
		Repair: o.dataRepair, Recording: o.recording != nil,
	}, dataDirHost{&o})
	if err != nil {
		return nil, dataDirErr(err)
	}
	return s, nil
}

// dataDirHost builds the simulators of a data directory from the options
// o, which the configuration of the directory's log replaces
// (datadir.Host).
type dataDirHost struct{ o *options }

func (h dataDirHost) CheckConfig(raw json.RawMessage) error { return checkConfig(raw) }

// Configure refuses a log started with another fixture than the options'
// (sameFixture) and builds from the log's configuration.
func (h dataDirHost) Configure(raw json.RawMessage) error {
	var cfg recordingConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return err
	}
	if err := cfg.sameFixture(configOf(*h.o)); err != nil {
		return fmt.Errorf("simulator: data directory %s: %w", h.o.dataDir, err)
	}
	return cfg.apply(h.o)
}

func (h dataDirHost) Build() (*Simulator, error) { return build(*h.o) }
func (h dataDirHost) Header(s *Simulator) any    { return s.wiring.rec.Header() }
func (h dataDirHost) ReadState(s *Simulator, r io.Reader) error {
	return s.wiring.image.readState(r)
}
func (h dataDirHost) Log(s *Simulator) datadir.Log           { return s.wiring.rec }
func (h dataDirHost) Replayer(s *Simulator) datadir.Replayer { return newReplayer(s) }
func (h dataDirHost) Replay(s *Simulator) error              { return replayRecording(s, h.o.recording) }
func (h dataDirHost) Source(s *Simulator) datadir.Source {
	return s.wiring.inputs.Source()
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
