package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/devtools"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// Developer tools: a read-only snapshot of the whole simulator (GET
// /_sim/state) and the dashboard that shows it (control_core.go); the operator's
// redelivery of a webhook delivery is the webhook line's (RedeliverID). The accounts, the product-line
// objects read from the wired lines (devtools.Lines) and the dashboard's
// files are internal/devtools'; this file holds the public types and their
// conversion.

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

// view is the operator's read-only view of the whole state: the snapshot
// the dashboard and GET /_sim/state show, the window sizes (Stats), the
// invariants, and the control API's member and Key documents. It reads the
// lines through their read-only views and the kernel's books, and changes
// nothing. It holds the state, what the simulator started from (partial),
// and the names of the control actions (actions, read without the lock: the
// caller holds it).
type view struct {
	k       *kernel.Kernel // its verify mode's violations (internal/kernel, verify.go)
	st      *simState
	partial *PartialReplay
	actions func() []string
}

// state is the snapshot of GET /_sim/state and Simulator.State: the
// accounts and the product-line objects as internal/devtools reads them
// (devtools.Prepaid, devtools.Members, devtools.Read), in the public types.
func (v *view) state(tx *kernel.Tx) StateSnapshot {
	assets := devtools.AssetCodes(v.st.cat.All())
	st := StateSnapshot{
		Now:           tx.Now().UTC(),
		PendingTimers: v.st.outcome.Pending(tx),
		PartialReplay: v.partial,
		Merchant: MerchantSnapshot{
			ID: v.st.merchant.ID(tx), Model: Model(v.st.merchant.Model(tx)), Status: MerchantStatus(v.st.merchant.Status(tx)), Environment: Environment(v.st.merchant.Env(tx)),
			Prepaid: balanceSnapshots(devtools.Prepaid(tx, v.st.ledger, assets)),
		},
	}
	for _, m := range devtools.Members(tx, v.st.ledger, v.st.members.All(tx), assets) {
		st.Members = append(st.Members, MemberSnapshot{ID: m.ID, ExternalMemberID: m.ExternalMemberID, KYCLevel: m.KYCLevel,
			Status: m.Status, PlatformDirect: m.PlatformDirect, Balances: balanceSnapshots(m.Balances), CreatedAt: m.CreatedAt})
	}

	objs := devtools.Read(tx, devtools.Lines{QR: v.st.qr, Card: v.st.cards, Remit: v.st.remit, Deposit: v.st.deposits,
		Hooks: v.st.webhooks, Members: &v.st.members})
	st.QROrders = objectSnapshots(objs.QROrders)
	st.CardApplications, st.Cards, st.CardTopUps = objectSnapshots(objs.CardApplications), objectSnapshots(objs.Cards), objectSnapshots(objs.CardTopUps)
	st.Remittances = objectSnapshots(objs.Remittances)
	st.Deposits = objectSnapshots(objs.Deposits)

	st.WebhookEndpoints = hookline.Copies(v.st.webhooks.EndpointList(tx), webhookEndpointOf)
	st.WebhookDeliveries = devtools.NewestFirst(hookline.Copies(v.st.webhooks.Deliveries(tx), webhookDeliveryOf))
	st.Events = devtools.NewestFirst(v.events(tx))
	st.Requests = devtools.NewestFirst(journalList(tx, v.st.gw.Journal))
	st.Actions = v.actions()
	return st
}

// accounts is the control API's view of a member and its accounts
// (devtools.Accounts).
func (v *view) accounts() devtools.Accounts {
	return devtools.Accounts{Books: v.st.ledger, Catalogue: v.st.cat.Catalogue, Members: &v.st.members, Merchant: v.st.merchant}
}

// events returns a copy of the events recorded so far, oldest first.
func (v *view) events(tx *kernel.Tx) []Event {
	return hookline.Copies(v.st.webhooks.Events(tx), func(e hookline.Event) Event { return Event(e) })
}

// balanceSnapshots converts the developer views' balances to the public
// type (nil stays nil).
func balanceSnapshots(in []devtools.Balance) []BalanceSnapshot {
	if in == nil {
		return nil
	}
	return hookline.Copies(in, func(b devtools.Balance) BalanceSnapshot { return BalanceSnapshot(b) })
}

// objectSnapshots converts the developer views' objects to the public
// type.
func objectSnapshots(in []devtools.Object) []ObjectSnapshot {
	return hookline.Copies(in, func(o devtools.Object) ObjectSnapshot {
		return ObjectSnapshot{ID: o.ID, ExternalMemberID: o.ExternalMemberID, Status: o.Status, StatusVersion: o.StatusVersion,
			CreatedAt: o.CreatedAt, Summary: o.Summary, Details: o.Details, Trace: o.Trace,
			History: hookline.Copies(o.History, func(e devtools.History) HistoryEntry { return HistoryEntry(e) })}
	})
}
