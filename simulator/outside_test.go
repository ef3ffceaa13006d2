package simulator_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestOutsideTheTablesIsBuiltByNew: what the state holds outside the
// kernel's tables and cells (the credentials, the start time, the asset
// catalogue, the scopes, the idempotency body key, the journal's
// capacity, the values of the legacy image), the clock reading aside, is
// what New builds from the options and no input changes: after every kind
// of input it is as in a simulator just built with the same options. So a
// snapshot, which holds the tables and cells by name and the clock
// reading, holds the whole state: the simulator a restart builds from the
// directory's options has the rest.
func TestOutsideTheTablesIsBuiltByNew(t *testing.T) {
	t.Parallel()
	sim, err := simulator.New()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	scenario(t, newEdgeOn(t, sim))
	fresh, err := simulator.New()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	got, want := simulator.OutsideTheTables(sim), simulator.OutsideTheTables(fresh)
	if len(want) < 100 {
		t.Fatalf("the outside image has %d lines: it reads nothing", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outside the tables after every kind of input (-built by New +after):\n%s", diff)
	}
}
