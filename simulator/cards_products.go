package simulator

import (
	"net/http"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/money"
)

// registerCardEndpoints declares every /v1/cards endpoint.
func (s *Simulator) registerCardEndpoints() {
	get := func(pattern, scope string, member bool, h func(*rc) (int, any, error)) {
		s.register(endpoint{Method: http.MethodGet, Pattern: pattern, Scope: scope, Member: member, Handle: h})
	}
	post := func(pattern, scope string, idem bool, h func(*rc) (int, any, error)) {
		s.register(endpoint{Method: http.MethodPost, Pattern: pattern, Scope: scope, Member: true, Idempotent: idem, Handle: h})
	}
	get("/v1/cards/products", "cards:read", false, s.handleCardProducts)
	get("/v1/cards/products/{id}/quote", "cards:read", true, s.handleCardQuote)
	post("/v1/cards/applications", "cards:write", true, s.handleCardApply)
	get("/v1/cards", "cards:read", true, s.handleCardList)
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/cards/{id}", Scope: "cards:read", Member: true,
		Handle: s.handleCardGet, Serves: func(path string) bool { return path != "/v1/cards/applications" }})
	// GET /v1/cards/applications/{id}, /v1/cards/{id}/close-check and
	// /v1/cards/{id}/transactions overlap as ServeMux patterns; one pattern
	// serves the three.
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/cards/{id}/{sub}", Scope: "cards:read", Member: true,
		Handle: s.handleCardSubGet, Serves: cardSubPath,
		Routes: []string{"/v1/cards/applications/{id}", "/v1/cards/{id}/close-check", "/v1/cards/{id}/transactions"}})
	post("/v1/cards/{id}/activate", "cards:write", true, s.handleCardActivate)
	post("/v1/cards/{id}/pin", "cards:write", true, s.handleCardPIN)
	post("/v1/cards/{id}/lost", "cards:write", true, s.handleCardLost)
	// Freeze and unfreeze are naturally idempotent: no key needed.
	post("/v1/cards/{id}/freeze", "cards:write", false, s.handleCardFreeze)
	post("/v1/cards/{id}/unfreeze", "cards:write", false, s.handleCardUnfreeze)
	post("/v1/cards/{id}/close", "cards:write", true, s.handleCardClose)
	post("/v1/cards/{id}/replacements", "cards:write", true, s.handleCardReplace)
	post("/v1/cards/{id}/secure-session", "cards:secure", false, s.handleCardSecureSession)
	post("/v1/cards/{id}/topups", "cards:write", true, s.handleCardTopUp)
	get("/v1/cards/{id}/topups/estimate", "cards:read", true, s.handleCardTopUpEstimate)
}

func (s *Simulator) handleCardProducts(c *rc) (int, any, error) {
	items := []map[string]any{}
	for _, p := range s.st.cards.products {
		if !s.productVisible(p) {
			continue
		}
		items = append(items, map[string]any{
			"id": p.ID, "form_factor": p.FormFactor, "currency": cardCurrency, "bin": p.BIN, "scheme": p.Scheme,
			"limits_updatable": p.LimitsUpdatable, "card_types": append([]string{}, p.CardTypes...),
		})
	}
	return 200, listEnvelope{Data: items, NextCursor: nil, HasMore: false}, nil
}

// cardSlotsUsed counts m's card-limit slots of a form factor: applications
// in progress and cards that have not ended.
func (s *Simulator) cardSlotsUsed(m *member, formFactor string) int {
	n := 0
	for _, a := range s.st.cards.apps {
		if a.MemberID == m.ID && a.FormFactor == formFactor && (a.Status == "pending_review" || a.Status == "submitted") {
			n++
		}
	}
	for _, c := range s.st.cards.cardsByMem[m.ID] {
		if c.FormFactor == formFactor && !cardEnded(c.Status) {
			n++
		}
	}
	return n
}

// Reasons of an invoice's can_apply false.
const (
	reasonKYCRequired      = "kyc_required"
	reasonKYCCountry       = "kyc_country_restricted"
	reasonPenalties        = "outstanding_penalties"
	reasonCardLimit        = "card_limit_reached"
	reasonNoAddress        = "no_shipping_address"
	reasonBindingNotActive = "quick_kyc_binding_not_active"
)

// cardIneligibility returns why m cannot apply for p now, or "". allocating
// says a quick KYC profile will be allocated for the application.
func (s *Simulator) cardIneligibility(m *member, p *cardProduct, bindingID string, allocating bool) string {
	bound := allocating
	if bindingID != "" {
		if !s.st.kyc.BindingActive(m, bindingID) {
			return reasonBindingNotActive
		}
		bound = true
	}
	// Member status, KYC (a quick binding stands in for a missing genuine
	// L1 only, never while the profile is under review, never for an L2
	// product), KYC country and penalties: the gates an approval checks
	// again.
	if r := s.cardMemberGate(m, p, bound); r != "" {
		return r
	}
	if s.cardSlotsUsed(m, p.formFactor()) >= s.st.cards.limits[p.formFactor()] {
		return reasonCardLimit
	}
	if p.physical() && len(s.deliverableAddresses(m, p)) == 0 {
		return reasonNoAddress
	}
	return ""
}

// deliverableAddresses lists m's addresses in countries the product ships to.
func (s *Simulator) deliverableAddresses(m *member, p *cardProduct) []*cardAddress {
	var out []*cardAddress
	for _, a := range s.memberAddresses(m) {
		if _, ok := p.ShippingFees[a.Country]; ok {
			out = append(out, a)
		}
	}
	return out
}

// shippingFee is the fee to ship p to a, zero for virtual products; ok is
// false for a country the product does not ship to.
func (s *Simulator) shippingFee(p *cardProduct, a *cardAddress) (money.Amount, bool) {
	if !p.physical() {
		return s.st.cat.mustAmount(p.FeeAsset, "0"), true
	}
	v, ok := p.ShippingFees[a.Country]
	if !ok {
		return money.Amount{}, false
	}
	return s.st.cat.mustAmount(p.FeeAsset, v), true
}

func (s *Simulator) handleCardQuote(c *rc) (int, any, error) {
	p := s.lookupProduct(c.PathID())
	if p == nil {
		return 0, nil, errNotFound("card product")
	}
	binding := c.Req.URL.Query().Get("quick_kyc_binding_id")
	fee := s.st.cat.mustAmount(p.FeeAsset, p.IssueFee)
	shipping := s.st.cat.mustAmount(p.FeeAsset, "0")
	out := map[string]any{
		"product_id": p.ID, "form_factor": p.FormFactor, "fee_asset": p.FeeAsset,
		"ledger_scale": fee.Scale(), "display_scale": s.st.cat.lookup(p.FeeAsset).DisplayScale,
		"issue_fee": fee.String(), "min_first_topup": s.st.cat.mustAmount(p.FeeAsset, p.MinFirstTopUp).String(),
	}
	if p.physical() {
		rows := []map[string]any{}
		addrs := s.deliverableAddresses(c.Member, p)
		sort.SliceStable(addrs, func(i, j int) bool { return addrs[i].IsDefault && !addrs[j].IsDefault })
		for i, a := range addrs {
			sf, _ := s.shippingFee(p, a)
			total, _ := fee.Add(sf)
			if i == 0 {
				shipping = sf // the default address (or the first deliverable one)
			}
			rows = append(rows, map[string]any{"address_id": a.ID, "country": a.Country, "is_default": a.IsDefault,
				"shipping_fee": sf.String(), "total": total.String(), "deliverable": true, "reason": ""})
		}
		out["shipping_by_address"] = rows
	}
	out["shipping_fee"] = shipping.String()
	reason := s.cardIneligibility(c.Member, p, binding, false)
	out["can_apply"] = reason == ""
	out["reason"] = reason
	return 200, out, nil
}

// handleCardSubGet serves GET /v1/cards/applications/{id},
// /v1/cards/{id}/close-check and /v1/cards/{id}/transactions.
// cardSubPath reports the paths /v1/cards/{id}/{sub} serves:
// applications/{id}, {id}/close-check and {id}/transactions.
func cardSubPath(path string) bool {
	segs := strings.Split(path, "/") // "", "v1", "cards", id, sub
	return len(segs) == 5 && (segs[3] == "applications" || segs[4] == "close-check" || segs[4] == "transactions")
}

func (s *Simulator) handleCardSubGet(c *rc) (int, any, error) {
	sub := c.Req.PathValue("sub")
	switch {
	case c.PathID() == "applications":
		return s.handleCardApplicationGet(c, sub)
	case sub == "close-check":
		return s.handleCardCloseCheck(c)
	case sub == "transactions":
		return s.handleCardTransactions(c)
	}
	return 0, nil, errNotFound("path " + c.Req.URL.Path)
}
