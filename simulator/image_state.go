package simulator

import (
	"io"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// stateImage writes and reads the state of one simulator by name (a
// snapshot's, kernel.WriteState) and hashes the legacy projection of it
// into the state digest (digest.go, image_legacy.go). It holds the
// *Simulator whose state it reads (root) and its kernel, whose state lock
// a capture or a read takes.
type stateImage struct {
	root *Simulator
	k    *kernel.Kernel
	// onCapture, set by tests, runs when a capture is read or encoded,
	// without the state lock.
	onCapture func()
}

// capture takes a capture of the state (kernel.Capture), holding the
// state lock for the capture only (and the input order, with input).
// The caller releases it.
func (im *stateImage) capture(input bool) *kernel.Capture { return im.captureWith(input, nil) }

// captureWith is capture, running at (when set) under the same hold of
// the lock: what must be read at the instant of the capture.
func (im *stateImage) captureWith(input bool, at func(tx *kernel.Tx)) *kernel.Capture {
	tx := im.k.BeginCapture(input)
	defer tx.End()
	if at != nil {
		at(tx)
	}
	return im.k.Capture(tx)
}

// captured takes a capture of the state and begins the transaction that
// reads it; its End releases the capture.
func (im *stateImage) captured() *kernel.Tx { return im.read(im.capture(false)) }

// read begins the one transaction that reads the capture c, whose End
// releases it: every read of the whole state (the digest, the ledger, the
// state dump, a recording's end line) reads through one, without the
// state lock.
func (im *stateImage) read(c *kernel.Capture) *kernel.Tx {
	tx := c.ReadOnce()
	if im.onCapture != nil {
		im.onCapture()
	}
	return tx
}

// writeState writes the state c captured by name (kernel.WriteState),
// without the state lock, releasing c: a snapshot's state.
func (im *stateImage) writeState(w io.Writer, c *kernel.Capture) error {
	tx := im.read(c)
	defer tx.End()
	return kernel.WriteState(w, tx)
}

// readState reads a state written by writeState into the simulator New
// just built from the options the state was written under, replacing
// every row of every table, and sets the clock to its reading. What the
// state holds outside the tables (the credentials, the start time, the
// asset catalogue, the scopes, the idempotency body key, the journal's
// capacity) is built by New from those options and never changes after
// (TestOutsideTheTablesIsBuiltByNew).
func (im *stateImage) readState(r io.Reader) error {
	tx := im.k.BeginSetup()
	defer tx.End()
	now, err := kernel.ReadState(r, tx)
	if err != nil {
		return err
	}
	c := im.root.st.clock
	c.mu.Lock()
	c.now = now
	c.mu.Unlock()
	return nil
}

// dump returns the image the state digest is taken over (legacyState) as
// text, one "path = value" line per value, for finding where two states
// differ.
func (im *stateImage) dump() ([]string, error) {
	tx := im.captured()
	defer tx.End()
	return legacyRules.Dump(im.legacy(tx), "Simulator.st")
}
