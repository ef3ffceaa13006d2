// Package devtools is the simulator's developer views: the accounts
// (the merchant's prepaid, every member's balances) and the product-line
// objects of the read-only snapshot (GET /_sim/state), each object with its
// status history, and the dashboard's files (GET /_sim/ui/). It reads the
// lines through Source, which it declares (Lines answers it from the wired
// lines' read-only views), and the books through Ledger, and changes
// nothing; the public simulator package converts its values to
// StateSnapshot's.
package devtools

import (
	"sort"
	"strconv"
	"strings"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// ListCap bounds each list of the snapshot: the newest items are kept.
const ListCap = 500

// Source is what the views read of the simulator: each line's read-only
// listing (nil when the line is not wired) and the members' external ids.
type Source interface {
	QROrders(tx *kernel.Tx) []qrpay.Order
	CardApplications(tx *kernel.Tx) []cardline.Snapshot
	Cards(tx *kernel.Tx) []cardline.Snapshot
	CardTopUps(tx *kernel.Tx) []cardline.Snapshot
	Remittances(tx *kernel.Tx) []remittances.Order
	Deposits(tx *kernel.Tx) []deposits.Deposit
	Events(tx *kernel.Tx) []hookline.Event
	// ExternalID is the external_member_id of a member id, "" for none.
	ExternalID(tx *kernel.Tx, memberID string) string
}

// Object is one product-line object of the snapshot (the simulator's
// ObjectSnapshot, which documents each field).
type Object struct {
	ID               string
	ExternalMemberID string
	Status           string
	StatusVersion    int64
	CreatedAt        time.Time
	Summary          string
	Details          map[string]string
	History          []History
	Trace            []string
}

// History is one step of an object's history: an event the object
// produced (the simulator's HistoryEntry).
type History struct {
	At            time.Time
	EventID       string
	EventType     string
	Status        string
	StatusVersion int64
}

// Objects are the product-line lists of the snapshot, each newest first
// and at most ListCap long; a line that is not wired lists nothing.
type Objects struct {
	QROrders, CardApplications, Cards, CardTopUps, Remittances, Deposits []Object
}

// Read lists the objects of every line with their histories.
func Read(tx *kernel.Tx, src Source) Objects {
	v := views{src: src, hist: historyOf(src.Events(tx))}
	return Objects{
		QROrders:         v.qrOrders(src.QROrders(tx)),
		CardApplications: v.cardObjects(tx, src.CardApplications(tx), "card_application", "cap_"),
		Cards:            v.cardObjects(tx, src.Cards(tx), "card", "crd_"),
		CardTopUps:       v.cardObjects(tx, src.CardTopUps(tx), "card_topup", "ctp_"),
		Remittances:      v.remittances(src.Remittances(tx)),
		Deposits:         v.deposits(src.Deposits(tx)),
	}
}

// NewestFirst reverses an oldest-first list and keeps the newest ListCap
// items.
func NewestFirst[T any](in []T) []T {
	n := min(len(in), ListCap)
	out := make([]T, 0, n)
	for i := len(in) - 1; i >= len(in)-n; i-- {
		out = append(out, in[i])
	}
	return out
}

type views struct {
	src  Source
	hist historyIndex
}

// historyIndex maps an event's data.object and data.id (bare, as events
// carry it) to the object's events, oldest first.
type historyIndex map[string][]History

func historyKey(object, id string) string { return object + "/" + id }

func historyOf(events []hookline.Event) historyIndex {
	idx := historyIndex{}
	for _, e := range events {
		k := historyKey(e.Object, e.ObjectID)
		idx[k] = append(idx[k], History{
			At: e.CreatedAt.UTC(), EventID: e.ID, EventType: e.Type, Status: e.Status, StatusVersion: e.StatusVersion,
		})
	}
	return idx
}

// of returns the history of object id, whose events carry it with or
// without prefix.
func (h historyIndex) of(object, id, prefix string) []History {
	if out := h[historyKey(object, strings.TrimPrefix(id, prefix))]; out != nil {
		return out
	}
	if out := h[historyKey(object, id)]; out != nil {
		return out
	}
	return []History{}
}

// seqObject is an object with its creation sequence.
type seqObject struct {
	seq int64
	obj Object
}

// sortNewest sorts objects newest first (same instant: the one created
// later first, by creation sequence, as every list) and keeps the newest
// ListCap.
func sortNewest(in []seqObject) []Object {
	sort.Slice(in, func(i, j int) bool {
		a, b := in[i], in[j]
		if !a.obj.CreatedAt.Equal(b.obj.CreatedAt) {
			return a.obj.CreatedAt.After(b.obj.CreatedAt)
		}
		return a.seq > b.seq
	})
	out := make([]Object, 0, min(len(in), ListCap))
	for _, x := range in[:min(len(in), ListCap)] {
		out = append(out, x.obj)
	}
	return out
}

func (v views) qrOrders(orders []qrpay.Order) []Object {
	out := make([]seqObject, 0, len(orders))
	for _, o := range orders {
		d := map[string]string{
			"asset": o.Asset, "customer_total": o.CustomerTotal.String(), "fee": o.Fee.String(),
			"payee": o.Payee, "acquirer": strings.TrimSpace(o.Amount + " " + o.Currency),
		}
		if o.MerchantFunded {
			d["funding"] = "merchant"
			d["fee_asset"], d["fee_amount"] = o.FeeAsset, o.FeeAmount.String()
		}
		if o.NoticeTimedOut {
			d["notice"] = "timed out"
		}
		out = append(out, seqObject{o.Seq, Object{
			ID: o.ID, ExternalMemberID: o.ExternalMemberID, Status: o.Status, StatusVersion: o.Version, CreatedAt: o.CreatedAt.UTC(),
			Summary: o.CustomerTotal.String() + " " + o.Asset + " to " + o.Payee + " (" + d["acquirer"] + ")",
			Details: d, History: v.hist.of("qrpay_order", o.ID, "qrp_"), Trace: o.Trace,
		}})
	}
	return sortNewest(out)
}

func (v views) cardObjects(tx *kernel.Tx, snaps []cardline.Snapshot, object, prefix string) []Object {
	out := make([]seqObject, 0, len(snaps))
	for _, o := range snaps {
		out = append(out, seqObject{o.Seq, Object{
			ID: o.ID, ExternalMemberID: v.src.ExternalID(tx, o.MemberID), Status: o.Status, StatusVersion: o.StatusVersion,
			CreatedAt: o.CreatedAt.UTC(), Summary: o.Summary, Details: o.Details, History: v.hist.of(object, o.ID, prefix),
		}})
	}
	return sortNewest(out)
}

func (v views) remittances(orders []remittances.Order) []Object {
	out := make([]seqObject, 0, len(orders))
	for _, o := range orders {
		d := map[string]string{"line": o.Line, "asset": o.Asset, "customer_total": o.CustomerTotal.String(),
			"locked_amount": o.Locked.String(), "settled_amount": o.Settled.String(), "fee": o.Fee.String(),
			"payout": o.PayoutAmount + " " + o.PayoutCurrency, "corridor": o.Corridor, "funding": o.Funding}
		if o.FailureCode != "" {
			d["failure_code"] = o.FailureCode
		}
		if o.Status != o.PublicStatus {
			d["internal_status"] = o.Status
		}
		out = append(out, seqObject{o.Seq, Object{
			ID: o.ID, ExternalMemberID: o.ExternalMemberID, Status: o.PublicStatus, StatusVersion: o.Version, CreatedAt: o.CreatedAt.UTC(),
			Summary: o.PayoutAmount + " " + o.PayoutCurrency + " for " + o.CustomerTotal.String() + " " + o.Asset,
			Details: d, History: v.hist.of("remittance", o.ID, "rmt_"),
		}})
	}
	return sortNewest(out)
}

func (v views) deposits(list []deposits.Deposit) []Object {
	out := make([]seqObject, 0, len(list))
	for _, d := range list {
		seq := strconv.FormatInt(d.Seq, 10)
		det := map[string]string{"reference": d.Reference, "asset": d.Asset, "amount": d.Amount.String(), "internal_id": seq}
		if d.Network != "" {
			det["network"] = d.Network
		}
		out = append(out, seqObject{d.Seq, Object{
			ID: "dep_" + d.Reference, ExternalMemberID: d.ExternalID, Status: "credited", CreatedAt: d.CreatedAt.UTC(),
			Summary: d.Amount.String() + " " + d.Asset, Details: det, History: v.hist.of("deposit", seq, ""),
		}})
	}
	return sortNewest(out)
}
