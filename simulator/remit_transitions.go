package simulator

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// remitInFlight puts an order in flight under the remittances outcome mode.
func (s *Simulator) remitInFlight(tx *kernel.Tx, o *remitOrder) {
	s.inFlight(tx, CollectionRemittances, o.ID)
}

// remitSucceed is the upstream's success path of an order: all the way to
// completed.
func (s *Simulator) remitSucceed(tx *kernel.Tx, id string) {
	o := s.remit.byID[id]
	if o == nil {
		return
	}
	for !isRemitFinal(o.Status) && o.Status != "needs_reconfirm" {
		if _, err := s.remitMove(tx, o, "advance", nil); err != nil {
			return
		}
	}
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

// remitActionBody is the optional body of the control actions.
type remitActionBody struct {
	// FailureCode (fail): the stable public failure code (default payout_rejected).
	FailureCode string `json:"failure_code"`
	// SettledAmount (complete): the real cost in the source asset, between the
	// fee and locked_amount (default customer_total).
	SettledAmount string `json:"settled_amount"`
}

func (s *Simulator) remitAction(tx *kernel.Tx, id, action string, body []byte) (*remitOrder, error) {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "rmt_") {
		id = "rmt_" + id
	}
	o := s.remit.byID[id]
	if o == nil {
		return nil, errNotFound("remittance")
	}
	var in remitActionBody
	if err := decodeControl(body, &in); err != nil {
		return nil, err
	}
	return s.remitMove(tx, o, action, &in)
}

// remitMove applies action to o: money first (one balanced entry, or
// nothing), then status, status_version, event and outcome bookkeeping.
func (s *Simulator) remitMove(tx *kernel.Tx, o *remitOrder, action string, in *remitActionBody) (*remitOrder, error) {
	if in == nil {
		in = &remitActionBody{}
	}
	to, ok := remitTransitions[action][o.Status]
	if !ok {
		if _, known := remitTransitions[action]; !known {
			return nil, errInvalidRequest("unknown remittance action " + action)
		}
		return nil, newErr("state_invalid", fmt.Sprintf("cannot %s a remittance in status %s", action, o.publicStatus()))
	}
	now := s.clock.Now()
	// A move towards the upstream re-checks the gates: an order that no
	// longer passes fails with the gate's code instead.
	code, err := s.remitGate(tx, o, to, now)
	if err != nil {
		return nil, err
	}
	if code != "" {
		return s.remitMove(tx, o, "fail", &remitActionBody{FailureCode: code})
	}
	from, held := o.accounts()
	switch to {
	case "platform_reviewing":
		if !o.Held {
			if err := s.ledger.Transfer(now, "remittance hold "+o.ID, o.Asset, o.Locked, from, held); err != nil {
				return nil, newErr("state_invalid", "merchant funds still insufficient")
			}
			o.Held, o.HeldAt = true, now
		}
	case "processing":
		o.PayoutDate = now.UTC().Format(time.DateOnly)
		o.RateDealt = true
	case "completed":
		cost := o.CustomerTotal
		if in.SettledAmount != "" {
			v, err := s.cat.amount(o.Asset, in.SettledAmount, decimalSigned)
			if err != nil || v.Cmp(o.Fee) < 0 || v.Cmp(o.Locked) > 0 {
				return nil, errInvalidRequest("settled_amount must be between the fee and locked_amount")
			}
			cost = v
		}
		principal, _ := cost.Sub(o.Fee)
		excess, _ := o.Locked.Sub(cost)
		posts := []Posting{
			{Account: held, Asset: o.Asset, Amount: o.Locked.Neg()},
			{Account: UpstreamAccount("remit"), Asset: o.Asset, Amount: principal},
			{Account: AccountRevenueFees, Asset: o.Asset, Amount: o.Fee},
		}
		if !excess.IsZero() {
			posts = append(posts, Posting{Account: from, Asset: o.Asset, Amount: excess})
		}
		if err := s.ledger.Post(now, "remittance settled "+o.ID, posts...); err != nil {
			return nil, err
		}
		o.Settled = cost
	case "failed":
		if o.Held {
			if err := s.ledger.Transfer(now, "remittance failed "+o.ID, o.Asset, o.Locked, held, from); err != nil {
				return nil, err
			}
		}
		o.FailureCode = in.FailureCode
		if o.FailureCode == "" {
			o.FailureCode = "payout_rejected"
		}
	case "refunded":
		principal, _ := o.Settled.Sub(o.Fee)
		if err := s.ledger.Post(now, "remittance returned "+o.ID,
			Posting{Account: UpstreamAccount("remit"), Asset: o.Asset, Amount: principal.Neg()},
			Posting{Account: AccountRevenueFees, Asset: o.Asset, Amount: o.Fee.Neg()},
			Posting{Account: from, Asset: o.Asset, Amount: o.Settled},
		); err != nil {
			return nil, err
		}
	}
	prev := o.Status
	o.Status = to
	o.Version++
	o.UpdatedAt = now
	if ev, ok := remitEvents[to]; ok {
		s.emit(tx, ev, "remittance", strings.TrimPrefix(o.ID, "rmt_"), o.Member, o.publicStatus(), o.Version, nil)
	}
	switch {
	case isRemitFinal(to) || to == "needs_reconfirm":
		s.settled(tx, o.ID)
	case prev == "pending_merchant_funds" || prev == "needs_reconfirm":
		s.remitInFlight(tx, o)
	}
	return o, nil
}

// onPrepaidTopUp advances orders waiting for merchant funds, oldest first,
// while the prepaid account covers them. The merchant control calls it after
// every prepaid top-up and when the merchant becomes active again. Each
// order passes the gates as of now (remitGate): one that no longer
// does fails with the gate's code and the next is tried; the first one the
// prepaid cannot cover stops the queue (first in, first out), and nothing
// advances while the merchant is not active.
func (s *Simulator) onPrepaidTopUp(tx *kernel.Tx) {
	if s.merchant.Status != MerchantActive {
		return
	}
	for _, o := range s.remit.orders {
		if o.Status != "pending_merchant_funds" {
			continue
		}
		if _, err := s.remitMove(tx, o, "advance", nil); err != nil {
			return
		}
	}
}

// topUpPrepaid credits the merchant prepaid account from outside money
// and advances the orders waiting for it.
func (s *Simulator) topUpPrepaid(tx *kernel.Tx, asset, amount string) error {
	asset = strings.ToUpper(strings.TrimSpace(asset))
	amt, err := s.cat.amount(asset, amount, decimalSigned)
	if err != nil || amt.Sign() <= 0 {
		return errInvalidRequest("asset and a positive amount at its ledger scale are required")
	}
	if err := s.ledger.Transfer(s.clock.Now(), "merchant prepaid top-up", asset, amt, AccountWorld, AccountMerchantPrepaid); err != nil {
		return err
	}
	s.onPrepaidTopUp(tx)
	return nil
}

// runRemitAction runs a control action on a remittance (id with or without
// rmt_) and returns its public status.
func (s *Simulator) runRemitAction(id, action string, in *remitActionBody) (string, error) {
	tx := s.k.Begin()
	defer tx.End()
	var body []byte
	if in != nil {
		body, _ = json.Marshal(in)
	}
	o, err := s.remitAction(tx, id, action, body)
	if err != nil {
		return "", err
	}
	return o.publicStatus(), nil
}
