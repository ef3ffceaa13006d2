package simulator

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	"github.com/mwallet/mwallet-go/simulator/internal/merchant"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// The state digest of recordings of versions 1 and 2.
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
// builds of those versions did, by rule (imageFieldName).
//
// A new piece of state is a new table; its rows enter the digest through
// the projection of the line that owns them and the recording version that
// first carries them (imageFieldsSince), unless it is derived from rows
// the digest holds (the expiry queue of the remittances' idempotency
// records: each entry is a record's window end). TestTablesAreListed
// holds the list of tables, so a new one shows in review.

// legacyState is the state image of recordings of versions 1 and 2: the
// fields of the simulator's state of those builds, in their order.
type legacyState struct {
	Clock         *legacyClock
	Ledger        *legacyBooks
	Rng           *legacyRand
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
	Outcome       *legacyOutcomeState
	StepUp        stepup.Legacy
	ListSeq       int64
	ControlRoutes []string
	LiteralPaths  map[string][]string
}

// legacyStandIns are the types of this package's projection that stand
// for a type the naming rule cannot give: a type since renamed (simState),
// an exported type (Clock, OutcomeMode), a type of another package whose
// fields are not exported (rand.Rand). The image names each, and its
// fields, as the type it stands for; each has the fields that type had in
// the builds of those versions, in their order (the stand-ins of
// OutcomeMode and rand.Rand, the fields those types still have:
// TestLegacyStandInsHaveTheirShape).
var legacyStandIns = map[string]reflect.Type{
	"legacyState":       reflect.TypeFor[simState](),
	"legacyClock":       reflect.TypeFor[Clock](),
	"legacyOutcomeMode": reflect.TypeFor[OutcomeMode](),
	"legacyRand":        reflect.TypeFor[rand.Rand](),
}

// legacyStandIn returns the type t stands for, when t is one of
// legacyStandIns.
func legacyStandIn(t reflect.Type) (reflect.Type, bool) {
	if t.PkgPath() != simPkg {
		return nil, false
	}
	st, ok := legacyStandIns[t.Name()]
	return st, ok
}

// legacyName is the name the image of recordings of versions 1 and 2
// gives a type of the projection that stands for one of theirs, by the
// projection's naming rule: a line's Legacy stands for its Line, a type
// legacyX for x and LegacyX for X, one of legacyStandIns for the type it
// stands for. ok is false for other types.
func legacyName(t reflect.Type) (string, bool) {
	if !ownType(t) {
		return "", false
	}
	if st, ok := legacyStandIn(t); ok {
		return st.Name(), true
	}
	n := t.Name()
	switch {
	case n == "Legacy":
		return "Line", true
	case strings.HasPrefix(n, "Legacy") && len(n) > len("Legacy"):
		return strings.TrimPrefix(n, "Legacy"), true
	case strings.HasPrefix(n, "legacy") && len(n) > len("legacy"):
		rest := strings.TrimPrefix(n, "legacy")
		return strings.ToLower(rest[:1]) + rest[1:], true
	}
	return "", false
}

// The fields of the projection's types are exported (the image is written
// by reflection, which reads only exported fields), but the fields of the
// types they stand for were not, and the image names a field as its type
// named it: imageFieldName gives the old names by rule, with two lists for
// what the rule cannot tell.

// legacyRecords are the projection's types, by their name in the image,
// that stand for records whose fields were exported (an API key, a member,
// an order, a card...): their fields keep their names, but for their
// bookkeeping, listed in legacyFieldNames. The fields of the other types
// of the projection (a line's state, the gateway's, a queue...) were all
// unexported.
var legacyRecords = map[string]bool{
	"apiKey":                true,
	"faultRule":             true,
	"api.Member":            true,
	"cards.cardApplication": true,
	"cards.cardProduct":     true,
	"cards.simCard":         true,
	"merchant.state":        true,
	"qrpay.order":           true,
	"qrpay.plan":            true,
	"remittances.order":     true,
	"webhooks.delivery":     true,
	"webhooks.endpoint":     true,
}

// legacyFieldNames are the names the image of recordings of versions 1 and
// 2 gives the fields that were unexported in a record (legacyRecords) or
// in a row type that the projection shares with it (renamed when they
// became rows).
var legacyFieldNames = map[string]string{
	"faultRule.Remaining":          "remaining",
	"faultRule.Unlimited":          "unlimited",
	"cards.cardApplication.Seq":    "seq",
	"cards.simCard.Seq":            "seq",
	"cards.simCard.Txs":            "txs",
	"qrpay.order.Seq":              "seq",
	"qrpay.order.Member":           "member",
	"qrpay.order.From":             "from",
	"qrpay.order.Locked":           "locked",
	"remittances.order.Seq":        "seq",
	"webhooks.delivery.Seq":        "seq",
	"webhooks.delivery.RunLeft":    "runLeft",
	"webhooks.delivery.Redelivery": "redelivery",
	"webhooks.delivery.InFlight":   "inFlight",

	"kyc.Binding.Seq":          "seq",
	"remittances.payee.Seq":    "seq",
	"remittances.idem.Hash":    "hash",
	"remittances.idem.OrderID": "orderID",
	"remittances.idem.At":      "at",
	"cards.cardTopUp.Seq":      "seq",
	"cards.cardTx.Seq":         "seq",
}

// imageFieldName is the name the image gives the field sf of the struct
// type t: the name the type t stands for gave it. A field of a type of the
// projection (legacyName) is named with its first letter lowered, but for
// the fields of records (legacyRecords), which keep their names; the
// fields of legacyFieldNames are named there.
func imageFieldName(t reflect.Type, sf reflect.StructField) string {
	typeName := imageTypeName(t)
	if old, ok := legacyFieldNames[typeName+"."+sf.Name]; ok {
		return old
	}
	if _, ok := legacyName(t); ok && !legacyRecords[typeName] {
		return strings.ToLower(sf.Name[:1]) + sf.Name[1:]
	}
	return sf.Name
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
	rng, _ := legacyRandOf(st.rng, tx)
	clock, outcome := im.root.wiring.timers.legacy(tx)
	events, hooks := st.webhooks.Legacy(tx)
	return &legacyState{
		Clock: clock, Ledger: legacyLedger(st.ledger, tx), Rng: rng, Creds: st.credentials(tx), Start: st.start,
		Merchant: st.merchant.Legacy(tx), Keys: keys, Tokens: tokens, Members: mem, Cat: st.cat.legacy(tx),
		Events: events, Qr: st.qr.Legacy(tx, memberPtrs), Cards: st.cards.Legacy(tx), Remit: st.remit.Legacy(tx, memberPtrs), Deposits: st.deposits.Legacy(tx),
		Kyc: st.kyc.Legacy(tx), Webhooks: hooks, Gw: st.gw.legacy(tx), Outcome: outcome, StepUp: st.stepUp.Legacy(tx),
		ListSeq: st.listSeq.Get(tx), ControlRoutes: st.controlRoutes, LiteralPaths: st.literalPaths,
	}
}

// encodeLegacy writes the state image of recordings of versions 1 and 2
// without the fields of leave.
func (im *stateImage) encodeLegacy(tx *kernel.Tx, leave map[string]bool) ([]byte, error) {
	e := &imgEnc{ptrs: map[ptrKey]uint64{}, leave: leave}
	// The image of those builds started at the simulator, object 0, whose
	// one field in the image was its state.
	e.next = 1
	if err := e.value(reflect.ValueOf(im.legacy(tx)).Elem()); err != nil {
		return nil, err
	}
	return e.b, nil
}

// The state image of recording versions 1 and 2 (image.go) held two fields
// that are no state: simState.controlRoutes, the control routes in the
// order they were registered, and simState.literalPaths, the methods of
// each path registered without a wildcard. The control routes are now the
// declared ops (control_decl.go) and the router keeps its own index
// (gateway.literal), so neither moves with the state; the two fields keep
// the values every build of those versions registered, so the digests of
// their recordings, data directories and snapshots stay what they were.

// legacyControlRoutes is what simState.controlRoutes holds.
var legacyControlRoutes = []string{
	"GET /_sim/credentials",
	"GET /_sim/stats",
	"GET /_sim/clock",
	"POST /_sim/clock",
	"POST /_sim/members",
	"GET /_sim/members",
	"GET /_sim/members/{id}",
	"GET /_sim/merchant",
	"POST /_sim/merchant",
	"GET /_sim/keys",
	"POST /_sim/keys",
	"GET /_sim/keys/{client_id}",
	"POST /_sim/keys/{client_id}",
	"GET /_sim/faults",
	"POST /_sim/faults",
	"DELETE /_sim/faults",
	"GET /_sim/requests",
	"DELETE /_sim/requests",
	"GET /_sim/events",
	"GET /_sim/ledger",
	"POST /_sim/outcomes",
	"GET /_sim/step-up/{challenge_id}",
	"POST /_sim/step-up/{challenge_id}/complete",
	"POST /_sim/{rest...}",
	"POST /_sim/cards/limits",
	"POST /_sim/cards/bin_authorizations",
	"POST /_sim/cards/products/{id}/enabled",
	"POST /_sim/members/{id}/card_penalty",
	"POST /_sim/members/{id}/kyc_country",
	"POST /_sim/members/{id}/shipping_addresses",
	"POST /_sim/cards/{id}/refuse_close",
	"POST /_sim/cards/topups/upstream_timeout",
	"GET /_sim/cards/{id}",
	"GET /_sim/cards/topups/{id}",
	"POST /_sim/kyc/quick",
	"POST /_sim/members/{id}/funds_protection",
	"POST /_sim/merchant/prepaid/withdraw",
	"POST /_sim/merchant/pobo_subaccount",
	"POST /_sim/qrpay/line",
	"POST /_sim/qrpay/scenarios",
	"POST /_sim/qrpay/fiat_rates",
	"GET /_sim/qrpay/upstream",
	"GET /_sim/qrpay/orders/{id}/trace",
	"POST /_sim/merchant/write_quota",
	"POST /_sim/keys/{client_id}/sign",
	"POST /_sim/requests/in_progress",
	"GET /_sim/recipes",
	"GET /_sim/invariants",
	"GET /_sim/cards/secure-sessions/{id}",
	"POST /_sim/webhooks/endpoints",
	"GET /_sim/webhooks/endpoints",
	"DELETE /_sim/webhooks/endpoints/{id}",
	"POST /_sim/webhooks/endpoints/{id}/disable",
	"POST /_sim/webhooks/endpoints/{id}/enable",
	"GET /_sim/webhooks/deliveries",
	"POST /_sim/webhooks/events",
	"POST /_sim/webhooks/auto",
	"GET /_sim/state",
	"POST /_sim/webhooks/deliveries/{id}/redeliver",
	"GET /_sim/digest",
}

// legacyLiteralPaths is what simState.literalPaths holds.
var legacyLiteralPaths = map[string][]string{
	"/_sim/cards/bin_authorizations":      {"POST"},
	"/_sim/cards/limits":                  {"POST"},
	"/_sim/cards/topups/upstream_timeout": {"POST"},
	"/_sim/clock":                         {"GET", "HEAD", "POST"},
	"/_sim/credentials":                   {"GET", "HEAD"},
	"/_sim/digest":                        {"GET", "HEAD"},
	"/_sim/events":                        {"GET", "HEAD"},
	"/_sim/faults":                        {"GET", "HEAD", "POST", "DELETE"},
	"/_sim/invariants":                    {"GET", "HEAD"},
	"/_sim/keys":                          {"GET", "HEAD", "POST"},
	"/_sim/kyc/quick":                     {"POST"},
	"/_sim/ledger":                        {"GET", "HEAD"},
	"/_sim/members":                       {"GET", "HEAD", "POST"},
	"/_sim/merchant":                      {"GET", "HEAD", "POST"},
	"/_sim/merchant/pobo_subaccount":      {"POST"},
	"/_sim/merchant/prepaid/withdraw":     {"POST"},
	"/_sim/merchant/write_quota":          {"POST"},
	"/_sim/outcomes":                      {"POST"},
	"/_sim/qrpay/fiat_rates":              {"POST"},
	"/_sim/qrpay/line":                    {"POST"},
	"/_sim/qrpay/scenarios":               {"POST"},
	"/_sim/qrpay/upstream":                {"GET", "HEAD"},
	"/_sim/recipes":                       {"GET", "HEAD"},
	"/_sim/requests":                      {"GET", "HEAD", "DELETE"},
	"/_sim/requests/in_progress":          {"POST"},
	"/_sim/state":                         {"GET", "HEAD"},
	"/_sim/stats":                         {"GET", "HEAD"},
	"/_sim/webhooks/auto":                 {"POST"},
	"/_sim/webhooks/deliveries":           {"GET", "HEAD"},
	"/_sim/webhooks/endpoints":            {"GET", "HEAD", "POST"},
	"/_sim/webhooks/events":               {"POST"},
	"/v1/assets":                          {"GET", "HEAD"},
	"/v1/cards":                           {"GET", "HEAD"},
	"/v1/cards/applications":              {"POST"},
	"/v1/cards/products":                  {"GET", "HEAD"},
	"/v1/deposits":                        {"GET", "HEAD", "POST"},
	"/v1/kyc":                             {"GET", "HEAD"},
	"/v1/kyc/profile-sessions":            {"POST"},
	"/v1/kyc/quick":                       {"GET", "HEAD", "POST"},
	"/v1/qrpay/decode":                    {"POST"},
	"/v1/qrpay/payments":                  {"POST"},
	"/v1/qrpay/quotes":                    {"POST"},
	"/v1/qrpay/schemes":                   {"GET", "HEAD"},
	"/v1/remit/conversion-dates":          {"GET", "HEAD"},
	"/v1/remit/payees":                    {"GET", "HEAD", "POST"},
	"/v1/remit/products":                  {"GET", "HEAD"},
	"/v1/remit/quotes":                    {"GET", "HEAD"},
	"/v1/remit/vp/applications/query":     {"POST"},
	"/v1/remittances":                     {"GET", "HEAD", "POST"},
	"/v1/webhooks/deliveries":             {"GET", "HEAD"},
}
