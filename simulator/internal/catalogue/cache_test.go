package catalogue

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestCellCache: the cache keeps nothing until Set, then the last answer
// set, in its kernel cell.
func TestCellCache(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	c := NewCellCache(k)
	type got struct {
		Key, Body string
		OK        bool
	}
	read := func(tx *kernel.Tx) got {
		key, body, ok := c.Get(tx)
		return got{key, body, ok}
	}
	tx := k.BeginSetup()
	defer tx.End()
	steps := []got{read(tx)}
	c.Set(tx, "", `{"assets":[]}`)
	steps = append(steps, read(tx))
	c.Set(tx, "ETH", `{"assets":["ETH"]}`)
	steps = append(steps, read(tx))
	want := []got{{}, {"", `{"assets":[]}`, true}, {"ETH", `{"assets":["ETH"]}`, true}}
	if diff := cmp.Diff(want, steps); diff != "" {
		t.Errorf("cache (-want +got):\n%s", diff)
	}
}
