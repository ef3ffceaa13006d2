package inputlog

import (
	"io"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// DriverFuncs is a Driver made of the simulator's handler, functions and
// fields: a replayed request is served by Handler once its body carries
// the replay's hooks (ReplayBody).
type DriverFuncs struct {
	// Handler serves a recorded request.
	Handler http.Handler
	// CallFunc is Driver's Call.
	CallFunc func(in *recfile.Input) error
	// Due, AttemptFunc and Abort are Driver's FlushDue, Attempt and
	// FlushAbort.
	Due         func() error
	AttemptFunc func(in *recfile.Input) error
	Abort       func(ids []string) error
	// Flight and KickFunc are Driver's InFlight and Kick.
	Flight   func(tx *kernel.Tx) []string
	KickFunc func(tx *kernel.Tx)
	// Base is where SetBase puts the address the simulator answers with.
	Base *string
	// DigestOf and LegacyDigestOf are the digests of the state tx reads:
	// the current one and the one recordings of version 1 carry.
	DigestOf, LegacyDigestOf func(tx *kernel.Tx) (string, error)
}

// Serve puts the replay's hooks h on req's body (ReplayBody) and serves
// it with d.Handler.
func (d DriverFuncs) Serve(h *replay.Hooks, req *http.Request, body io.ReadCloser) {
	ReplayBody(req, body, h)
	d.Handler.ServeHTTP(h.W, req)
}

// Call is d.CallFunc(in).
func (d DriverFuncs) Call(in *recfile.Input) error { return d.CallFunc(in) }

// FlushDue is d.Due().
func (d DriverFuncs) FlushDue() error { return d.Due() }

// Attempt is d.AttemptFunc(in).
func (d DriverFuncs) Attempt(in *recfile.Input) error { return d.AttemptFunc(in) }

// FlushAbort is d.Abort(ids).
func (d DriverFuncs) FlushAbort(ids []string) error { return d.Abort(ids) }

// InFlight is d.Flight(tx).
func (d DriverFuncs) InFlight(tx *kernel.Tx) []string { return d.Flight(tx) }

// Kick is d.KickFunc(tx).
func (d DriverFuncs) Kick(tx *kernel.Tx) { d.KickFunc(tx) }

// SetBase sets *d.Base to url.
func (d DriverFuncs) SetBase(url string) { *d.Base = url }

// Digest is d.LegacyDigestOf(tx) when legacy is set, d.DigestOf(tx)
// otherwise.
func (d DriverFuncs) Digest(tx *kernel.Tx, legacy bool) (string, error) {
	if legacy {
		return d.LegacyDigestOf(tx)
	}
	return d.DigestOf(tx)
}
