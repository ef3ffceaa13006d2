package simulator

// The data directory (WithDataDir, mwallet-sim serve -data DIR) is
// internal/datadir: its files, the store that appends the input log and
// makes it durable, the snapshots, the checks before a start and the
// repair, over the frames of internal/datafile. What stays here is what
// needs the simulator: opening a directory, a new one or a restart from its
// snapshot and log (datadir.Start), into a simulator built here
// (dataDirHost); the configurations this build reads (datadir.CheckConfig
// of recordingConfig); the public DataDirError, DataDirRepair and
// RepairDataDir (store_repair.go).
// The state the snapshots capture and closing the store with the log's
// last clock reading are the input log's (internal/inputlog's Log.Source
// and Log.CloseStore).

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
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

func (h dataDirHost) CheckConfig(raw json.RawMessage) error {
	return datadir.CheckConfig[recordingConfig](raw)
}

// Configure refuses a log started with another fixture than the options'
// (datadir.Fixture's Same) and builds from the log's configuration.
func (h dataDirHost) Configure(raw json.RawMessage) error {
	var cfg recordingConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return err
	}
	if err := cfg.fixture().Same(configOf(*h.o).fixture()); err != nil {
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
func (h dataDirHost) Replayer(s *Simulator) datadir.Replayer { return replay.New(replayTarget(s)) }
func (h dataDirHost) Replay(s *Simulator) error              { return replayRecording(s, h.o.recording) }
func (h dataDirHost) Source(s *Simulator) datadir.Source {
	return s.wiring.inputs.Source()
}

// fixture is what of c shapes the fixture (datadir.Fixture).
func (c recordingConfig) fixture() datadir.Fixture {
	return datadir.Fixture{Model: string(c.Model), Environment: string(c.Environment), ClientID: c.ClientID,
		APIKey: c.APIKey, SigningKey: c.SigningKey, WebhookSecret: c.WebhookSecret, MerchantID: c.MerchantID,
		Seed: c.Seed, Members: c.Members, NoFixtureMember: c.NoFixtureMember}
}
