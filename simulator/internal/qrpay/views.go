package qrpay

import (
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Order is a read-only copy of one QR payment order, for the dashboard.
type Order struct {
	Seq              int64
	ID               string
	ExternalMemberID string // "" when the order has no member
	Status           string
	Version          int64
	CreatedAt        time.Time
	Asset            string
	CustomerTotal    money.Amount
	Fee              money.Amount
	Payee            string
	Currency         string
	Amount           string
	MerchantFunded   bool
	FeeAsset         string
	FeeAmount        money.Amount
	NoticeTimedOut   bool
	Trace            []string
}

// Orders lists the orders in creation order.
func (l *Line) Orders(tx *kernel.Tx) []Order {
	out := make([]Order, 0, l.st.list.Len(tx))
	for _, o := range l.st.list.All(tx) {
		ext := ""
		if m := l.host.Member(tx, o.MemberID); m != nil {
			ext = m.ExternalID
		}
		p := o.Plan
		out = append(out, Order{
			Seq: o.Seq, ID: o.ID, ExternalMemberID: ext, Status: o.Status, Version: o.Version, CreatedAt: o.CreatedAt,
			Asset: p.Asset, CustomerTotal: p.CustomerTotal, Fee: p.Fee, Payee: o.Payee, Currency: o.Currency, Amount: o.Amount,
			MerchantFunded: p.MerchantFunded, FeeAsset: p.FeeAsset, FeeAmount: p.FeeAmount, NoticeTimedOut: o.NoticeTimedOut,
			Trace: append([]string{}, o.Trace.Slice()...),
		})
	}
	return out
}

// Hold is what one live order holds on one locked account.
type Hold struct {
	Owner   string // "<order id> (<status>)"
	Account string
	Asset   string
	Amount  money.Amount
}

// Holds lists what every live (pending or processing) order holds, in
// creation order: the legs of its hold that land on its locked account.
func (l *Line) Holds(tx *kernel.Tx) []Hold {
	var out []Hold
	for _, o := range l.st.list.All(tx) {
		if o.Status != "pending" && o.Status != "processing" {
			continue
		}
		for _, p := range o.holdPostings(+1) {
			if p.Account == o.Locked {
				out = append(out, Hold{Owner: o.ID + " (" + o.Status + ")", Account: p.Account, Asset: p.Asset, Amount: p.Amount})
			}
		}
	}
	return out
}

// Violations are the line's structural rules that the ledger's sums cannot
// show: an order is never left pending outside its payment request.
func (l *Line) Violations(tx *kernel.Tx) []string {
	var out []string
	for _, o := range l.st.list.All(tx) {
		if o.Status == "pending" {
			out = append(out, fmt.Sprintf("QR order %s is left pending outside its payment request", o.ID))
		}
	}
	return out
}

// Has reports whether an order of the exact id (with its qrp_ prefix)
// exists.
func (l *Line) Has(tx *kernel.Tx, id string) bool {
	return l.st.orders.Has(tx, id)
}

// MemoLen is the number of upstream orders in the quotes memo.
func (l *Line) MemoLen(tx *kernel.Tx) int {
	return l.st.memo.Len(tx)
}

// ExpireMemo drops the quotes memo entry key when it has expired at now
// (the simulator's sweep calls it for the keys scheduled on MemoWindow).
func (l *Line) ExpireMemo(tx *kernel.Tx, key string, now time.Time) {
	if uq, ok := l.st.memo.Get(tx, key); ok && !now.Before(uq.CreatedAt.Add(qrQuoteMemo)) {
		l.st.memo.Delete(tx, key)
	}
}
