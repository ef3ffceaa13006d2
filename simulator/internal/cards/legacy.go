package cards

import (
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The card line as the state image of recordings of versions 1 and 2 held
// it: the projection of its tables.

// Legacy is the card line as the state image of recordings of versions 1
// and 2 held it.
type Legacy struct{ st legacyState }

type legacyState struct {
	products      []*legacyCardProduct
	productByID   map[string]*legacyCardProduct
	binAuth       map[string]bool
	limits        map[string]int
	addresses     map[string][]*cardAddress
	kycCountry    map[string]string
	penalties     map[string]bool
	apps          map[string]*legacyCardApplication
	appByKey      map[string]*legacyCardApplication
	cards         map[string]*legacySimCard
	cardsByMem    map[string][]*legacySimCard
	topups        map[string]*cardTopUp
	sessions      map[string]*cardSession
	pinCalls      map[string][]time.Time
	secret        []byte
	transactions  map[string]*cardTx
	ledgerScale   int
	addrSeq       int
	topUpTimeouts int
}

type legacyCardProduct struct {
	ID              string
	FormFactor      string
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
	ShippingFees    map[string]string
	MinTopUp        string
	MaxTopUp        string
	TopUpFeeBps     int64
	SourceAssets    []string
	BlockedKYC      map[string]bool
}

type legacyCardApplication struct {
	seq            int64
	ID             string
	MemberID       string
	ProductID      string
	FormFactor     string
	Status         string
	StatusVersion  int64
	ClientKey      string
	SourceAsset    string
	Funding        string
	Fee            money.Amount
	Shipping       money.Amount
	FirstTopUp     money.Amount
	Address        *cardAddress
	QuickBindingID string
	RejectReason   string
	CardID         string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

type legacySimCard struct {
	seq                  int64
	ID                   string
	MemberID             string
	ProductID            string
	ApplicationID        string
	FormFactor           string
	Status               string
	StatusVersion        int64
	Inventory            string
	Last4                string
	ExpMonth, ExpYear    int
	PINDigest            []byte
	PINSetBy             string
	Failures             int
	LockedUntil          time.Time
	UpstreamUnreadable   bool
	UpstreamCloseCalls   int
	CloseReason          string
	LostKind             string
	ReplacedBy           string
	CreatedAt            time.Time
	UpdatedAt            time.Time
	txs                  []*cardTx
	UpstreamRefusesClose bool
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it.
func (l *Line) Legacy(tx *kernel.Tx) *Legacy {
	st := legacyState{
		productByID: map[string]*legacyCardProduct{}, binAuth: map[string]bool{}, limits: map[string]int{},
		addresses: map[string][]*cardAddress{}, kycCountry: map[string]string{}, penalties: map[string]bool{},
		apps: map[string]*legacyCardApplication{}, appByKey: map[string]*legacyCardApplication{}, cards: map[string]*legacySimCard{},
		cardsByMem: map[string][]*legacySimCard{}, topups: map[string]*cardTopUp{}, sessions: map[string]*cardSession{},
		pinCalls: map[string][]time.Time{}, secret: l.secret, transactions: map[string]*cardTx{},
		ledgerScale: l.ledgerScale, addrSeq: l.st.addrSeq.Get(tx), topUpTimeouts: l.st.topUpTimeouts.Get(tx),
	}
	for _, p := range l.st.catalogue.All(tx) {
		lp := &legacyCardProduct{
			ID: p.ID, FormFactor: p.FormFactor, BIN: p.BIN, Scheme: p.Scheme, LimitsUpdatable: p.LimitsUpdatable,
			CardTypes: p.CardTypes.Slice(), Enabled: p.Enabled, ManualReview: p.ManualReview, KYCLevel: p.KYCLevel,
			FeeAsset: p.FeeAsset, IssueFee: p.IssueFee, MinFirstTopUp: p.MinFirstTopUp, MinTopUp: p.MinTopUp,
			MaxTopUp: p.MaxTopUp, TopUpFeeBps: p.TopUpFeeBps, SourceAssets: p.SourceAssets.Slice(),
		}
		if p.ShippingFees.Len() > 0 {
			lp.ShippingFees = map[string]string{}
			for f := range p.ShippingFees.Values() {
				lp.ShippingFees[f.Country] = f.Fee
			}
		}
		if p.BlockedKYC.Len() > 0 {
			lp.BlockedKYC = map[string]bool{}
			for c := range p.BlockedKYC.Values() {
				lp.BlockedKYC[c] = true
			}
		}
		st.products = append(st.products, lp)
		st.productByID[p.ID] = lp
	}
	for k, v := range l.st.binAuth.All(tx) {
		st.binAuth[k] = v
	}
	for k, v := range l.st.limits.All(tx) {
		st.limits[k] = v
	}
	for k, list := range l.st.addresses.All(tx) {
		for a := range list.Values() {
			st.addresses[k] = append(st.addresses[k], &a)
		}
	}
	for k, v := range l.st.kycCountry.All(tx) {
		st.kycCountry[k] = v
	}
	for k, v := range l.st.penalties.All(tx) {
		st.penalties[k] = v
	}
	for id, a := range l.st.apps.All(tx) {
		la := &legacyCardApplication{
			seq: a.Seq, ID: a.ID, MemberID: a.MemberID, ProductID: a.ProductID, FormFactor: a.FormFactor, Status: a.Status,
			StatusVersion: a.StatusVersion, ClientKey: a.ClientKey, SourceAsset: a.SourceAsset, Funding: a.Funding, Fee: a.Fee,
			Shipping: a.Shipping, FirstTopUp: a.FirstTopUp, QuickBindingID: a.QuickBindingID, RejectReason: a.RejectReason,
			CardID: a.CardID, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		}
		if a.HasAddress {
			addr := a.Address
			la.Address = &addr
		}
		st.apps[id] = la
		st.appByKey[a.MemberID+"\x00"+a.ClientKey] = la
	}
	for id, t := range l.st.transactions.All(tx) {
		st.transactions[id] = &t
	}
	for _, c := range l.st.cardsByMem.All(tx) {
		lc := &legacySimCard{
			seq: c.Seq, ID: c.ID, MemberID: c.MemberID, ProductID: c.ProductID, ApplicationID: c.ApplicationID,
			FormFactor: c.FormFactor, Status: c.Status, StatusVersion: c.StatusVersion, Inventory: c.Inventory, Last4: c.Last4,
			ExpMonth: c.ExpMonth, ExpYear: c.ExpYear, PINSetBy: c.PINSetBy, Failures: c.Failures, LockedUntil: c.LockedUntil,
			UpstreamUnreadable: c.UpstreamUnreadable, UpstreamCloseCalls: c.UpstreamCloseCalls, CloseReason: c.CloseReason,
			LostKind: c.LostKind, ReplacedBy: c.ReplacedBy, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
			UpstreamRefusesClose: c.UpstreamRefusesClose,
		}
		if c.PINDigest != "" {
			lc.PINDigest = []byte(c.PINDigest)
		}
		for _, t := range l.txsOfCard(tx, c.ID) {
			lc.txs = append(lc.txs, st.transactions[t.ID])
		}
		st.cards[c.ID] = lc
		st.cardsByMem[c.MemberID] = append(st.cardsByMem[c.MemberID], lc)
	}
	for id, t := range l.st.topups.All(tx) {
		st.topups[id] = &t
	}
	for id, ss := range l.st.sessions.All(tx) {
		st.sessions[id] = &ss
	}
	for k, w := range l.st.pinCalls.All(tx) {
		calls := w.Calls.Slice()
		if calls == nil && w.Held {
			calls = []time.Time{}
		}
		st.pinCalls[k] = calls
	}
	return &Legacy{st: st}
}
