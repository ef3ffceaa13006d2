package simulator

import (
	"math/rand/v2"
	"reflect"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
	"github.com/mwallet/mwallet-go/simulator/internal/legacyimage"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	"github.com/mwallet/mwallet-go/simulator/internal/merchant"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// The state digest of recordings of versions 1 and 2: the projection of
// the state the image (internal/image) is written from.
//
// The state lives in the kernel's tables (rows by name, values only), but
// the digest a recording's end line carries, and the one GET /_sim/digest
// answers, is the hash of the state image as the builds that wrote those
// recordings encoded it: positional, over their state types, objects
// shared between lists written once. legacyState is that state, built from
// the tables when a digest is taken (legacy): each line answers its part
// in the shape of its state then (the line's Legacy method), with the
// objects several of its lists held shared again. So a recording of an
// earlier build replays to the digest its end line carries, and so does the
// differential walk's.
//
// Every field of the projection's types is exported, so the image reads
// it by reflection alone, without unsafe (TestImageReadsExportedFieldsOnly,
// TestNoUnsafe); where a type of the state had fields that are not
// exported (rand.Rand, OutcomeMode), the projection holds a stand-in of
// the same shape (legacyStandIns). The image names the fields as the
// builds of those versions did, by rule (image.Rules.FieldName).
//
// A new piece of state is a new table; its rows enter the digest through
// the projection of the line that owns them and the recording version that
// first carries them (image.FieldsSince), unless it is derived from rows
// the digest holds (the expiry queue of the remittances' idempotency
// records: each entry is a record's window end). TestTablesAreListed
// holds the list of tables, so a new one shows in review.

// legacyState is the state image of recordings of versions 1 and 2: the
// fields of the simulator's state of those builds, in their order.
type legacyState struct {
	Clock         *image.Clock
	Ledger        *legacyBooks
	Rng           *image.Rand
	Creds         Credentials
	Start         time.Time
	Merchant      *merchant.Legacy
	Keys          map[string]*legacyApiKey
	Tokens        map[string]*token
	Members       members.Legacy
	Cat           legacyCatalogue
	Events        []*hookline.Event
	Qr            *qrpay.Legacy
	Cards         *cardline.Legacy
	Remit         *remittances.Legacy
	Deposits      *deposits.Legacy
	Kyc           *kyc.Legacy
	Webhooks      *hookline.Legacy
	Gw            *legacyGatewayState
	Outcome       *image.OutcomeState
	StepUp        stepup.Legacy
	ListSeq       int64
	ControlRoutes []string
	LiteralPaths  map[string][]string
}

// legacyRules are the image's rules for the projection (internal/image):
// what of the state is not state, and the types of the projection that
// stand for a type the naming rule cannot give.
var legacyRules = &image.Rules{
	// The fields that are not state ("Type.field").
	Skip: map[string]bool{
		"Simulator.k":      true,
		"Simulator.wiring": true,
		"Clock.owner":      true,
	},
	// The function and channel fields that New sets or that only the Go
	// API sets (Fault.Hold, Fault.Held): left out of the image without
	// complaint.
	Built: map[string]bool{
		"Fault.Hold": true,
		"Fault.Held": true,
	},
	Facade:   reflect.TypeFor[Simulator](),
	StandIns: legacyStandIns,
}

// legacyStandIns are the types of the projection that stand for a type
// the naming rule cannot give: a type since renamed (simState), an
// exported type (Clock, OutcomeMode), a type of another package whose
// fields are not exported (rand.Rand). The image names each, and its
// fields, as the type it stands for; each has the fields that type had in
// the builds of those versions, in their order (the stand-ins of
// OutcomeMode and rand.Rand, the fields those types still have:
// TestLegacyStandInsHaveTheirShape).
var legacyStandIns = map[reflect.Type]reflect.Type{
	reflect.TypeFor[legacyState]():       reflect.TypeFor[simState](),
	reflect.TypeFor[image.Clock]():       reflect.TypeFor[Clock](),
	reflect.TypeFor[image.OutcomeMode](): reflect.TypeFor[OutcomeMode](),
	reflect.TypeFor[image.Rand]():        reflect.TypeFor[rand.Rand](),
}

// legacy builds the state image of recordings of versions 1 and 2 from the
// state.
func (im *stateImage) legacy(tx *kernel.Tx) *legacyState {
	st := &im.root.st
	mem, memberPtrs := st.members.Legacy(tx)
	keys, tokens := map[string]*legacyApiKey{}, map[string]*token{}
	for id, k := range st.keys.All(tx) {
		keys[id] = k.legacy()
	}
	for v, t := range st.tokens.All(tx) {
		tokens[v] = &t
	}
	rng, _ := legacyimage.Rand(st.rng, tx)
	clock, outcome := legacyimage.Timers(im.root.wiring.timers, tx)
	events, hooks := st.webhooks.Legacy(tx)
	return &legacyState{
		Clock: clock, Ledger: legacyLedger(st.ledger, tx), Rng: rng, Creds: st.credentials(tx), Start: st.start,
		Merchant: st.merchant.Legacy(tx), Keys: keys, Tokens: tokens, Members: mem, Cat: st.cat.legacy(tx),
		Events: events, Qr: st.qr.Legacy(tx, memberPtrs), Cards: st.cards.Legacy(tx), Remit: st.remit.Legacy(tx, memberPtrs), Deposits: st.deposits.Legacy(tx),
		Kyc: st.kyc.Legacy(tx), Webhooks: hooks, Gw: legacyGateway(tx, st.gw), Outcome: outcome, StepUp: st.stepUp.Legacy(tx),
		ListSeq: st.listSeq.Get(tx), ControlRoutes: st.controlRoutes, LiteralPaths: st.literalPaths,
	}
}

// encodeLegacy writes the state image of recordings of versions 1 and 2
// without the fields of leave.
func (im *stateImage) encodeLegacy(tx *kernel.Tx, leave map[string]bool) ([]byte, error) {
	return legacyRules.Encode(im.legacy(tx), leave)
}
