package simulator

import (
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Limits and gates hold on every path. Each product line checks its gates
// where a request executes, and again wherever an object it accepted moves
// on later without a new request (a queue advancing, an approval, a
// dispatch), through the same functions below, so a deferred path cannot
// skip a gate the direct path enforces. The table of paths and gates is in
// README.md ("Limits and gates on deferred paths").

// memberRestriction names why m may not move money out of its wallet, or
// "": suspended and blocklisted members are unknown to member-scoped calls
// (member_not_found), banned and frozen ones are found but refused.
func memberRestriction(m *member) string {
	if m == nil {
		return "unknown"
	}
	switch m.Status {
	case "suspended", "blocklisted", "banned", "frozen":
		return m.Status
	}
	return ""
}

// kycInReview reports a member whose KYC profile is not approved: sent back
// to review by an update, rejected, or waiting for supplementary documents.
// Card issuing and remittances stop meanwhile, whatever level the member
// held and whatever quick KYC binding it has.
func (s *Simulator) kycInReview(m *member) bool {
	p := s.kyc.Profile(m)
	return p != nil && p.Status != "approved"
}

// Card-line reasons added to those of cards_products.go.
const (
	reasonMemberRestricted = "member_restricted"
	reasonProductGone      = "product_not_available"
)

// cardMemberGate returns why m may not be issued product p now, or "":
// member status, KYC (a profile under review stops issuing; a quick binding,
// bound, stands in for a missing genuine L1 on an L1 product only), the
// product's KYC-country restriction and outstanding penalties. The apply
// handler, the invoice and the approval of an application all use it.
func (s *Simulator) cardMemberGate(m *member, p *cardProduct, bound bool) string {
	if memberRestriction(m) != "" {
		return reasonMemberRestricted
	}
	if s.kycInReview(m) {
		return reasonKYCRequired
	}
	if m.KYCLevel < p.KYCLevel && !(bound && p.KYCLevel <= 1) {
		return reasonKYCRequired
	}
	if p.BlockedKYC[s.kycCountryOf(m)] {
		return reasonKYCCountry
	}
	if s.cards.penalties[m.ID] {
		return reasonPenalties
	}
	return ""
}

// cardIssuanceBlocker returns why application a may no longer be issued, or
// "": the product is gone, the quick KYC binding it relied on is no longer
// active, or the member no longer passes cardMemberGate. The card limit is
// not checked again: the application has held its slot since it was
// accepted.
func (s *Simulator) cardIssuanceBlocker(a *cardApplication) string {
	p := s.cards.productByID[a.ProductID]
	if p == nil || !s.productVisible(p) {
		return reasonProductGone
	}
	m := s.members.Get(a.MemberID)
	bound := a.QuickBindingID != ""
	if bound && !s.kyc.BindingActive(m, a.QuickBindingID) {
		return reasonBindingNotActive
	}
	return s.cardMemberGate(m, p, bound)
}

// remitEligibility checks the member and line gates of a remittance, in the
// order of POST /v1/remittances: pobo needs an active upstream subaccount
// (product_not_available), the member must meet the line's KYC with an
// approved profile (kyc_required), and must not be restricted nor pay a
// risk-listed payee (request_rejected).
func (s *Simulator) remitEligibility(m *member, line remitLine, p *payee) *apiError {
	if line.Name == "pobo" && s.remit.poboInactive {
		return newErr("product_not_available", "the pobo line needs an active upstream subaccount")
	}
	if m.KYCLevel < line.KYC || s.kycInReview(m) {
		return newErr("kyc_required", fmt.Sprintf("the %s line needs KYC level %d", line.Name, line.KYC))
	}
	if memberRestriction(m) != "" || riskListed(p.Holder) {
		return newErr("request_rejected", "request rejected")
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
func (s *Simulator) remitGate(tx *kernel.Tx, o *remitOrder, to string, now time.Time) (string, error) {
	if !remitBeforeUpstream(o.Status) || (to != "platform_reviewing" && to != "dispatching" && to != "processing") {
		return "", nil
	}
	queued := o.Status == "pending_merchant_funds"
	if queued {
		// A queued order is judged only when it would advance: with the
		// merchant active and its prepaid covering the order.
		if s.merchant.Status != MerchantActive {
			return "", newErr("state_invalid", "the merchant is "+string(s.merchant.Status)+": queued remittances wait")
		}
		from, _ := o.accounts()
		if s.ledger.Balance(from, o.Asset).Cmp(o.Locked) < 0 {
			return "", newErr("state_invalid", "merchant funds still insufficient")
		}
	}
	line, ok := remitLines[o.Line]
	if !ok {
		line = remitLines["express"]
	}
	if ae := s.remitEligibility(o.Member, line, o.Payee); ae != nil {
		return ae.Code, nil
	}
	if queued {
		pr := remitPrice{Asset: o.Asset, Scale: o.Scale, Principal: o.Principal, Fee: o.Fee, CustomerTotal: o.CustomerTotal, Locked: o.Locked, Rate: o.Rate}
		if ae := s.remitLimits(o.Member, line, pr, now); ae != nil {
			return ae.Code, nil
		}
	}
	return "", nil
}
