package simulator

import (
	"bytes"
	"fmt"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/datadir"
	"github.com/mwallet/mwallet-go/simulator/internal/startup"
)

// Test hooks for the external test package (compiled only with the tests).

// Routes lists the business endpoints as "METHOD pattern", plus the token
// exchange, in registration order.
func Routes(s *Simulator) []string {
	tx := s.k.Begin()
	defer tx.End()
	out := []string{"POST /v1/connect/token"}
	for _, e := range s.wiring.gw.router.Endpoints() {
		out = append(out, e.Method+" "+e.Pattern)
	}
	return out
}

// SetStoreCaps sets the caps of the nonce, idempotency and step-up
// challenge stores (0 leaves one as it is), as a logged input.
func SetStoreCaps(s *Simulator, nonces, idem, challenges int) {
	tx := s.k.Begin()
	c := s.st.gw.Caps.Get(tx)
	tx.End()
	if nonces > 0 {
		c.Nonces = nonces
	}
	if idem > 0 {
		c.IdempotencyKeys = idem
	}
	if challenges > 0 {
		c.StepUpChallenges = challenges
	}
	if err := s.wiring.inputs.SetCaps(c); err != nil {
		panic(err)
	}
}

// SetJournalCapacity replaces the request journal with an empty one keeping
// the newest n requests.
func SetJournalCapacity(s *Simulator, n int) {
	tx := s.k.BeginSetup()
	defer tx.End()
	s.st.gw.Journal.Reset(tx)
	s.st.gw.Journal.SetCapacity(n)
}

// Test-only views of the simulator's internals, for the external tests.

// EndpointInfo is one business endpoint of the registry: a catch-all
// pattern is listed once per contract path it serves.
type EndpointInfo struct {
	Method     string
	Path       string
	Pattern    string // the registered ServeMux pattern serving Path
	Scope      string
	Member     bool
	Idempotent bool
}

// Key is "METHOD /path".
func (e EndpointInfo) Key() string { return e.Method + " " + e.Path }

// Endpoints lists the registered business endpoints in registration order.
func Endpoints(s *Simulator) []EndpointInfo {
	var out []EndpointInfo
	for _, e := range s.wiring.gw.router.Endpoints() {
		paths := e.Routes
		if len(paths) == 0 {
			paths = []string{e.Pattern}
		}
		for _, p := range paths {
			out = append(out, EndpointInfo{Method: e.Method, Path: p, Pattern: e.Pattern, Scope: e.Scope, Member: e.Member, Idempotent: e.Idempotent})
		}
	}
	return out
}

// RecordingPrefix returns the first n inputs of r (ending at the clock of
// the last of them).
func RecordingPrefix(r *Recording, n int) *Recording {
	p := &Recording{f: recfile.File[recordingConfig]{Header: r.f.Header, Inputs: r.f.Inputs[:n]}}
	if n > 0 {
		p.f.End = r.f.Inputs[n-1].Clock
	}
	return p
}

// RecordingInputs describes the inputs of r, one line each.
func RecordingInputs(r *Recording) []string {
	var out []string
	for _, in := range r.f.Inputs {
		out = append(out, fmt.Sprintf("%d %s %s", in.Seq, in.Clock.Format(time.RFC3339Nano), replay.Describe(in)))
	}
	return out
}

// StateDump is the whole state as "path = value" lines (the image as text).
func StateDump(s *Simulator) ([]string, error) { return s.wiring.image.dump() }

// NamedState is the state by name a snapshot of s would hold now
// (kernel.WriteState).
func NamedState(s *Simulator) ([]byte, error) { return namedState(s) }

func namedState(s *Simulator) ([]byte, error) {
	var b bytes.Buffer
	err := s.wiring.image.writeState(&b, s.wiring.image.capture(false))
	return b.Bytes(), err
}

// FailingLog makes the data directory of s fail its writes with writeErr
// and its fsyncs with syncErr (nil: as the disk does), until the returned
// function is called.
func FailingLog(s *Simulator, writeErr, syncErr error) (restore func()) {
	st := s.wiring.rec.Store()
	f := &failingLog{write: writeErr, sync: syncErr}
	f.LogFile = st.SetLog(f)
	return func() { st.SetLog(f.LogFile) }
}

type failingLog struct {
	datadir.LogFile
	write, sync error
}

func (f *failingLog) Write(p []byte) (int, error) {
	if f.write != nil {
		// Half the frame reaches the file, as a full disk may leave it.
		n, _ := f.LogFile.Write(p[:len(p)/2])
		return n, f.write
	}
	return f.LogFile.Write(p)
}

func (f *failingLog) Sync() error {
	if f.sync != nil {
		return f.sync
	}
	return f.LogFile.Sync()
}

// RecordedInputs returns how many inputs s has logged and a description of
// the last n, leaving out the base_url inputs (the address, logged before
// the first input that follows a change).
func RecordedInputs(s *Simulator, n int) (int64, []string) {
	var all []string
	mem, err := s.wiring.rec.MemInputs()
	if err != nil {
		panic(err)
	}
	for _, in := range mem {
		if in.Op == recfile.OpBase {
			continue
		}
		d := in.Op + " " + replay.Describe(in)
		if in.Op == recfile.OpHTTP {
			d = "http " + in.Method + " " + in.Target
		}
		all = append(all, d)
	}
	return int64(len(all)), all[max(0, len(all)-n):]
}

// RecordedDraws returns the seq and draws of every input of r that drew.
func RecordedDraws(r *Recording) map[int64][]bool {
	out := map[int64][]bool{}
	for _, in := range r.f.Inputs {
		if len(in.Draws) > 0 {
			out[in.Seq] = in.Draws
		}
	}
	return out
}

// ScopeCatalogue lists the scopes the simulator knows, sorted.
func ScopeCatalogue(s *Simulator) []string {
	out := make([]string, 0, len(s.st.gw.ScopeCatalog))
	for sc := range s.st.gw.ScopeCatalog {
		out = append(out, sc)
	}
	sort.Strings(out)
	return out
}

// ContractScopes and ServiceScopes are the two halves of the catalogue.
func ContractScopes() []string { return append([]string(nil), startup.ContractScopes...) }

// ServiceScopes are the scopes the simulator adds where the contract names
// none.
func ServiceScopes() []string { return append([]string(nil), startup.ServiceScopes...) }

// InternalCounts counts the objects a business request may create that the
// StateSnapshot does not show (payees, KYC tickets and bindings, secure
// sessions, PIN calls, VP applications, stored remittance keys, card
// transactions).
func InternalCounts(s *Simulator) string {
	tx := s.k.Begin()
	defer tx.End()
	cardSessions, pins, cardTxs := s.st.cards.Counts(tx)
	kycSessions, bindings, profiles := s.st.kyc.Sizes(tx)
	rc := s.st.remit.Counts(tx)
	return fmt.Sprintf("payees=%d kyc_sessions=%d bindings=%d profiles=%d card_sessions=%d pin_calls=%d vp=%d remit_keys=%d txs=%d",
		rc.Payees, kycSessions, bindings, profiles, cardSessions, pins,
		rc.VPApplications, rc.IdempotencyKeys, cardTxs)
}

// FlipDraws inverts the draws of input seq of r.
func FlipDraws(r *Recording, seq int64) {
	for i, d := range r.f.Inputs[seq-1].Draws {
		r.f.Inputs[seq-1].Draws[i] = !d
	}
}

// ForgetDigest drops the state digest r was taken with, so a replay of an
// edited r is not checked against it.
func ForgetDigest(r *Recording) { r.f.Digest = "" }

// OutsideTheTables is the state of s held outside the kernel's tables and
// cells (image.Outside), one "path = value" line each, without the clock
// reading, which a snapshot keeps by name.
func OutsideTheTables(s *Simulator) []string {
	tx := s.k.Begin()
	defer tx.End()
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(image.Outside(&s.st, legacyRules.Skip)()), "\n"), "\n") {
		if !strings.HasPrefix(l, "st.clock.now = ") {
			out = append(out, l)
		}
	}
	return out
}
