package cards

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Read-only views of the card line for the dashboard, the invariants and the
// control API's name checks. None returns a pointer into the state.

// Snapshot is a card-line object as the dashboard shows it: the simulator
// adds its member's external id and its event history.
type Snapshot struct {
	Seq           int64 // creation sequence
	ID            string
	MemberID      string
	Status        string
	StatusVersion int64
	CreatedAt     time.Time
	Summary       string
	Details       map[string]string
}

// ApplicationSnapshots lists every card application, in no order.
func (l *Line) ApplicationSnapshots(tx *kernel.Tx) []Snapshot {
	out := make([]Snapshot, 0, l.st.apps.Len(tx))
	for _, a := range l.st.apps.All(tx) {
		d := map[string]string{"product_id": a.ProductID, "form_factor": a.FormFactor, "source_asset": a.SourceAsset,
			"fee": a.Fee.String(), "first_topup": a.FirstTopUp.String()}
		if a.CardID != "" {
			d["card_id"] = a.CardID
		}
		out = append(out, Snapshot{Seq: a.Seq, ID: a.ID, MemberID: a.MemberID, Status: a.Status, StatusVersion: a.StatusVersion,
			CreatedAt: a.CreatedAt, Summary: a.FormFactor + " card, " + a.ProductID, Details: d})
	}
	return out
}

// CardSnapshots lists every card, in no order.
func (l *Line) CardSnapshots(tx *kernel.Tx) []Snapshot {
	out := make([]Snapshot, 0, l.st.cards.Len(tx))
	for _, c := range l.st.cards.All(tx) {
		bal := l.cardBalance(tx, &c).String()
		d := map[string]string{"product_id": c.ProductID, "form_factor": c.FormFactor, "balance": bal + " " + cardCurrency,
			"application_id": c.ApplicationID, "last4": c.Last4}
		if c.Inventory != "" {
			d["inventory"] = c.Inventory
		}
		if !c.LockedUntil.IsZero() && c.LockedUntil.After(tx.Now()) {
			d["activation_locked_until"] = c.LockedUntil.UTC().Format(time.RFC3339)
		}
		from, to := ownedRun(tx, l.st.txsOf, c.ID)
		d["transactions"] = strconv.Itoa(to - from)
		out = append(out, Snapshot{Seq: c.Seq, ID: c.ID, MemberID: c.MemberID, Status: c.Status, StatusVersion: c.StatusVersion,
			CreatedAt: c.CreatedAt, Summary: c.FormFactor + " card ····" + c.Last4 + ", balance " + bal + " " + cardCurrency, Details: d})
	}
	return out
}

// TopUpSnapshots lists every top-up order, in no order.
func (l *Line) TopUpSnapshots(tx *kernel.Tx) []Snapshot {
	out := make([]Snapshot, 0, l.st.topups.Len(tx))
	for _, t := range l.st.topups.All(tx) {
		d := map[string]string{"card_id": t.CardID, "asset": t.Asset, "amount": t.Amount.String(), "fee": t.Fee.String()}
		if t.TimedOut {
			d["upstream"] = "timed out"
		}
		out = append(out, Snapshot{Seq: t.Seq, ID: t.ID, MemberID: t.MemberID, Status: t.Status, StatusVersion: t.StatusVersion,
			CreatedAt: t.CreatedAt, Summary: t.Amount.String() + " " + t.Asset + " to " + t.CardID, Details: d})
	}
	return out
}

// Hold is what a live card-line object holds on a locked account.
type Hold struct {
	Owner   string // "<id> (<status>)"
	Account string
	Asset   string
	Amount  money.Amount
}

// Holds lists what every live object holds: a processing top-up its amount
// and fee, an application under review its first top-up. errs names the
// objects whose hold cannot be summed.
func (l *Line) Holds(tx *kernel.Tx) (holds []Hold, errs []string) {
	for _, t := range l.st.topups.All(tx) {
		if t.Status == "processing" {
			total, err := t.Amount.Add(t.Fee)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: amount and fee at different scales", t.ID))
				continue
			}
			_, locked := fundingAccounts(t.Funding, t.MemberID)
			holds = append(holds, Hold{Owner: t.ID + " (processing)", Account: locked, Asset: t.Asset, Amount: total})
		}
	}
	for _, a := range l.st.apps.All(tx) {
		if cardAppUnderReview(&a) && !a.FirstTopUp.IsZero() {
			_, locked := fundingAccounts(a.Funding, a.MemberID)
			holds = append(holds, Hold{Owner: a.ID + " (" + a.Status + ", first top-up)", Account: locked, Asset: a.SourceAsset, Amount: a.FirstTopUp})
		}
	}
	return holds, errs
}

// Violations lists the card line's structural rules that the ledger sums
// cannot show: no balance on an ended card, nothing in flight towards one,
// no application under review on an inactive quick KYC binding, no issued
// application without its card.
func (l *Line) Violations(tx *kernel.Tx) []string {
	var out []string
	for _, c := range l.st.cards.All(tx) {
		if !cardEnded(c.Status) {
			continue
		}
		if b := tx.Balance(cardAccount(c.ID), cardLedgerAsset); !b.IsZero() {
			out = append(out, fmt.Sprintf("card %s is %s but holds %s %s", c.ID, c.Status, b, cardLedgerAsset))
		}
	}
	for _, t := range l.st.topups.All(tx) {
		if t.Status != "processing" {
			continue
		}
		if c, ok := l.st.cards.Get(tx, t.CardID); !ok || cardEnded(c.Status) {
			st := "missing"
			if ok {
				st = c.Status
			}
			out = append(out, fmt.Sprintf("top-up %s is in flight towards card %s, which is %s", t.ID, t.CardID, st))
		}
	}
	for _, a := range l.st.apps.All(tx) {
		if cardAppUnderReview(&a) && a.QuickBindingID != "" && !l.host.BindingActive(tx, l.host.Member(tx, a.MemberID), a.QuickBindingID) {
			out = append(out, fmt.Sprintf("card application %s is %s on quick KYC binding %s, which is no longer active", a.ID, a.Status, a.QuickBindingID))
		}
		if a.Status == "issued" && !l.st.cards.Has(tx, a.CardID) {
			out = append(out, fmt.Sprintf("card application %s is issued but its card %q does not exist", a.ID, a.CardID))
		}
	}
	sort.Strings(out)
	return out
}

// HasCard reports whether a card of this crd_ id exists.
func (l *Line) HasCard(tx *kernel.Tx, id string) bool { return l.st.cards.Has(tx, id) }

// HasProduct reports a card product of this id (with or without cpd_).
func (l *Line) HasProduct(tx *kernel.Tx, id string) bool {
	return l.st.products.Has(tx, WithIDPrefix("cpd_", id))
}

// Has reports whether id is the exact id of a card application, a card or
// a top-up order.
func (l *Line) Has(tx *kernel.Tx, id string) bool {
	return l.st.apps.Has(tx, id) || l.st.cards.Has(tx, id) || l.st.topups.Has(tx, id)
}

// Counts counts what the dashboard does not show: open secure sessions,
// PIN calls within their windows and card transactions.
func (l *Line) Counts(tx *kernel.Tx) (sessions, pinCalls, transactions int) {
	for _, w := range l.st.pinCalls.All(tx) {
		pinCalls += w.Calls.Len()
	}
	return l.st.sessions.Len(tx), pinCalls, l.st.transactions.Len(tx)
}

// Statuses are the card statuses named by the contract.
func Statuses() []string { return append([]string(nil), cardStatuses...) }

// BindingWithdrawn is the KYC line telling the card line that quick KYC
// binding bindingID is withdrawn: an application still under review on it
// loses its KYC basis and is rejected first (fee and shipping refunded,
// first top-up released, card.application.rejected), so no card is issued
// on a compensated binding. It returns the rejected applications' ids,
// oldest first.
func (l *Line) BindingWithdrawn(tx *kernel.Tx, bindingID string) ([]string, error) {
	var ids []string
	for _, a := range l.appsOnBinding(tx, bindingID) {
		if err := l.failCardApplication(tx, a, false); err != nil {
			return nil, err
		}
		ids = append(ids, a.ID)
	}
	return ids, nil
}

// FindApplication reports a card application that does not exist (id with
// or without cap_), as the control API's lookups do.
func (l *Line) FindApplication(tx *kernel.Tx, id string) error {
	_, err := l.findApplication(tx, id)
	return err
}

// FindTopUp reports a top-up order that does not exist (id with or without
// ctp_).
func (l *Line) FindTopUp(tx *kernel.Tx, id string) error {
	_, err := l.findTopUp(tx, id)
	return err
}

// TxRow is a card transaction's place in the card's list.
type TxRow struct {
	ID         string
	Seq        int64
	OccurredAt time.Time
}

// Key is the transaction's place in lists (occurred_at, then sequence).
func (r TxRow) Key() api.PageKey { return api.PageKey{At: r.OccurredAt, Seq: r.Seq} }

// Transactions lists a card's transactions, ascending by Key; nil for an
// unknown card.
func (l *Line) Transactions(tx *kernel.Tx, cardID string) []TxRow {
	if !l.st.cards.Has(tx, cardID) {
		return nil
	}
	txs := l.txsOfCard(tx, cardID)
	out := make([]TxRow, 0, len(txs))
	for _, t := range txs {
		out = append(out, TxRow{ID: t.ID, Seq: t.Seq, OccurredAt: t.OccurredAt})
	}
	return out
}

// SeedHistory issues a virtual card of the first product to m, the way an
// approval issues one but without an application, and adds n card
// transactions to it (direction none: no balance effect), one second apart
// and all before now, so that lists can be measured at scale. It returns
// the card's id.
func (l *Line) SeedHistory(tx *kernel.Tx, m *api.Member, n int) (string, error) {
	_, _, first := l.st.catalogue.At(tx, 0)
	card := l.newCard(tx, m, first.ID, "", "virtual")
	start := tx.Now().Add(-time.Duration(n) * time.Second)
	for i := 0; i < n; i++ {
		_, err := l.addCardTransaction(tx, card, Transaction{
			Kind: "purchase", Status: "succeed", Direction: "none", Amount: "1250",
			MerchantName: "Coffee " + strconv.Itoa(i), MCC: "5814", AuthCode: "A" + strconv.Itoa(i),
			OccurredAt: start.Add(time.Duration(i) * time.Second),
		})
		if err != nil {
			return "", fmt.Errorf("seed transaction %d: %w", i, err)
		}
	}
	return card.ID, nil
}

var timeZero time.Time

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
