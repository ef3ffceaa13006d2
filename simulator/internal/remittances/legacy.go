package remittances

import (
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The remittance line as the state image of recordings of versions 1 and 2
// held it: the projection of its tables.

// Legacy is the remittance line as the state image of recordings of
// versions 1 and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	PayeesOf     map[string][]*payee
	PayeeByID    map[string]*payee
	NextPayee    int64
	Orders       []*legacyOrder
	ByID         map[string]*legacyOrder
	ByIdem       map[string]*idem
	VpApps       map[string]*vpApplication
	PoboInactive bool
}

type legacyOrder struct {
	Seq            int64
	ID             string
	Member         *api.LegacyMember
	Payee          *payee
	Line           string
	Status         string
	Version        int64
	Funding        string
	Asset          string
	Scale          int
	Slippage       int
	Principal      money.Amount
	Fee            money.Amount
	CustomerTotal  money.Amount
	Locked         money.Amount
	Settled        money.Amount
	PayoutCurrency string
	PayoutAmount   string
	Rate           string
	RateDealt      bool
	Purpose        string
	Reference      string
	FailureCode    string
	PayoutDate     string
	Held           bool
	HeldAt         time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it; its orders share members with the members line's image
// (members, by mem_ id).
func (l *Line) Legacy(tx *kernel.Tx, members map[string]*api.LegacyMember) *Legacy {
	st := legacyState{
		PayeesOf: map[string][]*payee{}, PayeeByID: map[string]*payee{}, NextPayee: l.st.nextPayee.Get(tx),
		ByID: map[string]*legacyOrder{}, ByIdem: map[string]*idem{}, VpApps: map[string]*vpApplication{},
		PoboInactive: l.st.poboInactive.Get(tx),
	}
	for _, p := range l.st.payeesOf.All(tx) {
		st.PayeesOf[p.MemberID] = append(st.PayeesOf[p.MemberID], &p)
		st.PayeeByID[p.ID] = &p
	}
	history := map[string]*payee{}
	for id, p := range l.st.historyPayees.All(tx) {
		history[id] = &p
	}
	for _, o := range l.st.list.All(tx) {
		p := st.PayeeByID[o.PayeeID]
		if p == nil {
			p = history[o.PayeeID]
		}
		lo := &legacyOrder{
			Seq: o.Seq, ID: o.ID, Member: members[o.MemberID], Payee: p, Line: o.Line, Status: o.Status, Version: o.Version,
			Funding: o.Funding, Asset: o.Asset, Scale: o.Scale, Slippage: o.Slippage, Principal: o.Principal, Fee: o.Fee,
			CustomerTotal: o.CustomerTotal, Locked: o.Locked, Settled: o.Settled, PayoutCurrency: o.PayoutCurrency,
			PayoutAmount: o.PayoutAmount, Rate: o.Rate, RateDealt: o.RateDealt, Purpose: o.Purpose, Reference: o.Reference,
			FailureCode: o.FailureCode, PayoutDate: o.PayoutDate, Held: o.Held, HeldAt: o.HeldAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
		}
		st.Orders = append(st.Orders, lo)
		st.ByID[o.ID] = lo
	}
	for k, rec := range l.st.byIdem.All(tx) {
		st.ByIdem[k] = &rec
	}
	for k, app := range l.st.vpApps.All(tx) {
		st.VpApps[k] = &app
	}
	return &Legacy{St: st}
}
