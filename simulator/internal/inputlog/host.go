package inputlog

import (
	"io"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Funcs is a Host made of the simulator's functions, filled once when it
// is built: its clock, the fault draws of a business request (a callback
// into the exchange's fault rules), the digest of the state at one instant
// and the writing of a captured state by name. The body of a request is
// kept by KeepBody, and a control request makes no draws.
type Funcs struct {
	// Clock is the simulator's clock reading.
	Clock func() time.Time
	// BusinessDraws makes the fault draws of a business request.
	BusinessDraws func(tx *kernel.Tx, r *http.Request) []bool
	// DigestAt is Host's Digest.
	DigestAt func(at func(tx *kernel.Tx)) (string, error)
	// StateWriter is Host's WriteState.
	StateWriter func(w io.Writer, c *kernel.Capture) error
}

// Now is f.Clock's reading.
func (f Funcs) Now() time.Time { return f.Clock() }

// Body keeps r's body in in (KeepBody).
func (f Funcs) Body(r *http.Request, in *recfile.Input) { KeepBody(r, in) }

// Draws are the fault draws of a business request (f.BusinessDraws); a
// control request (internal/gateway's PathOf) makes none.
func (f Funcs) Draws(tx *kernel.Tx, r *http.Request) []bool {
	if gateway.PathOf(r).Control {
		return nil
	}
	return f.BusinessDraws(tx, r)
}

// Digest is f.DigestAt(at).
func (f Funcs) Digest(at func(tx *kernel.Tx)) (string, error) { return f.DigestAt(at) }

// WriteState is f.StateWriter(w, c).
func (f Funcs) WriteState(w io.Writer, c *kernel.Capture) error { return f.StateWriter(w, c) }
