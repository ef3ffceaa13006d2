package datadir

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// RepairDir repairs the data directory dir, which no simulator may be
// using (it takes its lock): a directory that does not exist, or is not a
// simulator's (CheckLayout), is refused and left alone; otherwise the
// store is opened (Open, with checkConfig deciding which log headers'
// configurations are read) and repaired (Store.Repair). The simulator's
// RepairDataDir reports the result in its public types.
func RepairDir(dir string, checkConfig func(json.RawMessage) error) (*Repair, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("simulator: data directory: %w", err)
	}
	if _, err := CheckLayout(dir); err != nil {
		return nil, err
	}
	st, err := Open(dir, io.Discard, 0, checkConfig)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.Repair()
}
