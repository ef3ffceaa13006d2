package simulator

import (
	"net/http"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/devtools"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// Developer tools: a read-only snapshot of the whole simulator (GET
// /_sim/state), the operator's redelivery of a webhook delivery, and the
// dashboard that shows both (ui.go). The product-line objects and the
// dashboard's files are internal/devtools'; this file holds the public
// types and what the views read of the state.

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
		PendingTimers: s.st.outcome.Pending(tx),
		PartialReplay: v.partial,
		Merchant: MerchantSnapshot{
			ID: s.st.merchant.ID(tx), Model: Model(s.st.merchant.Model(tx)), Status: MerchantStatus(s.st.merchant.Status(tx)), Environment: Environment(s.st.merchant.Env(tx)),
		},
	}
	for _, a := range s.st.cat.All() {
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
		for _, a := range s.st.cat.All() {
			ms.Balances = append(ms.Balances, BalanceSnapshot{
				Asset:     a.Code,
				Available: s.st.ledger.Balance(tx, MemberAvailable(m.ID), a.Code).String(),
				Locked:    s.st.ledger.Balance(tx, MemberLocked(m.ID), a.Code).String(),
			})
		}
		st.Members = append(st.Members, ms)
	}

	objs := devtools.Read(tx, viewSource{s.st})
	st.QROrders = objectSnapshots(objs.QROrders)
	st.CardApplications, st.Cards, st.CardTopUps = objectSnapshots(objs.CardApplications), objectSnapshots(objs.Cards), objectSnapshots(objs.CardTopUps)
	st.Remittances = objectSnapshots(objs.Remittances)
	st.Deposits = objectSnapshots(objs.Deposits)

	st.WebhookEndpoints = webhookEndpoints(tx, s.st.webhooks)
	st.WebhookDeliveries = devtools.NewestFirst(webhookDeliveries(tx, s.st.webhooks))
	st.Events = devtools.NewestFirst(v.events(tx))
	st.Requests = devtools.NewestFirst(s.st.gw.journal.list(tx))
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

// objectSnapshots converts the developer views' objects to the public
// type.
func objectSnapshots(in []devtools.Object) []ObjectSnapshot {
	out := make([]ObjectSnapshot, len(in))
	for i, o := range in {
		h := make([]HistoryEntry, len(o.History))
		for j, e := range o.History {
			h[j] = HistoryEntry(e)
		}
		out[i] = ObjectSnapshot{ID: o.ID, ExternalMemberID: o.ExternalMemberID, Status: o.Status, StatusVersion: o.StatusVersion,
			CreatedAt: o.CreatedAt, Summary: o.Summary, Details: o.Details, History: h, Trace: o.Trace}
	}
	return out
}

// viewSource is what the developer views read of the state: each line's
// listing (nil when the line is not wired) and the members.
type viewSource struct{ st *simState }

func (v viewSource) QROrders(tx *kernel.Tx) []qrpay.Order {
	if v.st.qr == nil {
		return nil
	}
	return v.st.qr.Orders(tx)
}

func (v viewSource) CardApplications(tx *kernel.Tx) []cardline.Snapshot {
	if v.st.cards == nil {
		return nil
	}
	return v.st.cards.ApplicationSnapshots(tx)
}

func (v viewSource) Cards(tx *kernel.Tx) []cardline.Snapshot {
	if v.st.cards == nil {
		return nil
	}
	return v.st.cards.CardSnapshots(tx)
}

func (v viewSource) CardTopUps(tx *kernel.Tx) []cardline.Snapshot {
	if v.st.cards == nil {
		return nil
	}
	return v.st.cards.TopUpSnapshots(tx)
}

func (v viewSource) Remittances(tx *kernel.Tx) []remittances.Order {
	if v.st.remit == nil {
		return nil
	}
	return v.st.remit.Orders(tx)
}

func (v viewSource) Deposits(tx *kernel.Tx) []deposits.Deposit {
	if v.st.deposits == nil {
		return nil
	}
	return v.st.deposits.Deposits(tx)
}

func (v viewSource) Events(tx *kernel.Tx) []hookline.Event { return v.st.webhooks.Events(tx) }

func (v viewSource) ExternalID(tx *kernel.Tx, memberID string) string {
	if m := v.st.members.Get(tx, memberID); m != nil {
		return m.ExternalID
	}
	return ""
}
