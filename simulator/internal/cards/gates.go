package cards

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

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
func (l *Line) cardMemberGate(tx *kernel.Tx, m *api.Member, p *cardProduct, bound bool) string {
	if m.Restricted() {
		return reasonMemberRestricted
	}
	if l.host.KYCInReview(tx, m) {
		return reasonKYCRequired
	}
	if m.KYCLevel < p.KYCLevel && !(bound && p.KYCLevel <= 1) {
		return reasonKYCRequired
	}
	if p.blocksKYC(l.kycCountryOf(tx, m)) {
		return reasonKYCCountry
	}
	if pen, _ := l.st.penalties.Get(tx, m.ID); pen {
		return reasonPenalties
	}
	return ""
}

// cardIssuanceBlocker returns why application a may no longer be issued, or
// "": the product is gone, the quick KYC binding it relied on is no longer
// active, or the member no longer passes cardMemberGate. The card limit is
// not checked again: the application has held its slot since it was
// accepted.
func (l *Line) cardIssuanceBlocker(tx *kernel.Tx, a *cardApplication) string {
	p := l.product(tx, a.ProductID)
	if p == nil || !l.productVisible(tx, p) {
		return reasonProductGone
	}
	m := l.host.Member(tx, a.MemberID)
	bound := a.QuickBindingID != ""
	if bound && !l.host.BindingActive(tx, m, a.QuickBindingID) {
		return reasonBindingNotActive
	}
	return l.cardMemberGate(tx, m, p, bound)
}
