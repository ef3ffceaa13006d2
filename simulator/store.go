package simulator

// The data directory (WithDataDir, mwallet-sim serve -data DIR) is
// internal/datadir: its files, the store that appends the input log and
// makes it durable, the snapshots, the checks before a start and the
// repair, over the frames of internal/datafile. What stays here is what
// needs the simulator: the simulators a directory opens into
// (store_open.go, datadir.Start's host), the public DataDirError, DataDirRepair and
// RepairDataDir (store_repair.go) and the configurations this build
// reads. The state the snapshots capture and closing the store with the
// log's last clock reading are the input log's (internal/inputlog's
// Log.Source and Log.CloseStore).

import (
	"encoding/json"
	"io"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
)

// openStore opens the data directory dir (datadir.Open) for the
// configurations this build reads.
func openStore(dir string, diag io.Writer, snapEvery int) (*datadir.Store, error) {
	return datadir.Open(dir, diag, snapEvery, checkConfig)
}

// checkConfig refuses a log header's configuration this build does not
// read.
func checkConfig(raw json.RawMessage) error {
	var c recordingConfig
	return json.Unmarshal(raw, &c)
}
