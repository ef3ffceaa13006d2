package simulator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// CollectionCardClosures is the outcome collection of card closures: a card
// in closing converges to closed when its closure succeeds upstream.
const CollectionCardClosures OutcomeCollection = "cards/closures"

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

// cardState is the state of the card line: products, addresses,
// applications, cards, top-ups and transactions.
type cardState struct {
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
	seq           int64  // creation sequence, the tie-break of lists (paginate.go)
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
	seq                int64  // creation sequence, the tie-break of lists (paginate.go)
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
	seq           int64  // creation sequence, the tie-break of lists (paginate.go)
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
	seq              int64  // creation sequence, the tie-break of lists (paginate.go)
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

func (c *simCard) key() pageKey { return pageKey{At: c.CreatedAt, Seq: c.seq} }

func (t *cardTx) key() pageKey { return pageKey{At: t.OccurredAt, Seq: t.seq} }

// unsettled reports whether t is an authorization not yet settled.
func (t *cardTx) unsettled() bool { return t.Kind == "auth" && t.Status == "pending" }

func (s *Simulator) registerCards() {
	cs := &cardState{
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
	}
	var key [32]byte
	for i := 0; i < len(key); i += 8 {
		binary.LittleEndian.PutUint64(key[i:], s.st.rng.Uint64())
	}
	cs.secret = key[:]
	cs.ledgerScale, _ = s.st.cat.scale(cardLedgerAsset)
	for _, p := range fixtureCardProducts() {
		cs.products = append(cs.products, p)
		cs.productByID[p.ID] = p
	}
	s.st.cards = cs
	// The issuer's success paths of what is in flight (outcome.go).
	s.onOutcome(CollectionCardApplications, func(tx *kernel.Tx, id string) {
		if a := s.st.cards.apps[id]; a != nil {
			_ = s.approveCardApplication(tx, a)
		}
	})
	s.onOutcome(CollectionCardClosures, func(tx *kernel.Tx, id string) {
		if c := s.st.cards.cards[id]; c != nil {
			_ = s.completeCardClose(tx, c)
		}
	})
	s.onOutcome(CollectionCardTopups, func(tx *kernel.Tx, id string) {
		if t := s.st.cards.topups[id]; t != nil {
			_ = s.creditCardTopUp(tx, t)
		}
	})
	s.registerCardEndpoints()
	s.registerCardActions()
}

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
func (s *Simulator) memberAddresses(m *member) []*cardAddress {
	cs := s.st.cards
	if a, ok := cs.addresses[m.ID]; ok {
		return a
	}
	list := []*cardAddress{s.newAddress("SG", true), s.newAddress("HK", false)}
	cs.addresses[m.ID] = list
	return list
}

func (s *Simulator) newAddress(country string, def bool) *cardAddress {
	s.st.cards.addrSeq++
	return &cardAddress{ID: fmt.Sprintf("adr_%04d", s.st.cards.addrSeq), Country: country, IsDefault: def}
}

// kycCountryOf is the country of the KYC the member used (default SG).
func (s *Simulator) kycCountryOf(m *member) string {
	if c, ok := s.st.cards.kycCountry[m.ID]; ok {
		return c
	}
	return "SG"
}

// productVisible reports whether a product is listed for the merchant:
// enabled and with an authorized BIN (no authorization rows: unrestricted).
func (s *Simulator) productVisible(p *cardProduct) bool {
	if !p.Enabled {
		return false
	}
	return len(s.st.cards.binAuth) == 0 || s.st.cards.binAuth[p.BIN]
}

// lookupProduct finds a visible product by id with or without cpd_.
func (s *Simulator) lookupProduct(id string) *cardProduct {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !strings.HasPrefix(id, "cpd_") {
		id = "cpd_" + id
	}
	p := s.st.cards.productByID[id]
	if p == nil || !s.productVisible(p) {
		return nil
	}
	return p
}

// cardOf finds member m's card by id with or without crd_; a card of another
// member is not found.
func (s *Simulator) cardOf(m *member, id string) (*simCard, error) {
	c := s.st.cards.cards[withIDPrefix("crd_", id)]
	if c == nil || (m != nil && c.MemberID != m.ID) {
		return nil, errNotFound("card")
	}
	return c, nil
}

func withIDPrefix(prefix, id string) string {
	id = strings.TrimSpace(id)
	if id == "" || strings.HasPrefix(id, prefix) {
		return id
	}
	return prefix + id
}

// digest returns the keyed digest of a secret value of a card (PIN). Only
// the digest is kept.
func (cs *cardState) digest(cardID, purpose, value string) []byte {
	h := hmac.New(sha256.New, cs.secret)
	h.Write([]byte(purpose + "\x00" + cardID + "\x00" + value))
	return h.Sum(nil)
}

// cvv derives a card's CVV from the simulator secret; it is never stored.
func (cs *cardState) cvv(cardID string) string {
	d := cs.digest(cardID, "cvv", "")
	return fmt.Sprintf("%03d", binary.BigEndian.Uint32(d[:4])%1000)
}

// cardBalance is the card's balance in the card currency (scale 2).
func (s *Simulator) cardBalance(c *simCard) money.Amount {
	b := s.st.ledger.Balance(CardAccount(c.ID), cardLedgerAsset)
	if r, err := b.Rescale(cardScale); err == nil {
		return r
	}
	r, _ := parseAmount(b.Display(cardScale), cardScale, decimalSigned)
	return r
}

// memberOfCard returns the member owning c.
func (s *Simulator) memberOfCard(c *simCard) *member { return s.st.members.Get(c.MemberID) }

// cardFunding applies the funding_source rule for the merchant's model:
// merchant_hosted must send merchant; platform_hosted may send member or
// nothing. It returns "member" or "merchant".
func (s *Simulator) cardFunding(v string) (string, error) {
	if s.st.merchant.Model == MerchantHosted {
		if v != "merchant" {
			return "", errInvalidFields("funding_source must be merchant for merchant_hosted accounts", "funding_source")
		}
		return "merchant", nil
	}
	if v != "" && v != "member" {
		return "", errInvalidFields("funding_source must be member (or omitted) for platform_hosted accounts", "funding_source")
	}
	return "member", nil
}

// fundingAccounts names the accounts that pay (available) and hold (locked)
// for a funding source.
func fundingAccounts(funding, memberID string) (avail, locked string) {
	if funding == "merchant" {
		return AccountMerchantPrepaid, AccountMerchantPrepaidLocked
	}
	return MemberAvailable(memberID), MemberLocked(memberID)
}

var timeZero time.Time

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
