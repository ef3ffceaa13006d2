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

// Host is what the card line needs of the rest of the simulator.
type Host interface {
	// URL is the simulator's base URL (hosted pages).
	URL() string
	// MerchantHosted reports a merchant_hosted merchant (funding rules).
	MerchantHosted() bool
	// Member returns the member of a mem_ id, or nil.
	Member(id string) *api.Member
	// Restricted reports a member that may not move money out (suspended,
	// blocklisted, banned, frozen).
	Restricted(m *api.Member) bool
	// KYCInReview reports a member whose KYC profile is not approved.
	KYCInReview(m *api.Member) bool
	// BindingActive reports whether quick KYC binding id of m is active.
	BindingActive(m *api.Member, bindingID string) bool
	// AllocateBinding allocates a quick KYC binding to m (its fee charged)
	// and returns its id.
	AllocateBinding(tx *kernel.Tx, m *api.Member, email string) (string, error)
	// CompensateBinding compensates a quick KYC binding automatically
	// after application applicationID failed upstream.
	CompensateBinding(tx *kernel.Tx, bindingID, applicationID string) error
	// QuickKYCFee is the asset and amount of a quick KYC binding's fee.
	QuickKYCFee() (asset, amount string)
	// RequireStepUp checks the request's step-up for the action named by
	// parts.
	RequireStepUp(c *api.Request, parts ...string) error
	// DisplayScale is the display scale of a catalogue asset.
	DisplayScale(asset string) int
	// Balance is an account's ledger balance of asset.
	Balance(account, asset string) money.Amount
	// Post posts one balanced ledger entry of several legs; an error
	// changes nothing.
	Post(tx *kernel.Tx, at time.Time, memo string, postings ...Posting) error
	// InsufficientFunds reports an error of Post or Transfer that is the
	// ledger refusing to overdraw an account.
	InsufficientFunds(err error) bool
	// RandIntN draws from the simulator's seeded source, in [0, n).
	RandIntN(n int) int
}

// Posting is one leg of a ledger entry.
type Posting struct {
	Account string
	Asset   string
	Amount  money.Amount
}

// Line is the card line: its state (part of the state image) and its host.
type Line struct {
	st   state
	host Host `image:"-"`
}

// New builds the card line with the fixture catalogue. secret derives CVVs
// and PIN digests; ledgerScale is the scale of the asset card balances are
// booked in.
func New(host Host, secret []byte, ledgerScale int) *Line {
	l := &Line{host: host, st: state{
		productByID:  map[string]*cardProduct{},
		binAuth:      map[string]bool{},
		limits:       map[string]int{"virtual": 5, "physical": 1},
		addresses:    map[string][]*cardAddress{},
		kycCountry:   map[string]string{},
		penalties:    map[string]bool{},
		apps:         map[string]*cardApplication{},
		appByKey:     map[string]*cardApplication{},
		cards:        map[string]*simCard{},
		cardsByMem:   map[string][]*simCard{},
		topups:       map[string]*cardTopUp{},
		pinCalls:     map[string][]time.Time{},
		sessions:     map[string]*cardSession{},
		transactions: map[string]*cardTx{},
		secret:       secret,
		ledgerScale:  ledgerScale,
	}}
	for _, p := range fixtureCardProducts() {
		l.st.products = append(l.st.products, p)
		l.st.productByID[p.ID] = p
	}
	return l
}

// LedgerAsset is the asset card balances are booked in (par with USD).
const LedgerAsset = cardLedgerAsset

// SucceedApplication is the issuer's success path of an application in
// flight (outcome collection cards/applications).
func (l *Line) SucceedApplication(tx *kernel.Tx, id string) {
	if a := l.st.apps[id]; a != nil {
		_ = l.approveCardApplication(tx, a)
	}
}

// SucceedClosure is the issuer's success path of a closure in flight.
func (l *Line) SucceedClosure(tx *kernel.Tx, id string) {
	if c := l.st.cards[id]; c != nil {
		_ = l.completeCardClose(tx, c)
	}
}

// SucceedTopUp is the issuer's success path of a top-up in flight.
func (l *Line) SucceedTopUp(tx *kernel.Tx, id string) {
	if t := l.st.topups[id]; t != nil {
		_ = l.creditCardTopUp(tx, t)
	}
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
	products     []*cardProduct
	productByID  map[string]*cardProduct
	binAuth      map[string]bool             // authorized BINs; empty means unrestricted
	limits       map[string]int              // form factor -> cards per member
	addresses    map[string][]*cardAddress   // member id -> shipping addresses
	kycCountry   map[string]string           // member id -> country of the KYC used
	penalties    map[string]bool             // member id -> outstanding penalties
	apps         map[string]*cardApplication // by cap_ id
	appByKey     map[string]*cardApplication // member id + client_key
	cards        map[string]*simCard         // by crd_ id
	cardsByMem   map[string][]*simCard       // member id -> cards, ascending by creation
	topups       map[string]*cardTopUp       // by ctp_ id
	sessions     map[string]*cardSession     // secure sessions by id
	pinCalls     map[string][]time.Time      // member id -> PIN calls within the window
	secret       []byte                      // derives CVVs and PIN digests; never leaves the simulator
	transactions map[string]*cardTx          // by ctx_ id
	ledgerScale  int                         // scale of cardLedgerAsset
	addrSeq      int
	// topUpTimeouts counts the next top-ups whose upstream call times out
	// after the hold (CardsControl.TimeoutNextTopUps).
	topUpTimeouts int
}

// cardProduct is a card product of the fixture.
type cardProduct struct {
	ID              string
	FormFactor      string // virtual_card or physical_card
	BIN             string
	Scheme          string
	LimitsUpdatable bool
	CardTypes       []string
	Enabled         bool
	ManualReview    bool
	KYCLevel        int
	FeeAsset        string
	IssueFee        string
	MinFirstTopUp   string
	ShippingFees    map[string]string // country -> fee (physical only)
	MinTopUp        string
	MaxTopUp        string
	TopUpFeeBps     int64
	SourceAssets    []string
	BlockedKYC      map[string]bool // KYC countries that cannot apply
}

func (p *cardProduct) physical() bool { return p.FormFactor == "physical_card" }

// formFactor is the application and card vocabulary of the product's form factor.
func (p *cardProduct) formFactor() string {
	if p.physical() {
		return "physical"
	}
	return "virtual"
}

func (p *cardProduct) allows(asset string) bool {
	for _, a := range p.SourceAssets {
		if a == asset {
			return true
		}
	}
	return false
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
	seq           int64  // creation sequence, the tie-break of lists (api.PageKey)
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
	Address       *cardAddress // snapshot (physical)
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
type simCard struct {
	seq                int64  // creation sequence, the tie-break of lists (api.PageKey)
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
	PINDigest          []byte // HMAC of the PIN; nil until set
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
	txs                []*cardTx // ascending by occurred_at

	// UpstreamRefusesClose makes the issuer refuse close requests
	// (state_invalid; CardsControl.SetCloseRefused).
	UpstreamRefusesClose bool
}

// cardTopUp is a top-up order.
type cardTopUp struct {
	seq           int64  // creation sequence, the tie-break of lists (api.PageKey)
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
	seq              int64  // creation sequence, the tie-break of lists (api.PageKey)
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

func (c *simCard) key() api.PageKey { return api.PageKey{At: c.CreatedAt, Seq: c.seq} }

func (t *cardTx) key() api.PageKey { return api.PageKey{At: t.OccurredAt, Seq: t.seq} }

// unsettled reports whether t is an authorization not yet settled.
func (t *cardTx) unsettled() bool { return t.Kind == "auth" && t.Status == "pending" }

// fixtureCardProducts is the default card catalogue: virtual and physical,
// automatic and manual review, L1 and L2, with and without a minimum first
// top-up.
func fixtureCardProducts() []*cardProduct {
	return []*cardProduct{
		{ID: "cpd_virtual_std", FormFactor: "virtual_card", BIN: "489012", Scheme: "visa", LimitsUpdatable: true,
			CardTypes: []string{"prepaid"}, Enabled: true, KYCLevel: 1, FeeAsset: "USDT",
			IssueFee: "5", MinFirstTopUp: "0", MinTopUp: "10", MaxTopUp: "10000", TopUpFeeBps: 100,
			SourceAssets: []string{"USDT", "USDC"}},
		{ID: "cpd_virtual_review", FormFactor: "virtual_card", BIN: "489013", Scheme: "visa", LimitsUpdatable: false,
			CardTypes: []string{"prepaid"}, Enabled: true, ManualReview: true, KYCLevel: 1, FeeAsset: "USDT",
			IssueFee: "10", MinFirstTopUp: "20", MinTopUp: "10", MaxTopUp: "5000", TopUpFeeBps: 100,
			SourceAssets: []string{"USDT"}, BlockedKYC: map[string]bool{"US": true}},
		{ID: "cpd_virtual_premium", FormFactor: "virtual_card", BIN: "531993", Scheme: "mastercard", LimitsUpdatable: true,
			CardTypes: []string{"prepaid", "premium"}, Enabled: true, KYCLevel: 2, FeeAsset: "USDT",
			IssueFee: "50", MinFirstTopUp: "100", MinTopUp: "10", MaxTopUp: "50000", TopUpFeeBps: 50,
			SourceAssets: []string{"USDT", "USDC"}},
		{ID: "cpd_physical_std", FormFactor: "physical_card", BIN: "531994", Scheme: "mastercard", LimitsUpdatable: true,
			CardTypes: []string{"prepaid"}, Enabled: true, ManualReview: true, KYCLevel: 1, FeeAsset: "USDT",
			IssueFee: "25", MinFirstTopUp: "0", MinTopUp: "10", MaxTopUp: "10000", TopUpFeeBps: 100,
			ShippingFees: map[string]string{"SG": "15", "HK": "20", "US": "30"},
			SourceAssets: []string{"USDT", "USDC"}},
	}
}

// --- helpers shared by the card files ---------------------------------------

// memberAddresses returns m's shipping addresses, creating the fixture pair
// (SG default, HK) on first use.
func (l *Line) memberAddresses(memberID string) []*cardAddress {
	cs := &l.st
	if a, ok := cs.addresses[memberID]; ok {
		return a
	}
	list := []*cardAddress{l.newAddress("SG", true), l.newAddress("HK", false)}
	cs.addresses[memberID] = list
	return list
}

func (l *Line) newAddress(country string, def bool) *cardAddress {
	l.st.addrSeq++
	return &cardAddress{ID: fmt.Sprintf("adr_%04d", l.st.addrSeq), Country: country, IsDefault: def}
}

// kycCountryOf is the country of the KYC the member used (default SG).
func (l *Line) kycCountryOf(m *api.Member) string {
	if c, ok := l.st.kycCountry[m.ID]; ok {
		return c
	}
	return "SG"
}

// productVisible reports whether a product is listed for the merchant:
// enabled and with an authorized BIN (no authorization rows: unrestricted).
func (l *Line) productVisible(p *cardProduct) bool {
	if !p.Enabled {
		return false
	}
	return len(l.st.binAuth) == 0 || l.st.binAuth[p.BIN]
}

// lookupProduct finds a visible product by id with or without cpd_.
func (l *Line) lookupProduct(id string) *cardProduct {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !strings.HasPrefix(id, "cpd_") {
		id = "cpd_" + id
	}
	p := l.st.productByID[id]
	if p == nil || !l.productVisible(p) {
		return nil
	}
	return p
}

// cardOf finds member m's card by id with or without crd_; a card of another
// member is not found.
func (l *Line) cardOf(m *api.Member, id string) (*simCard, error) {
	c := l.st.cards[WithIDPrefix("crd_", id)]
	if c == nil || (m != nil && c.MemberID != m.ID) {
		return nil, api.NotFound("card")
	}
	return c, nil
}

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
func (cs *state) digest(cardID, purpose, value string) []byte {
	h := hmac.New(sha256.New, cs.secret)
	h.Write([]byte(purpose + "\x00" + cardID + "\x00" + value))
	return h.Sum(nil)
}

// cvv derives a card's CVV from the simulator secret; it is never stored.
func (cs *state) cvv(cardID string) string {
	d := cs.digest(cardID, "cvv", "")
	return fmt.Sprintf("%03d", binary.BigEndian.Uint32(d[:4])%1000)
}

// cardBalance is the card's balance in the card currency (scale 2).
func (l *Line) cardBalance(c *simCard) money.Amount {
	b := l.host.Balance(cardAccount(c.ID), cardLedgerAsset)
	if r, err := b.Rescale(cardScale); err == nil {
		return r
	}
	r, _ := money.Parse(b.Display(cardScale), cardScale)
	return r
}

// cardFunding applies the funding_source rule for the merchant's model:
// merchant_hosted must send merchant; platform_hosted may send member or
// nothing. It returns "member" or "merchant".
func (l *Line) cardFunding(v string) (string, error) {
	if l.host.MerchantHosted() {
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

var timeZero time.Time

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
