package simulator

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/startup"
)

// Option configures a Simulator.
type Option func(*options)

type options struct {
	model    Model
	env      Environment
	creds    Credentials
	start    time.Time
	seed     int64
	baseURL  string
	members  []MemberSeed
	noMember bool
	tls      bool // serve HTTPS (New only)
	http2    bool // offer HTTP/2 by ALPN (New only; implies tls)

	// Persistence and replay (record.go, replay.go, store_open.go).
	dataDir        string
	dataRepair     bool
	snapshotEvery  int
	diag           io.Writer
	recording      *Recording
	recordingLimit int64
	bodyKey        *[32]byte // set from a recording's configuration

	// caps are the caps of the window stores asked for (zero: the
	// default); logCaps, when set, the caps the log replayed began with
	// (its header's), in force until the replay is done.
	caps    storeCaps
	logCaps *storeCaps

	// hostClock is the host's clock the simulator's follows (WithWallClock);
	// nil on a clock that moves only when told to.
	hostClock func() time.Time

	// The control API's guard (control_guard.go).
	controlToken string
	allowedHosts []string
}

func defaultOptions() options {
	return options{
		model: PlatformHosted,
		env:   Sandbox,
		creds: Credentials{
			ClientID:      DefaultClientID,
			APIKey:        DefaultAPIKey,
			SigningKey:    DefaultSigningKey,
			WebhookSecret: DefaultWebhookSecret,
			MerchantID:    DefaultMerchantID,
		},
		start:          DefaultStart,
		seed:           1,
		snapshotEvery:  DefaultSnapshotEvery,
		recordingLimit: DefaultRecordingLimit,
		diag:           os.Stderr,
	}
}

// MemberSeed describes a member to create at start-up.
type MemberSeed struct {
	// ExternalID is the merchant's external_member_id.
	ExternalID string
	// KYCLevel is the member's verified level (0, 1 or 2).
	KYCLevel int
	// Balances maps an asset code to a decimal string credited as available.
	Balances map[string]string
	// Status is the member's status (default active): active, suspended,
	// blocklisted, banned or frozen.
	Status string
	// PlatformDirect marks a member the platform serves itself; its
	// operations emit no events.
	PlatformDirect bool
	// MerchantID, when set to another merchant's id, makes the member
	// foreign: x-on-behalf-of naming it gets member_not_found.
	MerchantID string
}

// WithModel sets the merchant's custody model (default PlatformHosted).
func WithModel(m Model) Option { return func(o *options) { o.model = m } }

// WithEnvironment sets the environment (default Sandbox).
func WithEnvironment(e Environment) Option { return func(o *options) { o.env = e } }

// WithCredentials overrides the fixture credentials; empty fields keep their
// defaults.
func WithCredentials(c Credentials) Option {
	return func(o *options) {
		if c.ClientID != "" {
			o.creds.ClientID = c.ClientID
		}
		if c.APIKey != "" {
			o.creds.APIKey = c.APIKey
		}
		if c.SigningKey != "" {
			o.creds.SigningKey = c.SigningKey
		}
		if c.WebhookSecret != "" {
			o.creds.WebhookSecret = c.WebhookSecret
		}
		if c.MerchantID != "" {
			o.creds.MerchantID = c.MerchantID
		}
	}
}

// WithStart sets the clock's start time (default DefaultStart).
func WithStart(t time.Time) Option { return func(o *options) { o.start = t } }

// WithMaxNonces sets the cap of the nonce store: how many consumed nonces
// the simulator keeps refusing at once (each for the contract's five
// minutes; default DefaultMaxNonces). When the store is full a signed
// write is refused service_unavailable, before anything executes, with the
// seconds until the oldest nonce leaves the window; the message names this
// option. It is configuration, not state: a simulator started with another
// cap on a data directory or a recording uses the new one from then on
// (the log records the change, so a replay refuses what was refused). The
// guide (Bounded stores) says how the default was sized. n <= 0 keeps the
// default.
func WithMaxNonces(n int) Option { return func(o *options) { o.caps.Nonces = n } }

// WithMaxIdempotencyKeys sets the cap of the idempotency store: how many
// idempotency keys, each with its stored answer, the simulator keeps at
// once (each for the contract's 24 hours; default
// DefaultMaxIdempotencyKeys). When it is full a keyed write with a new key
// is refused service_unavailable before its handler runs (known keys still
// replay); the message names this option. Configuration, as for
// WithMaxNonces. n <= 0 keeps the default.
func WithMaxIdempotencyKeys(n int) Option { return func(o *options) { o.caps.IdempotencyKeys = n } }

// WithMaxStepUpChallenges sets the cap of the step-up challenge store: how
// many live challenges (five minutes each) the simulator keeps at once
// (default DefaultMaxStepUpChallenges). When it is full a request that needs
// a new challenge is refused service_unavailable; the message names this
// option. Configuration, as for WithMaxNonces. n <= 0 keeps the default.
func WithMaxStepUpChallenges(n int) Option {
	return func(o *options) { o.caps.StepUpChallenges = n }
}

// startCaps are the caps a simulator built from o starts under: the log's
// when it replays one, the ones asked for otherwise.
func (o options) startCaps() storeCaps {
	if o.logCaps != nil {
		return *o.logCaps
	}
	return o.caps.WithDefaults(defaultCaps)
}

// WithWallClock makes the simulator's clock follow the host's, as
// mwallet-sim serve does unless given -clock manual. Every input (a
// business request, a control write, a Go control call, a webhook flush)
// moves the clock up to the host's time when it takes its place in the
// input order, running first, as an advance of the log, the timers that
// fall due on the way, and runs at that reading: the Date header and every
// window of the contract keep up with the host however many requests
// queue. The log carries each input's reading, so a replay runs at the
// recorded instants whatever the host's clock says; the clock follows the
// host again once the replay is done. The clock never goes back: after
// Clock.Advance past the host's time it stands until the host catches up.
// Between inputs it stands too: call Clock.Advance to run what falls due
// while no input arrives (mwallet-sim does every half second). It sets the
// start (WithStart) to the host's time; a WithStart after it overrides.
func WithWallClock() Option {
	return func(o *options) { o.hostClock, o.start = time.Now, time.Now() }
}

// WithSeed seeds the id generator (default 1), so runs are repeatable.
func WithSeed(seed int64) Option { return func(o *options) { o.seed = seed } }

// WithMember adds a member at start-up, beside the fixture member.
func WithMember(m MemberSeed) Option { return func(o *options) { o.members = append(o.members, m) } }

// WithoutFixtureMember leaves out the fixture member "member-1".
func WithoutFixtureMember() Option { return func(o *options) { o.noMember = true } }

// WithTLS makes New serve HTTPS with HTTP/1.1 only, on a self-signed
// certificate for localhost, 127.0.0.1 and ::1 (made once per process).
// Client and HTTPClient trust it; Certificate returns it for other clients.
// WithHTTP2 serves HTTP/2 as well. Without either option New serves plain
// HTTP/1.1. NewHandler ignores both: the caller serves the handler.
func WithTLS() Option { return func(o *options) { o.tls = true } }

// WithHTTP2 makes New serve HTTPS (as WithTLS) offering HTTP/2 and HTTP/1.1
// by ALPN, as a real HTTPS front end does; Client and any Go client with
// HTTP/2 enabled then speak HTTP/2. Faults over HTTP/2 reset the request's
// stream instead of closing the connection: drop_before with
// REFUSED_STREAM (not processed), drop_after with INTERNAL_ERROR (may have
// been processed); the connection's other streams go on.
func WithHTTP2() Option { return func(o *options) { o.tls, o.http2 = true, true } }

// WithDataDir keeps the simulator's state in dir (created if missing): every
// input is appended to dir/log and synced before its answer, and a snapshot
// of the whole state is written every so many inputs (WithSnapshotEvery),
// so that a simulator started again on dir, after Close or after the
// process was killed, continues from everything that was answered. A
// directory in use by another simulator is refused (a lock); a log whose
// last frame a crash cut short continues from its last whole input, and
// says so on the diagnostics writer (WithDiagnostics); any other damage,
// and a directory that is not a simulator's, is refused with a
// *DataDirError that changes nothing in dir (see RepairDataDir and
// WithDataRepair). When dir already holds a log,
// the simulator continues it with the configuration it records: the
// options that shape the fixture (model, environment, credentials, seed,
// members) must be the same or New refuses, and WithStart is ignored (the
// clock continues from the log). Close the simulator to release dir.
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// WithRecordingLimit bounds the recording a simulator without a data
// directory keeps in memory, in bytes of the requests kept (default
// DefaultRecordingLimit). Past it the recording stops and Recording returns
// an error; 0 keeps none. A simulator with a data directory records in its
// log, without a limit.
func WithRecordingLimit(bytes int64) Option { return func(o *options) { o.recordingLimit = bytes } }

// DefaultSnapshotEvery is how many inputs a data directory logs between
// snapshots of the state.
const DefaultSnapshotEvery = 10_000

// WithSnapshotEvery sets how many inputs a data directory (WithDataDir)
// logs between snapshots (default DefaultSnapshotEvery; 0 takes none, so a
// restart replays the whole log).
func WithSnapshotEvery(n int) Option { return func(o *options) { o.snapshotEvery = n } }

// WithDiagnostics sets where a data directory reports what a restart
// recovered and what it could not write (default os.Stderr).
func WithDiagnostics(w io.Writer) Option { return func(o *options) { o.diag = w } }

// ErrServerOption is wrapped by the error of NewHandler given an option
// that only a server started by New can honour (WithTLS, WithHTTP2).
var ErrServerOption = errors.New("the option configures the server New starts; a handler is served by its caller (serve it with TLS yourself, or use New)")

// validate checks the options (startup.Check); served is false for
// NewHandler, which cannot honour the options of the server New starts.
func (o *options) validate(served bool) error {
	err := startup.Check(startup.Settings{
		Served: served, TLS: o.tls, HTTP2: o.http2, Model: string(o.model), Environment: string(o.env), Start: o.start,
		ControlToken: o.controlToken, RecordingLimit: o.recordingLimit, SnapshotEvery: o.snapshotEvery,
	}, ErrServerOption)
	if err == nil && o.diag == nil {
		o.diag = io.Discard
	}
	return err
}

// newSimulator builds a simulator from opts: New with served true (it
// starts the server next), NewHandler with served false.
func newSimulator(served bool, opts []Option) (*Simulator, error) {
	o := defaultOptions()
	for _, f := range opts {
		f(&o)
	}
	if o.recording != nil {
		if err := o.recording.f.Header.Config.apply(&o); err != nil {
			return nil, err
		}
	}
	if err := o.validate(served); err != nil {
		return nil, err
	}
	var s *Simulator
	var err error
	if o.dataDir != "" {
		s, err = openDataDir(o)
	} else if s, err = build(o); err == nil && o.recording != nil {
		err = replayRecording(s, o.recording)
	}
	if err != nil {
		return nil, err
	}
	// The caps asked for hold from now on, whatever the log began with.
	if err := s.wiring.inputs.SetCaps(o.caps.WithDefaults(defaultCaps)); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}
