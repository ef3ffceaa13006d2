package remittances

import (
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The gates of a remittance: at creation, and again on the moves towards
// the upstream (the simulator's README, "Limits and gates on deferred
// paths").

// remitEligibility checks the member and line gates of a remittance, in the
// order of POST /v1/remittances: pobo needs an active upstream subaccount
// (product_not_available), the member must meet the line's KYC with an
// approved profile (kyc_required), and must not be restricted nor pay a
// risk-listed payee (request_rejected).
func (l *Line) remitEligibility(tx *kernel.Tx, m *api.Member, line lineSpec, p payee) *api.Error {
	if line.Name == "pobo" && l.st.poboInactive.Get(tx) {
		return api.NewErr("product_not_available", "the pobo line needs an active upstream subaccount")
	}
	if m.KYCLevel < line.KYC || l.host.KYCInReview(tx, m) {
		return api.NewErr("kyc_required", fmt.Sprintf("the %s line needs KYC level %d", line.Name, line.KYC))
	}
	if m.Restricted() || riskListed(p.Holder) {
		return api.NewErr("request_rejected", "request rejected")
	}
	return nil
}

// remitBeforeUpstream reports the statuses in which no upstream order exists
// yet: the order is queued, in review or about to be sent.
func remitBeforeUpstream(status string) bool {
	switch status {
	case "pending_merchant_funds", "reviewing", "platform_reviewing", "dispatching", "needs_reconfirm":
		return true
	}
	return false
}

// remitGate decides whether o may make the move to status to. Moves
// that take an order towards the upstream from before it (a queued order
// advancing, a reviewed or reconfirmed order dispatching) re-check the
// member and line gates; a queued order, which reserved no limit, also
// re-checks the minimum, per-order and daily limits as of now. It returns
// the failure code the order fails with when a gate no longer passes ("" to
// go on), or an error that leaves the order where it is: a queued order
// waits, judged by no gate, while the merchant is not active or its prepaid
// does not cover the order.
func (l *Line) remitGate(tx *kernel.Tx, o *order, to string, now time.Time) (string, error) {
	if !remitBeforeUpstream(o.Status) || (to != "platform_reviewing" && to != "dispatching" && to != "processing") {
		return "", nil
	}
	queued := o.Status == "pending_merchant_funds"
	if queued {
		// A queued order is judged only when it would advance: with the
		// merchant active and its prepaid covering the order.
		if status, active := l.host.MerchantStatus(tx); !active {
			return "", api.NewErr("state_invalid", "the merchant is "+status+": queued remittances wait")
		}
		from, _ := l.accounts(o)
		if tx.Balance(from, o.Asset).Cmp(o.Locked) < 0 {
			return "", api.NewErr("state_invalid", "merchant funds still insufficient")
		}
	}
	line, ok := lineSpecs[o.Line]
	if !ok {
		line = lineSpecs["express"]
	}
	m := l.member(tx, o)
	if ae := l.remitEligibility(tx, m, line, l.payee(tx, o)); ae != nil {
		return ae.Code, nil
	}
	if queued {
		pr := pricing{Asset: o.Asset, Scale: o.Scale, Principal: o.Principal, Fee: o.Fee, CustomerTotal: o.CustomerTotal, Locked: o.Locked, Rate: o.Rate}
		if ae := l.remitLimits(tx, m, line, pr, now); ae != nil {
			return ae.Code, nil
		}
	}
	return "", nil
}
