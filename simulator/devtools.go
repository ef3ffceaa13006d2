package simulator

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// Developer tools: a read-only snapshot of the whole simulator (GET
// /_sim/state), the operator's redelivery of a webhook delivery, and the
// dashboard that shows both (ui.go).

// stateListCap bounds each list of the snapshot: the newest items are kept.
const stateListCap = 500

// StateSnapshot is a read-only picture of the simulator, as the dashboard
// shows it. Lists are newest first and hold at most the newest 500 items
// each. Control API: GET /_sim/state.
type StateSnapshot struct {
	// Now is the simulator clock; PendingTimers counts scheduled timers
	// (upstream outcomes, webhook retries, expiries).
	Now           time.Time `json:"now"`
	PendingTimers int       `json:"pending_timers"`
	// Merchant is the merchant with its prepaid balances.
	Merchant MerchantSnapshot `json:"merchant"`
	// Members holds every member with its balances, in creation order.
	Members []MemberSnapshot `json:"members"`
	// Product-line objects, each with its status history.
	QROrders         []ObjectSnapshot `json:"qr_orders"`
	CardApplications []ObjectSnapshot `json:"card_applications"`
	Cards            []ObjectSnapshot `json:"cards"`
	CardTopUps       []ObjectSnapshot `json:"card_topups"`
	Remittances      []ObjectSnapshot `json:"remittances"`
	Deposits         []ObjectSnapshot `json:"deposits"`
	// WebhookEndpoints are the configured endpoints (without secrets).
	WebhookEndpoints []WebhookEndpoint `json:"webhook_endpoints"`
	// WebhookDeliveries are the delivery rows with their attempts.
	WebhookDeliveries []WebhookDelivery `json:"webhook_deliveries"`
	// Events are the recorded events.
	Events []Event `json:"events"`
	// Requests is the request journal of the business API.
	Requests []RequestRecord `json:"requests"`
	// Actions lists the registered control actions ("qrpay/orders/complete").
	Actions []string `json:"actions"`
	// PartialReplay is set when the simulator started from a recording
	// without its end line (ReadPartialRecording, mwallet-sim serve -replay
	// FILE -replay-partial): the state is that after the inputs the file
	// held, not checked against the recorded state.
	PartialReplay *PartialReplay `json:"partial_replay,omitempty"`
}

// PartialReplay describes a start from a recording without its end line.
type PartialReplay struct {
	// Inputs is the number of inputs the partial recording held.
	Inputs int `json:"inputs"`
	// Note says what the state is, for the dashboard.
	Note string `json:"note"`
}

// MerchantSnapshot is the merchant part of a StateSnapshot.
type MerchantSnapshot struct {
	ID          string         `json:"id"`
	Model       Model          `json:"model"`
	Status      MerchantStatus `json:"status"`
	Environment Environment    `json:"environment"`
	// Prepaid holds the prepaid balance of every catalogue asset.
	Prepaid []BalanceSnapshot `json:"prepaid"`
}

// MemberSnapshot is one member of a StateSnapshot.
type MemberSnapshot struct {
	ID               string `json:"id"`
	ExternalMemberID string `json:"external_member_id"`
	KYCLevel         int    `json:"kyc_level"`
	Status           string `json:"status"`
	PlatformDirect   bool   `json:"platform_direct"`
	// Balances holds the available and locked balance of every catalogue
	// asset, in catalogue order.
	Balances  []BalanceSnapshot `json:"balances"`
	CreatedAt time.Time         `json:"created_at"`
}

// BalanceSnapshot is the balance of one asset, as decimal strings at the
// asset's ledger scale.
type BalanceSnapshot struct {
	Asset     string `json:"asset"`
	Available string `json:"available"`
	Locked    string `json:"locked"`
}

// ObjectSnapshot is one product-line object: a QR order, a card
// application, a card, a card top-up, a remittance or a deposit.
type ObjectSnapshot struct {
	// ID is the REST id (qrp_, cap_, crd_, ctp_, rmt_, dep_).
	ID string `json:"id"`
	// ExternalMemberID is the owner's external_member_id.
	ExternalMemberID string    `json:"external_member_id"`
	Status           string    `json:"status"`
	StatusVersion    int64     `json:"status_version"`
	CreatedAt        time.Time `json:"created_at"`
	// Summary is a one-line description (amounts, product, payee).
	Summary string `json:"summary"`
	// Details are further fields worth showing, as text.
	Details map[string]string `json:"details,omitempty"`
	// History is the object's status history. The product lines keep no
	// history of their own, so it is the object's events (oldest first),
	// each with the status and status_version it carried.
	History []HistoryEntry `json:"history"`
	// Trace is the upstream step log of a QR order (step_up, quote, hold,
	// notice, then each action).
	Trace []string `json:"trace,omitempty"`
}

// HistoryEntry is one step of an object's history: an event the object
// produced.
type HistoryEntry struct {
	At            time.Time `json:"at"`
	EventID       string    `json:"event_id"`
	EventType     string    `json:"event_type"`
	Status        string    `json:"status"`
	StatusVersion int64     `json:"status_version"`
}

// State returns a snapshot of the simulator for inspection. Control API:
// GET /_sim/state.
func (s *Simulator) State() StateSnapshot {
	tx := s.wiring.image.captured()
	defer tx.End()
	return s.wiring.view.state(tx)
}

// redeliver queues a dead, failed or no_subscriber delivery row of the
// webhook line for one more attempt at the next flush, as POST
// /v1/webhooks/deliveries/{id}/redeliver does for the merchant (id with or
// without whd_), and answers the row. Control API: POST
// /_sim/webhooks/deliveries/{id}/redeliver; Go: WebhooksControl.Redeliver.
func redeliver(tx *kernel.Tx, hooks *hookline.Line, now time.Time, id string) (any, error) {
	r, err := http.NewRequest(http.MethodPost, "/_sim/webhooks/deliveries/redeliver", nil)
	if err != nil {
		return nil, err
	}
	r.SetPathValue("id", id)
	_, out, err := hooks.Redeliver(&rc{Tx: tx, Req: r, Now: now, Header: http.Header{}})
	return out, err
}

// view is the operator's read-only view of the whole state: the snapshot
// the dashboard and GET /_sim/state show, the window sizes (Stats), the
// invariants, and the control API's member and Key documents. It reads the
// lines through their read-only views and the kernel's books, and changes
// nothing. It holds the state, what the simulator started from (partial),
// and the names of the control actions (actions, read without the lock: the
// caller holds it).
type view struct {
	k       *kernel.Kernel // its verify mode's violations (verify.go)
	st      *simState
	partial *PartialReplay
	actions func() []string
}

// state is the snapshot of GET /_sim/state and Simulator.State.
func (v *view) state(tx *kernel.Tx) StateSnapshot {
	s := v
	st := StateSnapshot{
		Now:           tx.Now().UTC(),
		PendingTimers: s.st.outcome.timers.Get(tx).Len(),
		PartialReplay: v.partial,
		Merchant: MerchantSnapshot{
			ID: s.st.merchant.ID(tx), Model: Model(s.st.merchant.Model(tx)), Status: MerchantStatus(s.st.merchant.Status(tx)), Environment: Environment(s.st.merchant.Env(tx)),
		},
	}
	for _, a := range s.st.cat.all() {
		st.Merchant.Prepaid = append(st.Merchant.Prepaid, BalanceSnapshot{
			Asset:     a.Code,
			Available: s.st.ledger.Balance(tx, AccountMerchantPrepaid, a.Code).String(),
			Locked:    s.st.ledger.Balance(tx, AccountMerchantPrepaidLocked, a.Code).String(),
		})
	}
	for _, m := range s.st.members.All(tx) {
		ms := MemberSnapshot{
			ID: m.ID, ExternalMemberID: m.ExternalID, KYCLevel: m.KYCLevel, Status: m.Status,
			PlatformDirect: m.PlatformDirect, CreatedAt: m.CreatedAt.UTC(),
		}
		for _, a := range s.st.cat.all() {
			ms.Balances = append(ms.Balances, BalanceSnapshot{
				Asset:     a.Code,
				Available: s.st.ledger.Balance(tx, MemberAvailable(m.ID), a.Code).String(),
				Locked:    s.st.ledger.Balance(tx, MemberLocked(m.ID), a.Code).String(),
			})
		}
		st.Members = append(st.Members, ms)
	}

	hist := s.historyIndex(tx)
	st.QROrders = s.qrSnapshots(tx, hist)
	st.CardApplications, st.Cards, st.CardTopUps = s.cardSnapshots(tx, hist)
	st.Remittances = s.remitSnapshots(tx, hist)
	st.Deposits = s.depositSnapshots(tx, hist)

	st.WebhookEndpoints = webhookEndpoints(tx, s.st.webhooks)
	st.WebhookDeliveries = newestFirst(webhookDeliveries(tx, s.st.webhooks))
	st.Events = newestFirst(v.events(tx))
	st.Requests = newestFirst(s.st.gw.journal.list(tx))
	st.Actions = v.actions()
	return st
}

// events returns a copy of the events recorded so far, oldest first.
func (v *view) events(tx *kernel.Tx) []Event {
	events := v.st.webhooks.Events(tx)
	out := make([]Event, len(events))
	for i, e := range events {
		out[i] = Event(e)
	}
	return out
}

// newestFirst reverses an oldest-first list and keeps the newest
// stateListCap items.
func newestFirst[T any](in []T) []T {
	n := min(len(in), stateListCap)
	out := make([]T, 0, n)
	for i := len(in) - 1; i >= len(in)-n; i-- {
		out = append(out, in[i])
	}
	return out
}

// historyIndex maps an event's data.object and data.id (bare, as events
// carry it) to the object's events, oldest first.
type historyIndex map[string][]HistoryEntry

func historyKey(object, id string) string { return object + "/" + id }

func (s *view) historyIndex(tx *kernel.Tx) historyIndex {
	idx := historyIndex{}
	for _, e := range s.st.webhooks.Events(tx) {
		k := historyKey(e.Object, e.ObjectID)
		idx[k] = append(idx[k], HistoryEntry{
			At: e.CreatedAt.UTC(), EventID: e.ID, EventType: e.Type, Status: e.Status, StatusVersion: e.StatusVersion,
		})
	}
	return idx
}

// of returns the history of object id, whose events carry it with or
// without prefix.
func (h historyIndex) of(object, id, prefix string) []HistoryEntry {
	if out := h[historyKey(object, strings.TrimPrefix(id, prefix))]; out != nil {
		return out
	}
	if out := h[historyKey(object, id)]; out != nil {
		return out
	}
	return []HistoryEntry{}
}

func (s *view) externalIDOf(tx *kernel.Tx, memberID string) string {
	if m := s.st.members.Get(tx, memberID); m != nil {
		return m.ExternalID
	}
	return ""
}

// seqSnapshot is a snapshot with its object's creation sequence.
type seqSnapshot struct {
	seq  int64
	snap ObjectSnapshot
}

// sortNewest sorts objects newest first (same instant: the one created
// later first, by creation sequence, as every list) and keeps the newest
// stateListCap.
func sortNewest(in []seqSnapshot) []ObjectSnapshot {
	sort.Slice(in, func(i, j int) bool {
		a, b := in[i], in[j]
		if !a.snap.CreatedAt.Equal(b.snap.CreatedAt) {
			return a.snap.CreatedAt.After(b.snap.CreatedAt)
		}
		return a.seq > b.seq
	})
	out := make([]ObjectSnapshot, 0, min(len(in), stateListCap))
	for _, x := range in[:min(len(in), stateListCap)] {
		out = append(out, x.snap)
	}
	return out
}

func (s *view) qrSnapshots(tx *kernel.Tx, h historyIndex) []ObjectSnapshot {
	if s.st.qr == nil {
		return []ObjectSnapshot{}
	}
	orders := s.st.qr.Orders(tx)
	out := make([]seqSnapshot, 0, len(orders))
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
		out = append(out, seqSnapshot{o.Seq, ObjectSnapshot{
			ID: o.ID, ExternalMemberID: o.ExternalMemberID, Status: o.Status, StatusVersion: o.Version, CreatedAt: o.CreatedAt.UTC(),
			Summary: o.CustomerTotal.String() + " " + o.Asset + " to " + o.Payee + " (" + d["acquirer"] + ")",
			Details: d, History: h.of("qrpay_order", o.ID, "qrp_"), Trace: o.Trace,
		}})
	}
	return sortNewest(out)
}

func (s *view) cardSnapshots(tx *kernel.Tx, h historyIndex) (apps, cards, topups []ObjectSnapshot) {
	if s.st.cards == nil {
		return []ObjectSnapshot{}, []ObjectSnapshot{}, []ObjectSnapshot{}
	}
	list := func(snaps []cardline.Snapshot, object, prefix string) []ObjectSnapshot {
		out := make([]seqSnapshot, 0, len(snaps))
		for _, o := range snaps {
			out = append(out, seqSnapshot{o.Seq, ObjectSnapshot{
				ID: o.ID, ExternalMemberID: s.externalIDOf(tx, o.MemberID), Status: o.Status, StatusVersion: o.StatusVersion,
				CreatedAt: o.CreatedAt.UTC(), Summary: o.Summary, Details: o.Details, History: h.of(object, o.ID, prefix),
			}})
		}
		return sortNewest(out)
	}
	return list(s.st.cards.ApplicationSnapshots(tx), "card_application", "cap_"),
		list(s.st.cards.CardSnapshots(tx), "card", "crd_"),
		list(s.st.cards.TopUpSnapshots(tx), "card_topup", "ctp_")
}

func (s *view) remitSnapshots(tx *kernel.Tx, h historyIndex) []ObjectSnapshot {
	if s.st.remit == nil {
		return []ObjectSnapshot{}
	}
	orders := s.st.remit.Orders(tx)
	out := make([]seqSnapshot, 0, len(orders))
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
		out = append(out, seqSnapshot{o.Seq, ObjectSnapshot{
			ID: o.ID, ExternalMemberID: o.ExternalMemberID, Status: o.PublicStatus, StatusVersion: o.Version, CreatedAt: o.CreatedAt.UTC(),
			Summary: o.PayoutAmount + " " + o.PayoutCurrency + " for " + o.CustomerTotal.String() + " " + o.Asset,
			Details: d, History: h.of("remittance", o.ID, "rmt_"),
		}})
	}
	return sortNewest(out)
}

func (s *view) depositSnapshots(tx *kernel.Tx, h historyIndex) []ObjectSnapshot {
	if s.st.deposits == nil {
		return []ObjectSnapshot{}
	}
	list := s.st.deposits.Deposits(tx)
	out := make([]seqSnapshot, 0, len(list))
	for _, d := range list {
		seq := strconv.FormatInt(d.Seq, 10)
		det := map[string]string{"reference": d.Reference, "asset": d.Asset, "amount": d.Amount.String(), "internal_id": seq}
		if d.Network != "" {
			det["network"] = d.Network
		}
		out = append(out, seqSnapshot{d.Seq, ObjectSnapshot{
			ID: "dep_" + d.Reference, ExternalMemberID: d.ExternalID, Status: "credited", CreatedAt: d.CreatedAt.UTC(),
			Summary: d.Amount.String() + " " + d.Asset, Details: det, History: h.of("deposit", seq, ""),
		}})
	}
	return sortNewest(out)
}
