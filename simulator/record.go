package simulator

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The input log, what it logs and in which order, is internal/inputlog's
// (inputlog.go); what stays here is the configuration a recording carries
// and the simulator as the log's host.

// DefaultRecordingLimit bounds the in-memory recording of a simulator
// without a data directory: about the bytes of the requests kept (bodies,
// headers, arguments). See WithRecordingLimit.
const DefaultRecordingLimit = 128 << 20

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

// recorder keeps the input log of one simulator, built with its
// recordingConfig: in memory, or in a data directory's store
// (inputlog.Recorder).
type recorder = inputlog.Recorder[recordingConfig]

// errRecordingLimit is the error of Recording once the in-memory recording
// has dropped inputs.
var errRecordingLimit = errors.New("simulator: the in-memory recording reached its limit (WithRecordingLimit) and stopped; use a data directory (WithDataDir, mwallet-sim -data) to record without one")

// inputLog is where inputs enter the input log and where the log is read
// back (Recording) and closed (inputlog.Log, over logHost).
type inputLog = inputlog.Log[recordingConfig]

// logHost is the simulator as its input log needs it (inputlog.Funcs):
// its clock, the fault draws of a business request (internal/exchange's
// Pipeline.Draws), and the state image (the digest of a recording's end, a
// snapshot's state).
func logHost(clock *Clock, image *stateImage, draws func(tx *kernel.Tx, r *http.Request) []bool) inputlog.Funcs {
	return inputlog.Funcs{Clock: clock.Now, BusinessDraws: draws, StateWriter: image.writeState,
		DigestAt: func(at func(tx *kernel.Tx)) (string, error) {
			rtx := image.read(image.captureWith(true, at))
			defer rtx.End()
			return image.digest(rtx)
		}}
}

// persistError is a Go control call the data directory could not take
// or could not make durable (inputlog.CallError).
type persistError = inputlog.CallError
