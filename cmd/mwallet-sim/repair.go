package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mwallet/mwallet-go/simulator"
)

func init() {
	commands["repair"] = command{summary: "repair a damaged -data directory: set the damaged log aside and cut it",
		synopsis: "mwallet-sim repair DIR", run: repair}
}

const repairDescription = `Repairs the data directory DIR of a stopped simulator whose start was refused
for damage a crash does not leave (a checksum mismatch, a bad frame length,
frames that still verify after a bad one, a snapshot that does not verify).
The log as it was is copied to DIR/log.damaged-TIME, then cut before the frame
that does not verify: the inputs before it are kept, every byte from it on is
dropped (an input cannot run without the ones before it). A snapshot that does
not verify, or holds dropped inputs, is moved to DIR/snapshot.damaged-TIME.
It prints what it found, kept and dropped. A directory that is not a
simulator's is left alone. "mwallet-sim serve -data DIR -data-repair" repairs
before it starts.`

// repair runs "mwallet-sim repair DIR".
func repair(_ context.Context, args []string, stdout, stderr io.Writer, _ func(string)) error {
	fs := newFlagSet("repair", commands["repair"].synopsis, repairDescription, stderr)
	if err := fs.Parse(args); err != nil {
		return usageErr(err)
	}
	if fs.NArg() != 1 {
		return usageErr(errors.New("repair takes one argument: the data directory"))
	}
	rep, err := simulator.RepairDataDir(fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mwallet-sim: repair %s:\n%s\n", fs.Arg(0), rep)
	return nil
}
