package simulator

import (
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/delivery"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/gatewayhost"
	"github.com/mwallet/mwallet-go/simulator/internal/ids"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	"github.com/mwallet/mwallet-go/simulator/internal/merchant"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/startup"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
)

// Model is the custody model of the merchant.
type Model string

// Custody models.
const (
	PlatformHosted Model = "platform_hosted"
	MerchantHosted Model = "merchant_hosted"
)

// Environment is the deployment the simulator plays.
type Environment string

// Environments.
const (
	Sandbox    Environment = "sandbox"
	Production Environment = "production"
)

// Default fixture credentials of New and of mwallet-sim. They are test values
// with no meaning outside a simulator.
const (
	DefaultClientID      = "sim_client_1"
	DefaultAPIKey        = "sim_api_key_0123456789abcdef"
	DefaultSigningKey    = "sim_signing_key_fedcba9876543210"
	DefaultWebhookSecret = "sim_whsec_00112233445566778899"
	DefaultMerchantID    = "mch_sim_1"
	// DefaultMemberExternalID is the external_member_id of the fixture member.
	DefaultMemberExternalID = "member-1"
)

// DefaultStart is the simulator clock's default start time.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Credentials are what the simulator issues to its merchant.
type Credentials struct {
	ClientID      string      `json:"client_id"`
	APIKey        string      `json:"api_key"`
	SigningKey    string      `json:"signing_key"`
	WebhookSecret string      `json:"webhook_secret"`
	MerchantID    string      `json:"merchant_id"`
	Model         Model       `json:"model"`
	Environment   Environment `json:"environment"`
}

// String hides the secrets.
func (c Credentials) String() string {
	return fmt.Sprintf("{client_id:%s merchant_id:%s model:%s environment:%s api_key:[redacted] signing_key:[redacted] webhook_secret:[redacted]}",
		c.ClientID, c.MerchantID, c.Model, c.Environment)
}

// GoString hides the secrets from %#v.
func (c Credentials) GoString() string { return c.String() }

// WebhookSecretValue returns WebhookSecret as an mwallet.Secret, the type
// the webhook receivers take, so the path from the simulator's credentials to
// a verifier needs no conversion:
//
//	h := webhooks.Handler(sim.Credentials().WebhookSecretValue(), handle, webhooks.WithClock(sim.Clock.Now))
//
// (sim.Webhooks.Handler builds that receiver in one call.)
func (c Credentials) WebhookSecretValue() mwallet.Secret { return mwallet.Secret(c.WebhookSecret) }

// ClientCredentials returns ClientID, APIKey and SigningKey as the
// mwallet.Credentials an SDK client takes, for a client built by hand (for
// example against a standalone mwallet-sim, or with options sim.Client does
// not set):
//
//	client, err := mwclient.New(sim.URL(), sim.Credentials().ClientCredentials())
func (c Credentials) ClientCredentials() mwallet.Credentials {
	return mwallet.Credentials{ClientID: c.ClientID, APIKey: mwallet.Secret(c.APIKey), SigningKey: mwallet.Secret(c.SigningKey)}
}

// Simulator is one isolated simulated service. Its methods start, serve and
// check it; its fields drive it, one per product line or concern, each
// playing what the real service decides alone (the end user, an upstream
// partner, an operator) and mirroring a part of the control API (/_sim/...):
//
//	sim.StepUp.Complete(challengeID) // the end user finishes the hosted screen
//	sim.QRPay.Complete(orderID)      // the acquirer confirms a payment
//	sim.Clock.Advance(time.Hour)     // everything that falls due runs, in order
type Simulator struct {
	// Clock is the simulator clock: Now reads it, Advance moves it.
	Clock *Clock
	// Members creates members and changes their status.
	Members *MembersControl
	// Merchant changes the merchant and its prepaid account.
	Merchant *MerchantControl
	// Keys creates and changes the merchant's API Keys.
	Keys *KeysControl
	// StepUp plays the end user on the hosted step-up screen.
	StepUp *StepUpControl
	// QRPay plays the QR acquirer.
	QRPay *QRPayControl
	// Cards plays the card issuer and the card line's operator.
	Cards *CardsControl
	// Remittances plays the payout partner.
	Remittances *RemittancesControl
	// KYC plays the KYC provider and the KYC line's operator.
	KYC *KYCControl
	// Outcomes decides when upstream outcomes happen by themselves.
	Outcomes *OutcomesControl
	// Webhooks manages webhook endpoints and deliveries.
	Webhooks *WebhooksControl
	// Events reads and emits the events recorded for delivery.
	Events *EventsControl
	// Faults arms faults on the business API.
	Faults *FaultsControl
	// Requests reads the request journal.
	Requests *RequestsControl

	// k holds the state lock and the order of inputs: every change of the
	// state runs in a kernel.Tx, and an input is logged in its place in
	// the input order (record.go).
	k kernel.Kernel
	// st is the state: everything the state image holds, in the order it
	// holds it (internal/image, over the projection of image_legacy.go).
	st simState
	// wiring is what serves and records the state and is not part of it:
	// the router, the server, the input log, the options.
	wiring wiring
}

// simState is the state of a simulator: the fields the state image walks,
// in its order (internal/image). Each product line that has its own package holds
// its part in its Line.
type simState struct {
	clock    *Clock
	ledger   *ledger.Books
	rng      ids.Generator // object ids (tx.NewUUID), card secrets
	creds    Credentials
	start    time.Time
	merchant *merchant.Line                // the merchant line (internal/merchant)
	keys     *kernel.Table[string, apiKey] // by client id
	tokens   *kernel.Table[string, token]  // by token value
	members  members.Line                  // the members line (internal/members)
	cat      catalogue                     // the asset catalogue (catalogue.go)
	// Product-line state, each owned by its own file.
	qr       *qrpay.Line
	cards    *cardline.Line
	remit    *remittances.Line
	deposits *deposits.Line
	kyc      *kyc.Line
	webhooks *hookline.Line
	gw       *gatewayState
	outcome  *outcomes.State
	stepUp   stepup.Line         // the step-up line (internal/stepup)
	listSeq  *kernel.Cell[int64] // creation sequence of listed objects (tx.NextSeq, internal/services)
	// controlRoutes and literalPaths are no state: they keep the values the
	// image of recording versions 1 and 2 carries (image.ControlRoutes).
	controlRoutes []string
	literalPaths  map[string][]string
}

// wiring is what serves, routes and records a simulator: built by New, never
// part of the state image.
type wiring struct {
	timers *outcomes.Timers // the clock's timers and the outcome success paths (internal/outcomes)
	view   *view            // the operator's read-only view of the state (devtools.go)
	mux    *http.ServeMux
	// gw is the gateway (gateway.go): the business API's pipeline, its
	// endpoints and the server New starts.
	gw   *gateway
	opts options
	// rec is the input log (record.go), stepper the dashboard's replay of
	// it (control_recording.go); neither is part of the state.
	rec     *recorder
	stepper *stepper
	// replayBase, set while a recording is replayed, is the address the
	// recorded simulator served at (URL answers it).
	replayBase string
	// image writes, reads and hashes the state image (internal/image); inputs
	// logs the inputs and reads the log back (record.go); delivery
	// flushes the due webhook deliveries (internal/delivery's Deliverer,
	// webhooks_flush.go).
	image    *stateImage
	inputs   *inputLog
	delivery *deliverer
	// ctl serves the control API under /_sim (control.go).
	ctl *controlAPI
}

// apiKey is one API Key of the merchant.
type apiKey struct {
	ClientID          string
	APIKey            string
	SigningKey        string
	Scopes            kernel.List[string] // requested scopes (known keys only), sorted
	Approved          kernel.List[string] // restricted scopes approved by the operator, sorted
	Disabled          bool
	SignatureRequired bool
	IPAllowlist       kernel.List[string] // empty: any address on sandbox Keys, none on production Keys
	// IPAllowlistSet says the allowlist was set (to empty, too).
	IPAllowlistSet bool
	Env            Environment
	ValidUntil     time.Time // zero: no limit; the Key stops working exactly then
}

// legacyApiKey is a Key as the state image of recordings of versions 1
// and 2 held it.
type legacyApiKey struct {
	ClientID          string
	APIKey            string
	SigningKey        string
	Scopes            map[string]bool
	Approved          map[string]bool
	Disabled          bool
	SignatureRequired bool
	IPAllowlist       []string
	Env               Environment
	ValidUntil        time.Time
}

func (k apiKey) legacy() *legacyApiKey {
	out := &legacyApiKey{
		ClientID: k.ClientID, APIKey: k.APIKey, SigningKey: k.SigningKey, Scopes: map[string]bool{}, Approved: map[string]bool{},
		Disabled: k.Disabled, SignatureRequired: k.SignatureRequired, Env: k.Env, ValidUntil: k.ValidUntil,
	}
	for sc := range k.Scopes.Values() {
		out.Scopes[sc] = true
	}
	for sc := range k.Approved.Values() {
		out.Approved[sc] = true
	}
	if k.IPAllowlistSet {
		out.IPAllowlist = k.IPAllowlist.Slice()
		if out.IPAllowlist == nil {
			out.IPAllowlist = []string{}
		}
	}
	return out
}

// token is an issued access token.
type token struct {
	Value     string
	ClientID  string
	Env       Environment
	ExpiresAt time.Time
}

// Event is a service event recorded for webhook delivery.
type Event struct {
	ID               string         `json:"event_id"`
	Type             string         `json:"event_type"`
	CreatedAt        time.Time      `json:"created_at"`
	Object           string         `json:"object"`
	ObjectID         string         `json:"id"`
	ExternalMemberID string         `json:"external_member_id"`
	Status           string         `json:"status"`
	StatusVersion    int64          `json:"status_version"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// New starts an isolated simulator on a loopback httptest server. Close it
// when done (t.Cleanup(sim.Close)). It returns an error, and starts nothing,
// when an option is invalid: an unknown model or environment, a WithMember
// seed that cannot be created, a data directory that cannot be used
// (WithDataDir) or a recording that does not replay (WithRecording). In
// tests, simtest.New does this and fails the test on the error.
func New(opts ...Option) (*Simulator, error) {
	s, err := newSimulator(true, opts)
	if err != nil {
		return nil, err
	}
	// Only the HTTPS server's start can fail (internal/tlsserver's Served).
	if err := s.wiring.gw.served.Serve(LogExchanges(s), s.wiring.opts.tls, s.wiring.opts.http2); err != nil {
		return nil, fmt.Errorf("simulator: serve HTTPS: %w", err)
	}
	return s, nil
}

// MustNew is New for examples and programs whose options are fixed: it
// panics when an option is invalid.
func MustNew(opts ...Option) *Simulator {
	s, err := New(opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// NewHandler builds a simulator without starting a server: serve it yourself
// (it is an http.Handler). URL and Client need SetBaseURL first. Invalid
// options are reported as by New; WithTLS and WithHTTP2, which shape the
// server New starts, are refused (ErrServerOption).
func NewHandler(opts ...Option) (*Simulator, error) {
	return newSimulator(false, opts)
}

// build builds a simulator from its options: the fixture, the product
// lines and the control API, with an empty input log.
func build(o options) (*Simulator, error) {
	s := &Simulator{
		st: simState{
			start: o.start,
			clock: newClock(o.start),
			creds: o.creds,
			// No state: the values recordings of versions 1 and 2 carry
			// (internal/image, routes.go).
			controlRoutes: slices.Clone(image.ControlRoutes),
			literalPaths:  maps.Clone(image.LiteralPaths),
		},
		wiring: wiring{
			opts: o,
			mux:  http.NewServeMux(),
		},
	}
	// Verify mode (internal/kernel, verify.go) is set before the first
	// table.
	s.k.SetVerify(kernel.VerifyMode())
	// The state's own tables come first: the id generator and the
	// creation sequence every line draws from.
	s.st.rng = ids.New(&s.k, "ids.generator", uint64(o.seed), uint64(o.seed)^0x9e3779b97f4a7c15)
	s.st.listSeq = kernel.NewCell(&s.k, "ids.list_seq", int64(0))
	s.st.keys = kernel.NewTable[string, apiKey](&s.k, "auth.keys")
	s.st.tokens = kernel.NewTable[string, token](&s.k, "auth.tokens")
	s.st.gw = pipeline.NewState(&s.k, o.seed, o.bodyKey, o.startCaps(), pipeline.JournalCapacity)
	s.st.cat = newCatalogue(&s.k)
	s.wiring.timers = newTimers(s.st.clock)
	s.wiring.ctl = &controlAPI{sim: s}
	// The input log (record.go) and what is built around it, the state
	// image, come before the gateway, which logs every request through it
	// (the webhook flush comes with the webhook line); nothing is logged
	// before New returns.
	cfg := configOf(o)
	cfg.BodyKey = hex.EncodeToString(s.st.gw.BodyKey[:])
	rules, err := startup.Rules(os.Getenv(startup.RulesEnv))
	if err != nil {
		return nil, err
	}
	s.wiring.rec = inputlog.NewRecorder(cfg, o.seed, o.recordingLimit, rules)
	s.k.SetUndo(s.wiring.rec.Undo)
	s.wiring.rec.SetBase(s.URL)
	s.wiring.image = &stateImage{root: s, k: &s.k}
	s.wiring.inputs = &inputLog{K: &s.k, Rec: s.wiring.rec, Timers: s.wiring.timers, Caps: s.st.gw.Caps, HostClock: o.hostClock, Unlogged: ControlTokenHeader}
	s.wiring.gw = newGateway(&gateway{k: &s.k, st: &s.st, mux: s.wiring.mux}, &gatewayhost.Host{
		Log: s.wiring.inputs, Rec: s.wiring.rec, Clock: s.st.clock, Due: s.wiring.timers.RunDue, NotFound: s.wiring.ctl.notFound,
	})
	s.wiring.inputs.Host = logHost(s.st.clock, s.wiring.image, s.wiring.gw.ex.Draws)
	s.st.members.Init(&s.k)
	s.st.stepUp.Init(&s.k, pipeline.Challenges{State: s.st.gw})
	s.st.webhooks = newWebhooksLine(s)
	s.wiring.delivery = &deliverer{&delivery.Deliverer{Kernel: &s.k, Line: s.st.webhooks, Log: delivery.InputLog{Inputs: s.wiring.inputs, Rec: s.wiring.rec}, Clock: s.st.clock.Now}}
	s.wiring.view = &view{k: &s.k, st: &s.st, partial: partialReplayOf(o.recording), actions: controlOps.ActionKeys}
	s.initControls()
	s.st.outcome = s.wiring.timers.Register(&s.k)
	s.st.creds.Model = o.model
	s.st.creds.Environment = o.env
	s.st.ledger = ledger.New(&s.k, s.st.cat.Scale)
	// The fixture is the state's first transaction; nothing else can see
	// s before New returns.
	s.st.merchant = merchant.New(&s.k, merchantHost{st: &s.st}, s.st.creds.MerchantID, string(s.st.creds.Model), string(MerchantActive), string(s.st.creds.Environment))
	s.k.Provide(newServices(s))
	tx := s.k.BeginSetup()
	defer tx.End()
	if err := loadFixture(tx, &s.st, &s.wiring.opts); err != nil {
		return nil, err
	}
	s.registerAll(tx)
	s.wiring.gw.setLines()
	s.wiring.gw.router.IndexLiteralPaths(controlRoutes())
	grantFixtureScopes(tx, &s.st, s.wiring.gw.router.Endpoints())
	s.wiring.stepper = &stepper{}
	// What a refused step must leave as it was outside the tables: the
	// state image of it (image.Outside), without what the image skips (the
	// clock's owner).
	s.k.SetOutside(image.Outside(&s.st, legacyRules.Skip))
	return s, nil
}

// Close stops the server New started, if any, closes the data directory
// (after a last snapshot), releasing its lock, and the connections of its
// webhook deliveries.
func (s *Simulator) Close() {
	s.wiring.gw.served.Close()
	s.wiring.stepper.Close()
	s.wiring.inputs.CloseStore()
	s.wiring.delivery.closeDeliveries()
}

// URL returns the base URL of the simulator (no trailing slash): https for
// a simulator started with WithTLS or WithHTTP2.
func (s *Simulator) URL() string {
	if s.wiring.replayBase != "" {
		return s.wiring.replayBase
	}
	if u := s.wiring.gw.served.URL(); u != "" {
		return u
	}
	return s.wiring.opts.baseURL
}

// SetBaseURL records the address a self-served simulator is reachable at.
func (s *Simulator) SetBaseURL(u string) { s.wiring.opts.baseURL = u }

// Credentials returns the merchant's credentials.
func (s *Simulator) Credentials() Credentials {
	c, _ := invoke[Credentials](s, opCredentials, &noInput{})
	return c
}

// credentials are the merchant's credentials: as built, with the
// merchant's custody model and environment as they are now.
func (st *simState) credentials(tx *kernel.Tx) Credentials {
	c := st.creds
	c.Model, c.Environment = Model(st.merchant.Model(tx)), Environment(st.merchant.Env(tx))
	return c
}

// Client returns an SDK client (an *mwclient.Client, every product line
// wired) configured for this simulator: its URL, its credentials, its HTTP
// client and its clock (mwallet.WithClockSource(sim.Clock): signatures
// stay within the tolerance when the simulator clock is advanced, and every
// wait of the client advances the simulator clock instead of sleeping; on a
// simulator that follows the host's clock, WithWallClock, the client keeps
// the host's clock and its waits are real).
// Extra options are applied after those.
//
// Client panics when the client cannot be built: for a simulator from New
// only when an extra option is invalid; a simulator from NewHandler needs
// SetBaseURL first.
func (s *Simulator) Client(opts ...mwallet.Option) *mwclient.Client {
	c, err := s.newClient(opts...)
	if err != nil {
		panic(fmt.Sprintf("simulator: client: %v", err))
	}
	return c
}

// newClient is Client returning the error instead of panicking.
func (s *Simulator) newClient(opts ...mwallet.Option) (*mwclient.Client, error) {
	var base []mwallet.Option
	if s.wiring.inputs.HostClock == nil {
		// On a clock that follows the host's (WithWallClock) the client
		// keeps the host's clock: its waits are real.
		base = append(base, mwallet.WithClockSource(s.st.clock))
	}
	if hc := s.HTTPClient(); hc != nil {
		base = append(base, mwallet.WithHTTPClient(hc))
	}
	if s.URL() == "" {
		return nil, fmt.Errorf("simulator: no base URL: call SetBaseURL after NewHandler")
	}
	return mwclient.New(s.URL(), s.st.creds.ClientCredentials(), append(base, opts...)...)
}

// CheckLedger verifies that the books balance: every asset sums to zero over
// all accounts and no member, card or prepaid account is negative.
func (s *Simulator) CheckLedger() error {
	tx := s.wiring.image.captured()
	defer tx.End()
	return s.st.ledger.Check(tx)
}

// LedgerEntries returns a copy of the journal entries.
func (s *Simulator) LedgerEntries() []Entry {
	tx := s.wiring.image.captured()
	defer tx.End()
	return entries(s.st.ledger, tx)
}
