package remittances

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// remitInFlight puts an order in flight under the remittances outcome mode.
func (l *Line) remitInFlight(tx *kernel.Tx, o *order) {
	tx.InFlight(Collection, o.ID)
}

// Succeed is the upstream's success path of an order (the outcome of the
// remittances collection): all the way to completed, one move at a time.
// Each move is a step of its own: one that fails is undone and stops the
// path where it is.
func (l *Line) Succeed(tx *kernel.Tx, id string) error {
	o, ok := l.st.orders.Get(tx, id)
	if !ok {
		return nil
	}
	for !isRemitFinal(o.Status) && o.Status != "needs_reconfirm" {
		err := tx.Step("remittance "+id+" advance", func() error {
			moved, err := l.remitMove(tx, &o, "advance", nil)
			if err == nil {
				o = *moved
			}
			return err
		})
		if err != nil {
			return nil
		}
	}
	return nil
}

func isRemitFinal(st string) bool { return st == "completed" || st == "failed" || st == "refunded" }

// remitTransitions is the remittance state machine as data: action, then
// from-status, then to-status. It reads like the contract's table plus the
// simulator's natural path (advance).
var remitTransitions = map[string]map[string]string{
	"advance": {
		"pending_merchant_funds": "platform_reviewing", // prepaid covers it now
		"reviewing":              "dispatching",
		"platform_reviewing":     "dispatching",
		"needs_reconfirm":        "dispatching",
		"dispatching":            "processing",
		"processing":             "completed",
	},
	"dispatch": {
		"reviewing": "processing", "platform_reviewing": "processing", "dispatching": "processing", "needs_reconfirm": "processing",
	},
	"complete": {"processing": "completed"},
	"fail": {
		"pending_merchant_funds": "failed", "reviewing": "failed", "platform_reviewing": "failed",
		"dispatching": "failed", "processing": "failed", "needs_reconfirm": "failed",
	},
	"refund": {"completed": "refunded"},
	"needs_reconfirm": {
		"reviewing": "needs_reconfirm", "platform_reviewing": "needs_reconfirm", "dispatching": "needs_reconfirm", "processing": "needs_reconfirm",
	},
}

// remitEvents names the event emitted on entering a status.
var remitEvents = map[string]string{
	"completed":       "remittance.order.completed",
	"failed":          "remittance.order.failed",
	"refunded":        "remittance.order.refunded",
	"needs_reconfirm": "remittance.order.action_required",
}

// ActionBody is the optional body of the control actions.
type ActionBody struct {
	// FailureCode (fail): the stable public failure code (default payout_rejected).
	FailureCode string `json:"failure_code"`
	// SettledAmount (complete): the real cost in the source asset, between the
	// fee and locked_amount (default customer_total).
	SettledAmount string `json:"settled_amount"`
}

func (l *Line) remitAction(tx *kernel.Tx, id, action string, body []byte) (*order, error) {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "rmt_") {
		id = "rmt_" + id
	}
	o, ok := l.st.orders.Get(tx, id)
	if !ok {
		return nil, api.NotFound("remittance")
	}
	var in ActionBody
	if ae := api.DecodeStrict(body, &in, api.RefuseUnknown); ae != nil {
		return nil, ae
	}
	return l.remitMove(tx, &o, action, &in)
}

// remitMove applies action to o (a copy of the order's row, written back):
// money first (one balanced entry, or nothing), then status,
// status_version, event and outcome bookkeeping.
func (l *Line) remitMove(tx *kernel.Tx, o *order, action string, in *ActionBody) (*order, error) {
	if in == nil {
		in = &ActionBody{}
	}
	to, ok := remitTransitions[action][o.Status]
	if !ok {
		if _, known := remitTransitions[action]; !known {
			return nil, api.InvalidRequest("unknown remittance action " + action)
		}
		return nil, api.NewErr("state_invalid", fmt.Sprintf("cannot %s a remittance in status %s", action, o.publicStatus()))
	}
	now := tx.Now()
	// A move towards the upstream re-checks the gates: an order that no
	// longer passes fails with the gate's code instead.
	code, err := l.remitGate(tx, o, to, now)
	if err != nil {
		return nil, err
	}
	if code != "" {
		return l.remitMove(tx, o, "fail", &ActionBody{FailureCode: code})
	}
	from, held := l.accounts(o)
	switch to {
	case "platform_reviewing":
		if !o.Held {
			if err := tx.Transfer(now, "remittance hold "+o.ID, o.Asset, o.Locked, from, held); err != nil {
				return nil, api.NewErr("state_invalid", "merchant funds still insufficient")
			}
			o.Held, o.HeldAt = true, now
		}
	case "processing":
		o.PayoutDate = now.UTC().Format(time.DateOnly)
		o.RateDealt = true
	case "completed":
		cost := o.CustomerTotal
		if in.SettledAmount != "" {
			v, err := tx.Amount(o.Asset, in.SettledAmount)
			if err != nil || v.Cmp(o.Fee) < 0 || v.Cmp(o.Locked) > 0 {
				return nil, api.InvalidRequest("settled_amount must be between the fee and locked_amount")
			}
			cost = v
		}
		principal, _ := cost.Sub(o.Fee)
		excess, _ := o.Locked.Sub(cost)
		upstream, fees := kernel.UpstreamAccount(Upstream), kernel.AccountRevenueFees
		posts := []kernel.Posting{
			{Account: held, Asset: o.Asset, Amount: o.Locked.Neg()},
			{Account: upstream, Asset: o.Asset, Amount: principal},
			{Account: fees, Asset: o.Asset, Amount: o.Fee},
		}
		if !excess.IsZero() {
			posts = append(posts, kernel.Posting{Account: from, Asset: o.Asset, Amount: excess})
		}
		if err := tx.Post(now, "remittance settled "+o.ID, posts...); err != nil {
			return nil, err
		}
		o.Settled = cost
	case "failed":
		if o.Held {
			if err := tx.Transfer(now, "remittance failed "+o.ID, o.Asset, o.Locked, held, from); err != nil {
				return nil, err
			}
		}
		o.FailureCode = in.FailureCode
		if o.FailureCode == "" {
			o.FailureCode = "payout_rejected"
		}
	case "refunded":
		principal, _ := o.Settled.Sub(o.Fee)
		upstream, fees := kernel.UpstreamAccount(Upstream), kernel.AccountRevenueFees
		if err := tx.Post(now, "remittance returned "+o.ID,
			kernel.Posting{Account: upstream, Asset: o.Asset, Amount: principal.Neg()},
			kernel.Posting{Account: fees, Asset: o.Asset, Amount: o.Fee.Neg()},
			kernel.Posting{Account: from, Asset: o.Asset, Amount: o.Settled},
		); err != nil {
			return nil, err
		}
	}
	prev := o.Status
	o.Status = to
	o.Version++
	o.UpdatedAt = now
	l.st.orders.Put(tx, o.ID, *o)
	if ev, ok := remitEvents[to]; ok {
		tx.Emit(kernel.Event{Type: ev, Object: "remittance", ObjectID: strings.TrimPrefix(o.ID, "rmt_"),
			MemberID: o.MemberID, Status: o.publicStatus(), Version: o.Version})
	}
	switch {
	case isRemitFinal(to) || to == "needs_reconfirm":
		tx.Settled(o.ID)
	case prev == "pending_merchant_funds" || prev == "needs_reconfirm":
		l.remitInFlight(tx, o)
	}
	return o, nil
}

// AdvanceQueued advances orders waiting for merchant funds, oldest first,
// while the prepaid account covers them. The merchant control calls it after
// every prepaid top-up and when the merchant becomes active again. Each
// order passes the gates as of now (remitGate): one that no longer
// does fails with the gate's code and the next is tried; the first one the
// prepaid cannot cover stops the queue (first in, first out), and nothing
// advances while the merchant is not active.
func (l *Line) AdvanceQueued(tx *kernel.Tx) {
	if _, active := l.host.MerchantStatus(tx); !active {
		return
	}
	var queued []order
	for _, o := range l.st.list.All(tx) {
		if o.Status == "pending_merchant_funds" {
			queued = append(queued, o)
		}
	}
	for _, o := range queued {
		if _, err := l.remitMove(tx, &o, "advance", nil); err != nil {
			return
		}
	}
}

// Act runs control action remittances/{id}/{action} (id with or without
// rmt_) with its raw JSON body and answers the order.
func (l *Line) Act(tx *kernel.Tx, id, action string, body []byte) (map[string]any, error) {
	o, err := l.remitAction(tx, id, action, body)
	if err != nil {
		return nil, err
	}
	return l.remitOrderJSON(tx, o), nil
}

// Control runs a control action on a remittance (id with or without
// rmt_) from the Go API and returns its public status.
func (l *Line) Control(tx *kernel.Tx, id, action string, in *ActionBody) (string, error) {
	var body []byte
	if in != nil {
		body, _ = json.Marshal(in)
	}
	o, err := l.remitAction(tx, id, action, body)
	if err != nil {
		return "", err
	}
	return o.publicStatus(), nil
}
