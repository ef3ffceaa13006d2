package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestRecipesCommandRunsEveryRecipe runs every error recipe as
// "mwallet-sim recipes" does, each on its own in-process simulator.
func TestRecipesCommandRunsEveryRecipe(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"recipes"}, &out, io.Discard, nil); err != nil {
		t.Fatalf("recipes: %v\n%s", err, out.String())
	}
	ok := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "ok   ") {
			ok++
		}
	}
	if got := ok; got != 51 {
		t.Errorf("%d recipes ok, want 51:\n%s", got, out.String())
	}
	if !strings.Contains(out.String(), "51 recipes ran as documented") || strings.Contains(out.String(), "FAIL") {
		t.Errorf("output:\n%s", out.String())
	}
}

// TestRecipesCommandAgainstARunningSimulator runs one recipe with -url and
// -v against a simulator started for the test, printing every step.
func TestRecipesCommandAgainstARunningSimulator(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	var out bytes.Buffer
	err := run(context.Background(), []string{"recipes", "-url", sim.URL(), "-run", "upstream_timeout", "-v"}, &out, io.Discard, nil)
	if err != nil {
		t.Fatalf("recipes: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"upstream_timeout: a card top-up whose issuer call times out",
		"api     POST   /v1/cards/applications -> 201 -",
		"control POST   /_sim/cards/topups/upstream_timeout -> 200 -",
		"-> 504 upstream_timeout (req_",
		"ok   upstream_timeout             504 upstream_timeout, modelled, 4 steps",
		"1 recipe ran as documented",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if sim.CheckLedger() != nil {
		t.Error(sim.CheckLedger())
	}

	// -list reads GET /_sim/recipes of that simulator.
	out.Reset()
	if err := run(context.Background(), []string{"recipes", "-url", sim.URL(), "-list"}, &out, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 51 || !strings.HasPrefix(lines[0], "address_not_allowed          400  injected") {
		t.Errorf("-list printed %d lines:\n%s", len(lines), out.String())
	}
}

func TestRecipesCommandArguments(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"recipes", "-url", "http://127.0.0.1:1"}, "-url runs one recipe"},
		{[]string{"recipes", "-url", "http://127.0.0.1:1", "-run", "a,b"}, "-url runs one recipe"},
		{[]string{"recipes", "-run", "no_such_code"}, `no recipe for "no_such_code"`},
		{[]string{"recipes", "-url", "::", "-run", "x"}, "-url"},
		{[]string{"recipes", "extra"}, "unexpected arguments"},
	} {
		err := run(context.Background(), tt.args, io.Discard, io.Discard, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want an error containing %q", tt.args, err, tt.want)
		}
	}
}
