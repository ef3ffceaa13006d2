package cards

import "github.com/mwallet/mwallet-go/simulator/internal/api"

// Limits and gates hold on every path. The card line checks its gates where
// a request executes, and again when an application it accepted is
// approved later without a new request, through the same functions below,
// so a deferred path cannot skip a gate the direct path enforces. The table
// of paths and gates is in the simulator's README.md ("Limits and gates on
// deferred paths").

// Card-line reasons added to those of products.go.
const (
	reasonMemberRestricted = "member_restricted"
	reasonProductGone      = "product_not_available"
)

// cardMemberGate returns why m may not be issued product p now, or "":
// member status, KYC (a profile under review stops issuing; a quick binding,
// bound, stands in for a missing genuine L1 on an L1 product only), the
// product's KYC-country restriction and outstanding penalties. The apply
// handler, the invoice and the approval of an application all use it.
func (l *Line) cardMemberGate(m *api.Member, p *cardProduct, bound bool) string {
	if l.host.Restricted(m) {
		return reasonMemberRestricted
	}
	if l.host.KYCInReview(m) {
		return reasonKYCRequired
	}
	if m.KYCLevel < p.KYCLevel && !(bound && p.KYCLevel <= 1) {
		return reasonKYCRequired
	}
	if p.BlockedKYC[l.kycCountryOf(m)] {
		return reasonKYCCountry
	}
	if l.st.penalties[m.ID] {
		return reasonPenalties
	}
	return ""
}

// cardIssuanceBlocker returns why application a may no longer be issued, or
// "": the product is gone, the quick KYC binding it relied on is no longer
// active, or the member no longer passes cardMemberGate. The card limit is
// not checked again: the application has held its slot since it was
// accepted.
func (l *Line) cardIssuanceBlocker(a *cardApplication) string {
	p := l.st.productByID[a.ProductID]
	if p == nil || !l.productVisible(p) {
		return reasonProductGone
	}
	m := l.host.Member(a.MemberID)
	bound := a.QuickBindingID != ""
	if bound && !l.host.BindingActive(m, a.QuickBindingID) {
		return reasonBindingNotActive
	}
	return l.cardMemberGate(m, p, bound)
}
