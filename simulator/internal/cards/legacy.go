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
type Legacy struct{ St legacyState }

type legacyState struct {
	Products      []*legacyCardProduct
	ProductByID   map[string]*legacyCardProduct
	BinAuth       map[string]bool
	Limits        map[string]int
	Addresses     map[string][]*cardAddress
	KycCountry    map[string]string
	Penalties     map[string]bool
	Apps          map[string]*legacyCardApplication
	AppByKey      map[string]*legacyCardApplication
	Cards         map[string]*legacySimCard
	CardsByMem    map[string][]*legacySimCard
	Topups        map[string]*cardTopUp
	Sessions      map[string]*cardSession
	PinCalls      map[string][]time.Time
	Secret        []byte
	Transactions  map[string]*cardTx
	LedgerScale   int
	AddrSeq       int
	TopUpTimeouts int
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
	Seq            int64
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
	Seq                  int64
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
	Txs                  []*cardTx
	UpstreamRefusesClose bool
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it.
func (l *Line) Legacy(tx *kernel.Tx) *Legacy {
	st := legacyState{
		ProductByID: map[string]*legacyCardProduct{}, BinAuth: map[string]bool{}, Limits: map[string]int{},
		Addresses: map[string][]*cardAddress{}, KycCountry: map[string]string{}, Penalties: map[string]bool{},
		Apps: map[string]*legacyCardApplication{}, AppByKey: map[string]*legacyCardApplication{}, Cards: map[string]*legacySimCard{},
		CardsByMem: map[string][]*legacySimCard{}, Topups: map[string]*cardTopUp{}, Sessions: map[string]*cardSession{},
		PinCalls: map[string][]time.Time{}, Secret: l.secret, Transactions: map[string]*cardTx{},
		LedgerScale: l.ledgerScale, AddrSeq: l.st.addrSeq.Get(tx), TopUpTimeouts: l.st.topUpTimeouts.Get(tx),
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
		st.Products = append(st.Products, lp)
		st.ProductByID[p.ID] = lp
	}
	for k, v := range l.st.binAuth.All(tx) {
		st.BinAuth[k] = v
	}
	for k, v := range l.st.limits.All(tx) {
		st.Limits[k] = v
	}
	for k, list := range l.st.addresses.All(tx) {
		for a := range list.Values() {
			st.Addresses[k] = append(st.Addresses[k], &a)
		}
	}
	for k, v := range l.st.kycCountry.All(tx) {
		st.KycCountry[k] = v
	}
	for k, v := range l.st.penalties.All(tx) {
		st.Penalties[k] = v
	}
	for id, a := range l.st.apps.All(tx) {
		la := &legacyCardApplication{
			Seq: a.Seq, ID: a.ID, MemberID: a.MemberID, ProductID: a.ProductID, FormFactor: a.FormFactor, Status: a.Status,
			StatusVersion: a.StatusVersion, ClientKey: a.ClientKey, SourceAsset: a.SourceAsset, Funding: a.Funding, Fee: a.Fee,
			Shipping: a.Shipping, FirstTopUp: a.FirstTopUp, QuickBindingID: a.QuickBindingID, RejectReason: a.RejectReason,
			CardID: a.CardID, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		}
		if a.HasAddress {
			addr := a.Address
			la.Address = &addr
		}
		st.Apps[id] = la
		st.AppByKey[a.MemberID+"\x00"+a.ClientKey] = la
	}
	for id, t := range l.st.transactions.All(tx) {
		st.Transactions[id] = &t
	}
	for _, c := range l.st.cardsByMem.All(tx) {
		lc := &legacySimCard{
			Seq: c.Seq, ID: c.ID, MemberID: c.MemberID, ProductID: c.ProductID, ApplicationID: c.ApplicationID,
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
			lc.Txs = append(lc.Txs, st.Transactions[t.ID])
		}
		st.Cards[c.ID] = lc
		st.CardsByMem[c.MemberID] = append(st.CardsByMem[c.MemberID], lc)
	}
	for id, t := range l.st.topups.All(tx) {
		st.Topups[id] = &t
	}
	for id, ss := range l.st.sessions.All(tx) {
		st.Sessions[id] = &ss
	}
	for k, w := range l.st.pinCalls.All(tx) {
		calls := w.Calls.Slice()
		if calls == nil && w.Held {
			calls = []time.Time{}
		}
		st.PinCalls[k] = calls
	}
	return &Legacy{St: st}
}
