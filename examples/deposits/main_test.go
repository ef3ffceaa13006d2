package main

import (
	"testing"

	"github.com/mwallet/mwallet-go/examples/internal/extest"
)

func TestDepositsWithSimulator(t *testing.T) {
	t.Parallel()
	out := extest.Run(t, run)
	extest.Contains(t, out,
		"deposit:  dep_TRON:0x9f2c5be1:0 credited 250.500000 USDT (HTTP 201, replayed: false)",
		"again:    dep_TRON:0x9f2c5be1:0 (HTTP 200, replayed: true)",
		"read:     dep_TRON:0x9f2c5be1:0 250.500000 USDT for member member-1 on TRON",
		"balance:  1250.500000 USDT available; ledger balanced")
}

func TestDepositsRealEnvironment(t *testing.T) {
	sim, base := extest.RealEnv(t)
	out := extest.Run(t, run, append(base, "-amount", "1", "-txid", "0xabc")...)
	extest.Contains(t, out, "credited 1.000000 USDT (HTTP 201", "replayed: true")
	extest.NoSecrets(t, sim, out)
	if err := sim.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
