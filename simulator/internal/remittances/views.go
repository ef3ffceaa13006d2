package remittances

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Read-only views of the line, for the dashboard, the invariants and the
// control API: copies, never the line's own records.

// Order is a read-only copy of one remittance order.
type Order struct {
	Seq              int64
	ID               string
	ExternalMemberID string // "" when the order has no member
	Corridor         string // country-currency of the payee, "" without one
	Line             string
	Status           string // internal status (pending_merchant_funds, ...)
	PublicStatus     string // the status the business API answers
	Version          int64
	Funding          string
	Asset            string
	CustomerTotal    money.Amount
	Locked           money.Amount
	Settled          money.Amount
	Fee              money.Amount
	PayoutAmount     string
	PayoutCurrency   string
	FailureCode      string
	CreatedAt        time.Time
}

// Key is the order's place in lists (creation time, then sequence).
func (o Order) Key() api.PageKey { return api.PageKey{At: o.CreatedAt, Seq: o.Seq} }

// Orders lists the orders, oldest first (ascending by Key).
func (l *Line) Orders(tx *kernel.Tx) []Order {
	out := make([]Order, 0, l.st.list.Len(tx))
	for _, o := range l.st.list.All(tx) {
		v := Order{
			Seq: o.Seq, ID: o.ID, Line: o.Line, Status: o.Status, PublicStatus: o.publicStatus(), Version: o.Version,
			Funding: o.Funding, Asset: o.Asset, CustomerTotal: o.CustomerTotal, Locked: o.Locked, Settled: o.Settled, Fee: o.Fee,
			PayoutAmount: o.PayoutAmount, PayoutCurrency: o.PayoutCurrency, FailureCode: o.FailureCode, CreatedAt: o.CreatedAt,
		}
		if m := l.host.Member(tx, o.MemberID); m != nil {
			v.ExternalMemberID = m.ExternalID
		}
		if p := l.payee(tx, &o); p.ID != "" {
			v.Corridor = p.Country + "-" + p.Currency
		}
		out = append(out, v)
	}
	return out
}

// HasOrder reports whether id (rmt_...) names an order.
func (l *Line) HasOrder(tx *kernel.Tx, id string) bool {
	return l.st.orders.Has(tx, id)
}

// Hold is what one live order holds: Amount of Asset in Account.
type Hold struct {
	Account string
	Asset   string
	Amount  money.Amount
	Owner   string // the order id and its public status
}

// Holds lists what every live order holds (held and not final), oldest
// order first.
func (l *Line) Holds(tx *kernel.Tx) []Hold {
	var out []Hold
	for _, o := range l.st.list.All(tx) {
		if o.Held && !isRemitFinal(o.Status) {
			_, held := l.accounts(&o)
			out = append(out, Hold{Account: held, Asset: o.Asset, Amount: o.Locked, Owner: o.ID + " (" + o.publicStatus() + ")"})
		}
	}
	return out
}

// Invariants lists the structural rules of the orders that the ledger's
// sums cannot show and that are broken; nil when all hold.
func (l *Line) Invariants(tx *kernel.Tx) []string {
	var out []string
	for _, o := range l.st.list.All(tx) {
		if o.Status == "pending_merchant_funds" && o.Held {
			out = append(out, fmt.Sprintf("remittance %s waits for merchant funds but holds %s %s", o.ID, o.Locked, o.Asset))
		}
	}
	return out
}

// Counts are the numbers of records a business request may create that
// the orders do not show.
type Counts struct {
	Payees          int // saved and fixture payees
	VPApplications  int
	IdempotencyKeys int // stored first successes of POST /v1/remittances
}

// Counts counts the line's payees, VP applications and stored keys.
func (l *Line) Counts(tx *kernel.Tx) Counts {
	return Counts{Payees: l.st.payees.Len(tx), VPApplications: l.st.vpApps.Len(tx), IdempotencyKeys: l.st.byIdem.Len(tx)}
}

// SetPOBOSubaccount sets whether the merchant has an active upstream
// subaccount, which the pobo line needs.
func (l *Line) SetPOBOSubaccount(tx *kernel.Tx, active bool) {
	l.st.poboInactive.Set(tx, !active)
}

// SeedHistory stores n completed member-funded orders of m to one THB
// payee, one second apart and all before now, the way createRemittance
// stores them but without the ledger (they are history), so that lists
// can be measured at scale. Ids are drawn as for real orders.
func (l *Line) SeedHistory(tx *kernel.Tx, m *api.Member, n int) {
	now := tx.Now()
	p := payee{ID: "pye_" + tx.NewUUID(), MemberID: m.ID, Country: "TH", Currency: "THB", Holder: "Somchai",
		Account: "1234567890", BankCode: "KBANK", Status: "active", CreatedAt: now}
	l.st.historyPayees.Put(tx, p.ID, p)
	amt := func(v string) money.Amount { return money.MustParse(v, 6) }
	start := now.Add(-time.Duration(n) * time.Second)
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * time.Second)
		o := order{
			ID: "rmt_" + tx.NewUUID(), MemberID: m.ID, PayeeID: p.ID, Line: "bank", Status: "completed", Version: 3,
			Funding: "member", Asset: "USDT", Scale: 6,
			Principal: amt("100"), Fee: amt("1.5"), CustomerTotal: amt("101.5"), Locked: amt("101.5"), Settled: amt("101.5"),
			PayoutCurrency: "THB", PayoutAmount: "3500.00", Rate: "35.00", Purpose: "family_support",
			Reference: "seed " + strconv.Itoa(i), CreatedAt: at, UpdatedAt: at,
		}
		l.st.orders.Put(tx, o.ID, o)
	}
}

// ExpireIdempotencyKey drops the idempotency record of key when its window
// has passed at now; a record made again under the same key since (a
// create after the window) stays.
func (l *Line) ExpireIdempotencyKey(tx *kernel.Tx, key string, now time.Time) {
	if rec, ok := l.st.byIdem.Get(tx, key); ok && now.Sub(rec.At) >= remitIdemWindow {
		l.st.byIdem.Delete(tx, key)
	}
}
