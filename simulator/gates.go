package simulator

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
	p := s.st.kyc.Profile(m)
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
	if s.st.cards.penalties[m.ID] {
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
	p := s.st.cards.productByID[a.ProductID]
	if p == nil || !s.productVisible(p) {
		return reasonProductGone
	}
	m := s.st.members.Get(a.MemberID)
	bound := a.QuickBindingID != ""
	if bound && !s.st.kyc.BindingActive(m, a.QuickBindingID) {
		return reasonBindingNotActive
	}
	return s.cardMemberGate(m, p, bound)
}
