// Package cards is the card line of the simulator: /v1/cards (products,
// quotes, applications, cards, their lifecycle, PINs, secure sessions,
// top-ups and transactions) and the issuer's side of it played through the
// control API.
//
// The line owns its state (products, addresses, applications, cards,
// top-ups, sessions, PIN windows, transactions) and its transitions; what
// every line uses (clock, ids, ledger transfers, events, the catalogue) it
// takes from the *kernel.Tx it is handed, and what it needs of the rest of
// the simulator (the merchant, members, KYC, step-up, outcomes, the ledger's
// multi-leg entries and balances) it reaches through Host, which it
// declares.
package cards

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Outcome collections of the card line (the simulator's OutcomeCollection
// names): applications under review, closures and top-ups in flight.
const (
	CollectionApplications = "cards/applications"
	CollectionClosures     = "cards/closures"
	CollectionTopups       = "cards/topups"
)

// Host is what the card line needs of other lines (members, KYC, step-up);
// what every line uses (the clock, ids, the ledger, events, the catalogue,
// the merchant's custody model) is the kernel's, through the transaction.
type Host interface {
	// Member returns the member of a mem_ id, or nil.
	Member(tx *kernel.Tx, id string) *api.Member
	// KYCInReview reports a member whose KYC profile is not approved.
	KYCInReview(tx *kernel.Tx, m *api.Member) bool
	// BindingActive reports whether quick KYC binding id of m is active.
	BindingActive(tx *kernel.Tx, m *api.Member, bindingID string) bool
	// AllocateBinding allocates a quick KYC binding to m (its fee charged)
	// and returns its id.
	AllocateBinding(tx *kernel.Tx, m *api.Member, email string) (string, error)
	// CompensateBinding compensates a quick KYC binding automatically
	// after application applicationID failed upstream.
	CompensateBinding(tx *kernel.Tx, bindingID, applicationID string) error
	// RequireStepUp consumes a completed step-up challenge for action (an
	// api.ActionDigest) or issues one and answers step_up_required.
	RequireStepUp(c *api.Request, action string) error
}

// Line is the card line: its state (part of the state image), its host,
// and what it is built with (the secret and the ledger scale, which never
// change).
type Line struct {
	st          state
	host        Host   `image:"-"`
	secret      []byte `image:"-"` // derives CVVs and PIN digests; never leaves the simulator
	ledgerScale int    `image:"-"` // scale of cardLedgerAsset
}

// New builds the card line with the fixture catalogue, its tables in
// kernel k (filled in the setup transaction tx). secret derives CVVs and
// PIN digests; ledgerScale is the scale of the asset card balances are
// booked in.
func New(k *kernel.Kernel, tx *kernel.Tx, host Host, secret []byte, ledgerScale int) *Line {
	products := kernel.NewTable[string, cardProduct](k, "cards.products")
	apps := kernel.NewTable[string, cardApplication](k, "cards.applications")
	cards := kernel.NewTable[string, simCard](k, "cards.cards")
	txs := kernel.NewTable[string, cardTx](k, "cards.transactions")
	l := &Line{host: host, secret: secret, ledgerScale: ledgerScale, st: state{
		products:   products,
		catalogue:  kernel.NewIndex(products, "by_position", func(p cardProduct) (int, bool) { return p.Pos, true }, cmp.Compare[int]),
		binAuth:    kernel.NewTable[string, bool](k, "cards.bin_authorizations"),
		limits:     kernel.NewTable[string, int](k, "cards.limits"),
		addresses:  kernel.NewTable[string, kernel.List[cardAddress]](k, "cards.addresses"),
		kycCountry: kernel.NewTable[string, string](k, "cards.kyc_countries"),
		penalties:  kernel.NewTable[string, bool](k, "cards.penalties"),
		apps:       apps,
		appByKey: kernel.NewIndex(apps, "by_client_key", func(a cardApplication) (string, bool) {
			return a.MemberID + "\x00" + a.ClientKey, true
		}, strings.Compare),
		cards: cards,
		cardsByMem: kernel.NewIndex(cards, "by_member", func(c simCard) (ownerKey, bool) {
			return ownerKey{c.MemberID, c.key()}, true
		}, compareOwnerKey),
		topups:       kernel.NewTable[string, cardTopUp](k, "cards.topups"),
		sessions:     kernel.NewTable[string, cardSession](k, "cards.sessions"),
		pinCalls:     kernel.NewTable[string, pinWindow](k, "cards.pin_calls"),
		transactions: txs,
		txsOf: kernel.NewIndex(txs, "by_card", func(t cardTx) (ownerKey, bool) {
			return ownerKey{t.CardID, t.key()}, true
		}, compareOwnerKey),
		addrSeq:       kernel.NewCell(k, "cards.address_seq", 0),
		topUpTimeouts: kernel.NewCell(k, "cards.topup_timeouts", 0),
	}}
	for i, p := range fixtureCardProducts() {
		p.Pos = i
		l.st.products.Put(tx, p.ID, p)
	}
	l.st.limits.Put(tx, "virtual", 5)
	l.st.limits.Put(tx, "physical", 1)
	return l
}

// ownerKey orders the rows of one owner (a member's cards, a card's
// transactions) by page key.
type ownerKey struct {
	owner string
	key   api.PageKey
}

func compareOwnerKey(a, b ownerKey) int {
	if c := strings.Compare(a.owner, b.owner); c != 0 {
		return c
	}
	return api.ComparePageKey(a.key, b.key)
}

// ownedRun returns the positions [from, to) of owner's rows in x.
func ownedRun[V any](tx *kernel.Tx, x *kernel.Index[string, V, ownerKey], owner string) (from, to int) {
	from = x.Search(tx, func(k ownerKey) bool { return k.owner >= owner })
	to = x.Search(tx, func(k ownerKey) bool { return k.owner > owner })
	return from, to
}

// owned returns owner's rows in x, ascending by page key.
func owned[V any](tx *kernel.Tx, x *kernel.Index[string, V, ownerKey], owner string) []V {
	from, to := ownedRun(tx, x, owner)
	out := make([]V, 0, to-from)
	if from < to {
		for _, v := range x.Range(tx, from, to) {
			out = append(out, v)
		}
	}
	return out
}

// pinWindow is a member's PIN calls within the window; Held says the
// window was kept as a list once (an empty list, not none).
type pinWindow struct {
	Calls kernel.List[time.Time]
	Held  bool
}

// LedgerAsset is the asset card balances are booked in (par with USD).
const LedgerAsset = cardLedgerAsset

// SucceedApplication is the issuer's success path of an application in
// flight (outcome collection cards/applications); an error is the
// approval's, which undoes what it did.
func (l *Line) SucceedApplication(tx *kernel.Tx, id string) error {
	if a, ok := l.st.apps.Get(tx, id); ok {
		return l.approveCardApplication(tx, &a)
	}
	return nil
}

// SucceedClosure is the issuer's success path of a closure in flight.
func (l *Line) SucceedClosure(tx *kernel.Tx, id string) error {
	if c, ok := l.st.cards.Get(tx, id); ok {
		return l.completeCardClose(tx, &c)
	}
	return nil
}

// SucceedTopUp is the issuer's success path of a top-up in flight.
func (l *Line) SucceedTopUp(tx *kernel.Tx, id string) error {
	if t, ok := l.st.topups.Get(tx, id); ok {
		return l.creditCardTopUp(tx, &t)
	}
	return nil
}

// emit records an event about a card-line object for member m (none when
// nil).
func (l *Line) emit(tx *kernel.Tx, typ, object, id string, m *api.Member, status string, version int64) {
	e := kernel.Event{Type: typ, Object: object, ObjectID: id, Status: status, Version: version}
	if m != nil {
		e.MemberID = m.ID
	}
	tx.Emit(e)
}

// cardAccount is the ledger account of a card's balance (the simulator's
// CardAccount); upstreamAccount is an upstream's (UpstreamAccount).
func cardAccount(cardID string) string { return "card:" + cardID }

func upstreamAccount(line string) string { return "upstream:" + line }

// Card-line constants of the simulator.
const (
	cardCurrency      = "USD"
	cardScale         = 2
	cardLedgerAsset   = "USDT" // the asset card balances are booked in (par with USD)
	cardPINLength     = 6
	cardActivationMax = 3 // counted failures before the lock
	cardLockWindow    = 24 * time.Hour
	cardPINQuota      = 5 // PIN calls per member per hour
	cardPINWindow     = time.Hour
	secureSessionTTL  = 5 * time.Minute
)

// state is the state of the card line: products, addresses,
// applications, cards, top-ups and transactions.
type state struct {
	products     *kernel.Table[string, cardProduct] // by cpd_ id
	catalogue    *kernel.Index[string, cardProduct, int]
	binAuth      *kernel.Table[string, bool]                     // authorized BINs; none means unrestricted
	limits       *kernel.Table[string, int]                      // form factor -> cards per member
	addresses    *kernel.Table[string, kernel.List[cardAddress]] // member id -> shipping addresses
	kycCountry   *kernel.Table[string, string]                   // member id -> country of the KYC used
	penalties    *kernel.Table[string, bool]                     // member id -> outstanding penalties
	apps         *kernel.Table[string, cardApplication]          // by cap_ id
	appByKey     *kernel.Index[string, cardApplication, string]  // member id + client_key
	cards        *kernel.Table[string, simCard]                  // by crd_ id
	cardsByMem   *kernel.Index[string, simCard, ownerKey]        // member id, then ascending by creation
	topups       *kernel.Table[string, cardTopUp]                // by ctp_ id
	sessions     *kernel.Table[string, cardSession]              // secure sessions by id
	pinCalls     *kernel.Table[string, pinWindow]                // member id -> PIN calls within the window
	transactions *kernel.Table[string, cardTx]                   // by ctx_ id
	txsOf        *kernel.Index[string, cardTx, ownerKey]         // card id, then ascending by occurred_at
	addrSeq      *kernel.Cell[int]
	// topUpTimeouts counts the next top-ups whose upstream call times out
	// after the hold (CardsControl.TimeoutNextTopUps).
	topUpTimeouts *kernel.Cell[int]
}

// cardProduct is a card product of the fixture.
type cardProduct struct {
	ID              string
	FormFactor      string // virtual_card or physical_card
	BIN             string
	Scheme          string
	LimitsUpdatable bool
	CardTypes       kernel.List[string]
	Enabled         bool
	ManualReview    bool
	KYCLevel        int
	FeeAsset        string
	IssueFee        string
	MinFirstTopUp   string
	ShippingFees    kernel.List[shippingFee] // by country (physical only)
	MinTopUp        string
	MaxTopUp        string
	TopUpFeeBps     int64
	SourceAssets    kernel.List[string]
	BlockedKYC      kernel.List[string] // KYC countries that cannot apply
	Pos             int                 // place in the catalogue
}

// shippingFee is what a physical product costs to ship to a country.
type shippingFee struct{ Country, Fee string }

func (p *cardProduct) physical() bool { return p.FormFactor == "physical_card" }

// formFactor is the application and card vocabulary of the product's form factor.
func (p *cardProduct) formFactor() string {
	if p.physical() {
		return "physical"
	}
	return "virtual"
}

func (p *cardProduct) allows(asset string) bool {
	return p.SourceAssets.Index(func(a string) bool { return a == asset }) >= 0
}

// shippingTo is the fee to ship to country, if the product ships there.
func (p *cardProduct) shippingTo(country string) (string, bool) {
	i := p.ShippingFees.Index(func(f shippingFee) bool { return f.Country == country })
	if i < 0 {
		return "", false
	}
	return p.ShippingFees.At(i).Fee, true
}

// blocksKYC reports a KYC country that cannot apply.
func (p *cardProduct) blocksKYC(country string) bool {
	return p.BlockedKYC.Index(func(c string) bool { return c == country }) >= 0
}

// cardAddress is a member's shipping address (only id, country and default
// flag matter to the contract).
type cardAddress struct {
	ID        string
	Country   string
	IsDefault bool
}

// cardApplication is a card application.
type cardApplication struct {
	Seq           int64  // creation sequence, the tie-break of lists (api.PageKey)
	ID            string // cap_<uuid>
	MemberID      string
	ProductID     string
	FormFactor    string // virtual or physical
	Status        string // pending_review, submitted, issued, rejected
	StatusVersion int64
	ClientKey     string
	SourceAsset   string
	Funding       string // member or merchant
	Fee           money.Amount
	Shipping      money.Amount
	FirstTopUp    money.Amount // zero when none
	Address       cardAddress  // snapshot (physical, HasAddress)
	HasAddress    bool
	// QuickBindingID is the quick KYC binding the application used, if any.
	QuickBindingID string
	// RejectReason says why an approval was turned into a rejection (a
	// gate of cardIssuanceBlocker); empty otherwise.
	RejectReason string
	CardID       string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// simCard is a card. It never holds a card number, PIN or CVV in clear.
// Its transactions are rows of their own (txsOf).
type simCard struct {
	Seq                int64  // creation sequence, the tie-break of lists (api.PageKey)
	ID                 string // crd_<uuid>
	MemberID           string
	ProductID          string
	ApplicationID      string
	FormFactor         string // virtual or physical
	Status             string
	StatusVersion      int64
	Inventory          string // physical: manufacturing, shipped
	Last4              string
	ExpMonth, ExpYear  int
	PINDigest          string // HMAC of the PIN; empty until set
	PINSetBy           string // activation or pin
	Failures           int    // counted activation failures
	LockedUntil        time.Time
	UpstreamUnreadable bool
	UpstreamCloseCalls int
	CloseReason        string
	LostKind           string
	ReplacedBy         string // the replacement card, once replaced
	CreatedAt          time.Time
	UpdatedAt          time.Time

	// UpstreamRefusesClose makes the issuer refuse close requests
	// (state_invalid; CardsControl.SetCloseRefused).
	UpstreamRefusesClose bool
}

// cardTopUp is a top-up order.
type cardTopUp struct {
	Seq           int64  // creation sequence, the tie-break of lists (api.PageKey)
	ID            string // ctp_<uuid>
	CardID        string
	MemberID      string
	Asset         string
	Funding       string
	Amount        money.Amount // base amount, credited to the card
	Fee           money.Amount
	Status        string // processing, completed, failed
	StatusVersion int64
	TimedOut      bool
	CreatedAt     time.Time
}

// cardSession is an open secure session: its hosted page, not its token, is
// kept (the token is handed out once).
type cardSession struct {
	ID        string
	CardID    string
	ExpiresAt time.Time
}

// cardTx is a card transaction as stored.
type cardTx struct {
	Seq              int64  // creation sequence, the tie-break of lists (api.PageKey)
	ID               string // ctx_<uuid>
	CardID           string
	Kind             string
	Status           string
	Direction        string
	Amount           string
	Currency         string
	Scale            int
	OriginalAmount   string
	OriginalCurrency string
	BillAmount       string // empty when unknown
	BankFee          string
	ZinfraFee        string
	FeeCurrency      string
	FeeScale         int
	MerchantName     string
	MCC              string
	AuthCode         string
	OccurredAt       time.Time
	Booked           bool // the balance effect was posted
	Version          int64
}

func (c *simCard) key() api.PageKey { return api.PageKey{At: c.CreatedAt, Seq: c.Seq} }

func (t *cardTx) key() api.PageKey { return api.PageKey{At: t.OccurredAt, Seq: t.Seq} }

// unsettled reports whether t is an authorization not yet settled.
func (t *cardTx) unsettled() bool { return t.Kind == "auth" && t.Status == "pending" }

// fixtureCardProducts is the default card catalogue: virtual and physical,
// automatic and manual review, L1 and L2, with and without a minimum first
// top-up.
func fixtureCardProducts() []cardProduct {
	return []cardProduct{
		{ID: "cpd_virtual_std", FormFactor: "virtual_card", BIN: "489012", Scheme: "visa", LimitsUpdatable: true,
			CardTypes: kernel.ListOf("prepaid"), Enabled: true, KYCLevel: 1, FeeAsset: "USDT",
			IssueFee: "5", MinFirstTopUp: "0", MinTopUp: "10", MaxTopUp: "10000", TopUpFeeBps: 100,
			SourceAssets: kernel.ListOf("USDT", "USDC")},
		{ID: "cpd_virtual_review", FormFactor: "virtual_card", BIN: "489013", Scheme: "visa", LimitsUpdatable: false,
			CardTypes: kernel.ListOf("prepaid"), Enabled: true, ManualReview: true, KYCLevel: 1, FeeAsset: "USDT",
			IssueFee: "10", MinFirstTopUp: "20", MinTopUp: "10", MaxTopUp: "5000", TopUpFeeBps: 100,
			SourceAssets: kernel.ListOf("USDT"), BlockedKYC: kernel.ListOf("US")},
		{ID: "cpd_virtual_premium", FormFactor: "virtual_card", BIN: "531993", Scheme: "mastercard", LimitsUpdatable: true,
			CardTypes: kernel.ListOf("prepaid", "premium"), Enabled: true, KYCLevel: 2, FeeAsset: "USDT",
			IssueFee: "50", MinFirstTopUp: "100", MinTopUp: "10", MaxTopUp: "50000", TopUpFeeBps: 50,
			SourceAssets: kernel.ListOf("USDT", "USDC")},
		{ID: "cpd_physical_std", FormFactor: "physical_card", BIN: "531994", Scheme: "mastercard", LimitsUpdatable: true,
			CardTypes: kernel.ListOf("prepaid"), Enabled: true, ManualReview: true, KYCLevel: 1, FeeAsset: "USDT",
			IssueFee: "25", MinFirstTopUp: "0", MinTopUp: "10", MaxTopUp: "10000", TopUpFeeBps: 100,
			ShippingFees: kernel.ListOf(shippingFee{"HK", "20"}, shippingFee{"SG", "15"}, shippingFee{"US", "30"}),
			SourceAssets: kernel.ListOf("USDT", "USDC")},
	}
}

// --- helpers shared by the card files ---------------------------------------

// memberAddresses returns m's shipping addresses, creating the fixture pair
// (SG default, HK) on first use.
func (l *Line) memberAddresses(tx *kernel.Tx, memberID string) []cardAddress {
	if a, ok := l.st.addresses.Get(tx, memberID); ok {
		return a.Slice()
	}
	list := []cardAddress{l.newAddress(tx, "SG", true), l.newAddress(tx, "HK", false)}
	l.st.addresses.Put(tx, memberID, kernel.ListOf(list...))
	return list
}

func (l *Line) newAddress(tx *kernel.Tx, country string, def bool) cardAddress {
	n := l.st.addrSeq.Get(tx) + 1
	l.st.addrSeq.Set(tx, n)
	return cardAddress{ID: fmt.Sprintf("adr_%04d", n), Country: country, IsDefault: def}
}

// kycCountryOf is the country of the KYC the member used (default SG).
func (l *Line) kycCountryOf(tx *kernel.Tx, m *api.Member) string {
	if c, ok := l.st.kycCountry.Get(tx, m.ID); ok {
		return c
	}
	return "SG"
}

// productVisible reports whether a product is listed for the merchant:
// enabled and with an authorized BIN (no authorization rows: unrestricted).
func (l *Line) productVisible(tx *kernel.Tx, p *cardProduct) bool {
	if !p.Enabled {
		return false
	}
	if l.st.binAuth.Len(tx) == 0 {
		return true
	}
	ok, _ := l.st.binAuth.Get(tx, p.BIN)
	return ok
}

// product finds a product by its exact id (visible or not).
func (l *Line) product(tx *kernel.Tx, id string) *cardProduct {
	if p, ok := l.st.products.Get(tx, id); ok {
		return &p
	}
	return nil
}

// lookupProduct finds a visible product by id with or without cpd_.
func (l *Line) lookupProduct(tx *kernel.Tx, id string) *cardProduct {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !strings.HasPrefix(id, "cpd_") {
		id = "cpd_" + id
	}
	p := l.product(tx, id)
	if p == nil || !l.productVisible(tx, p) {
		return nil
	}
	return p
}

// cardOf finds member m's card by id with or without crd_; a card of another
// member is not found. The card is a copy: putCard writes it back.
func (l *Line) cardOf(tx *kernel.Tx, m *api.Member, id string) (*simCard, error) {
	c, ok := l.st.cards.Get(tx, WithIDPrefix("crd_", id))
	if !ok || (m != nil && c.MemberID != m.ID) {
		return nil, api.NotFound("card")
	}
	return &c, nil
}

// putCard, putApp and putTopUp write a changed copy back.
func (l *Line) putCard(tx *kernel.Tx, c *simCard)               { l.st.cards.Put(tx, c.ID, *c) }
func (l *Line) putApp(tx *kernel.Tx, a *cardApplication)        { l.st.apps.Put(tx, a.ID, *a) }
func (l *Line) putTopUp(tx *kernel.Tx, t *cardTopUp)            { l.st.topups.Put(tx, t.ID, *t) }
func (l *Line) txsOfCard(tx *kernel.Tx, cardID string) []cardTx { return owned(tx, l.st.txsOf, cardID) }

// WithIDPrefix puts prefix before a bare id; an id that has it (or is
// empty) stays as it is.
func WithIDPrefix(prefix, id string) string {
	id = strings.TrimSpace(id)
	if id == "" || strings.HasPrefix(id, prefix) {
		return id
	}
	return prefix + id
}

// digest returns the keyed digest of a secret value of a card (PIN). Only
// the digest is kept.
func (l *Line) digest(cardID, purpose, value string) string {
	h := hmac.New(sha256.New, l.secret)
	h.Write([]byte(purpose + "\x00" + cardID + "\x00" + value))
	return string(h.Sum(nil))
}

// cvv derives a card's CVV from the simulator secret; it is never stored.
func (l *Line) cvv(cardID string) string {
	d := l.digest(cardID, "cvv", "")
	return fmt.Sprintf("%03d", binary.BigEndian.Uint32([]byte(d[:4]))%1000)
}

// cardBalance is the card's balance in the card currency (scale 2).
func (l *Line) cardBalance(tx *kernel.Tx, c *simCard) money.Amount {
	b := tx.Balance(cardAccount(c.ID), cardLedgerAsset)
	if r, err := b.Rescale(cardScale); err == nil {
		return r
	}
	r, _ := money.Parse(b.Display(cardScale), cardScale)
	return r
}

// cardFunding applies the funding_source rule for the merchant's model:
// merchant_hosted must send merchant; platform_hosted may send member or
// nothing. It returns "member" or "merchant".
func (l *Line) cardFunding(tx *kernel.Tx, v string) (string, error) {
	if tx.MerchantHosted() {
		if v != "merchant" {
			return "", api.InvalidFields("funding_source must be merchant for merchant_hosted accounts", "funding_source")
		}
		return "merchant", nil
	}
	if v != "" && v != "member" {
		return "", api.InvalidFields("funding_source must be member (or omitted) for platform_hosted accounts", "funding_source")
	}
	return "member", nil
}

// fundingAccounts names the accounts that pay (available) and hold (locked)
// for a funding source.
func fundingAccounts(funding, memberID string) (avail, locked string) {
	if funding == "merchant" {
		return kernel.AccountMerchantPrepaid, kernel.AccountMerchantPrepaidLocked
	}
	return kernel.MemberAvailable(memberID), kernel.MemberLocked(memberID)
}
