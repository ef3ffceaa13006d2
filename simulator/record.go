package simulator

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// The input log. Everything that can change a simulator's state is one
// input, logged in the order it ran, before it runs (write-ahead), so that
// running the same inputs in the same order on a simulator built with the
// same configuration reaches the same state: same ids (the generators are
// seeded), same clock (every input carries the clock reading it ran at),
// same random choices (fault draws come from the seeded generators, in the
// same order), same webhook outcomes (attempts are logged with the
// receiver's answer and never repeated by a replay).
//
// The inputs, by where they enter (each point every input of its kind passes
// through, so routes and methods added later are logged without more work):
//
//   - http: a business request (every /v1 path, known or not), logged by the
//     exchange when it takes the state lock (internal/exchange's
//     Pipeline.Begin); a control request that
//     is not a GET or HEAD and no call, logged by the control runner. Control reads change
//     nothing and are not logged (their request ids come from a generator
//     of their own, controlID).
//   - resume: a request that waited in a delay fault (with the state lock
//     released, so other inputs ran meanwhile) taking the lock again; the
//     log keeps the interleaving.
//   - call: a method of the Go control API, or a control route logged as
//     the call of its Go method (the control runner, control.go).
//   - advance: a clock advance that runs timers (Clock.Advance, the
//     standalone server's wall clock). An advance that runs nothing is not
//     logged: the next input's clock reading carries it.
//   - flush_due, attempt, flush_abort: a webhook flush, in the pieces that
//     take the state lock: picking the due deliveries, the receiver's answer
//     to one attempt, giving up on the rest when the flush is cancelled.
//
// Ordering: every input that changes state begins with the kernel's
// BeginInput (the input order, then the state lock) and is logged before
// the order is released (Tx.Ordered); reads begin with Begin (the state
// lock only). The log order is therefore the order in which inputs took
// the state lock, even for a Go call (which holds the input order for its
// whole run, BeginOrdered, so that nothing that changes state runs between
// its log record and its execution).

// DefaultRecordingLimit bounds the in-memory recording of a simulator
// without a data directory: about the bytes of the requests kept (bodies,
// headers, arguments). See WithRecordingLimit.
const DefaultRecordingLimit = 128 << 20

// recordedInput is one input of the log, in its wire format
// (internal/recfile): an http request is recorded with at most
// maxBodyBytes+1 bytes of its body.
type recordedInput = recfile.Input

// recordingConfig is what a simulator was built with: replaying a log on a
// simulator built with the same configuration reaches the same state.
// TestRecordingConfigCoversOptions fails when an option that shapes the
// state is missing here.
type recordingConfig struct {
	Model           Model        `json:"model"`
	Environment     Environment  `json:"environment"`
	ClientID        string       `json:"client_id"`
	APIKey          string       `json:"api_key"`
	SigningKey      string       `json:"signing_key"`
	WebhookSecret   string       `json:"webhook_secret"`
	MerchantID      string       `json:"merchant_id"`
	Start           time.Time    `json:"start"`
	Seed            int64        `json:"seed"`
	Members         []MemberSeed `json:"members,omitempty"`
	NoFixtureMember bool         `json:"no_fixture_member,omitempty"`
	// BodyKey keys the idempotency body digests (internal/gateway's State.BodyKey). It
	// is drawn at random when a recording starts and kept with it, so a
	// replay stores the same digests.
	BodyKey string `json:"body_key"`
	// StoreCaps are the caps of the window stores the log began under
	// (absent from logs of builds that had fixed caps: legacyCaps); a
	// change is an input of its own (recfile.OpCaps).
	StoreCaps storeCaps `json:"store_caps,omitzero"`
}

func configOf(o options) recordingConfig {
	return recordingConfig{
		Model: o.model, Environment: o.env,
		ClientID: o.creds.ClientID, APIKey: o.creds.APIKey, SigningKey: o.creds.SigningKey,
		WebhookSecret: o.creds.WebhookSecret, MerchantID: o.creds.MerchantID,
		Start: o.start.UTC(), Seed: o.seed,
		Members: o.members, NoFixtureMember: o.noMember,
		StoreCaps: o.startCaps(),
	}
}

// apply sets the options a replay of c is built with.
func (c recordingConfig) apply(o *options) error {
	o.model, o.env = c.Model, c.Environment
	o.creds = Credentials{ClientID: c.ClientID, APIKey: c.APIKey, SigningKey: c.SigningKey, WebhookSecret: c.WebhookSecret, MerchantID: c.MerchantID}
	o.start, o.seed = c.Start, c.Seed
	o.members, o.noMember = c.Members, c.NoFixtureMember
	// A log whose header holds no caps began under the caps of the builds
	// that wrote none. The caps asked for (o.caps) hold once it is replayed.
	caps := legacyCaps
	if c.StoreCaps != (storeCaps{}) {
		caps = c.StoreCaps
	}
	o.logCaps = &caps
	key, err := hex.DecodeString(c.BodyKey)
	if err != nil || len(key) != 32 {
		return fmt.Errorf("recording: body_key: want 64 hex digits")
	}
	o.bodyKey = (*[32]byte)(key)
	return nil
}

// recordingHeader is the first line of a recording and the first record of
// a data directory's log.
type recordingHeader = recfile.Header[recordingConfig]

// recorder keeps the input log of one simulator, built with its
// recordingConfig: in memory, or in a data directory's store
// (inputlog.Recorder).
type recorder = inputlog.Recorder[recordingConfig]

// controlRules is the version of the control API's argument rules this
// build runs control inputs under (inputlog.ControlRules).
const controlRules = inputlog.ControlRules

// allOrNothingRules is the version of the rules under which every input is
// all or nothing (inputlog.AllOrNothingRules). An input without it (of an
// earlier build) is replayed as it ran: the writes of a refusal stand.
const allOrNothingRules = inputlog.AllOrNothingRules

func newRecorder(cfg recordingConfig, seed int64, limit int64, rules int) *recorder {
	return inputlog.NewRecorder(cfg, seed, limit, rules)
}

// errRecordingLimit is the error of Recording once the in-memory recording
// has dropped inputs.
var errRecordingLimit = errors.New("simulator: the in-memory recording reached its limit (WithRecordingLimit) and stopped; use a data directory (WithDataDir, mwallet-sim -data) to record without one")

// inputLog is where inputs enter the input log and where the log is read
// back (Recording) and closed: it logs a request, a Go control call or
// another input in its place in the input order (the kernel's), and takes
// the log's point with the state digest. It holds the kernel, the state
// (read through st: its clock), the recorder, the state image (for the
// digest of a recording's end) and the fault draws of a request, a
// callback into the exchange's fault rules (internal/exchange's
// Pipeline.Draws).
type inputLog struct {
	k     *kernel.Kernel
	st    *simState
	rec   *recorder
	image *stateImage
	draws func(tx *kernel.Tx, r *http.Request) []bool
	// timers run what an advance of the clock brings due.
	timers *outcomes.Timers
	// host is the host's clock the simulator's follows (WithWallClock), or
	// nil.
	host func() time.Time
}

// logRequest logs r as an http input. The caller holds the input order and the state lock.
func (l *inputLog) logRequest(tx *kernel.Tx, r *http.Request) (*recordedInput, int64, error) {
	in := &recordedInput{
		Op: recfile.OpHTTP, Method: r.Method, Target: r.RequestURI, Proto: r.Proto,
		Host: r.Host, Remote: r.RemoteAddr, TLS: r.TLS != nil, Header: r.Header,
	}
	if _, ok := r.Header[ControlTokenHeader]; ok {
		// The control token guards the network, not the state: it is
		// never written to the recording.
		in.Header = r.Header.Clone()
		in.Header.Del(ControlTokenHeader)
	}
	if in.Target == "" {
		in.Target = r.URL.RequestURI()
	}
	if c := captureOf(r); c != nil {
		c.body.ReadAhead(c.src, maxCapture)
		in.Body, in.BodyErr = c.body.Bytes(), c.body.Failed()
		c.in = in
		if c.replay != nil && c.replay.Want != nil {
			in.Draws = c.replay.Want.Draws
		}
	}
	if !pathOf(r).Control && in.Draws == nil {
		in.Draws = l.draws(tx, r)
	}
	end, err := l.admit(tx, in)
	if err != nil {
		return nil, 0, err
	}
	return in, end, nil
}

// lockInput begins an input's transaction and logs the input; on error no
// lock is held and the input must not run (the order is released anyway).
func (l *inputLog) lockInput(in *recordedInput) (*kernel.Tx, int64, error) {
	tx := l.k.BeginInput()
	end, err := l.admit(tx, in)
	tx.Ordered()
	if err != nil {
		tx.End()
		return nil, 0, err
	}
	return tx, end, nil
}

// notPersisted is the refusal of an input the data directory could not
// take: nothing was executed (inputlog.NotPersisted).
func notPersisted(err error) *apiError { return inputlog.NotPersisted(err) }

// notDurable is the answer of a request that ran but whose log record did
// not reach stable storage (inputlog.NotDurable).
func notDurable(err error) *apiError { return inputlog.NotDurable(err) }

// The Go control API: each state-changing method of the control types is
// one logged input, a call: its name ("Cards.Ship") and its arguments (JSON
// values; each must survive a JSON round trip, which
// TestControlMethodsRecorded checks for every method), logged by the
// control runner (invoke, control.go). When the data directory cannot take
// the input it does not run, and every method returns the error (a
// *persistError, which the control API answers service_unavailable): none
// is refused in silence.

// goCall logs a Go control call and runs it, holding the input order throughout
// (fn begins its own transaction).
func (l *inputLog) goCall(name string, args []any, fn func() error) error {
	return l.routeCall(name, "", args, fn)
}

// routeCall logs a call of the Go control method name entered through the
// control route route ("" for the Go method itself) and runs fn as goCall
// does.
func (l *inputLog) routeCall(name, route string, args []any, fn func() error) error {
	in := &recordedInput{Op: recfile.OpCall, Call: name, Route: route}
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return fmt.Errorf("simulator: %s: argument %d: %w", name, i, err)
		}
		in.Args = append(in.Args, b)
	}
	release := l.k.BeginOrdered()
	tx := l.k.Begin()
	end, err := l.admit(tx, in)
	tx.End()
	if err != nil {
		release()
		return &persistError{Call: name, Err: err}
	}
	ferr := fn()
	release()
	if err := l.rec.Durable(end); err != nil {
		return &persistError{Call: name, Ran: true, Err: err}
	}
	return ferr
}

// persistError is a Go control call the data directory could not take
// or could not make durable (inputlog.CallError).
type persistError = inputlog.CallError
