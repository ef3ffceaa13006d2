package cards

import (
	"net/http"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Endpoints declares every /v1/cards endpoint.
func (l *Line) Endpoints() []api.Endpoint {
	var out []api.Endpoint
	add := func(e api.Endpoint) { out = append(out, e) }
	get := func(pattern, scope string, member bool, h func(*api.Request) (int, any, error)) {
		add(api.Endpoint{Method: http.MethodGet, Pattern: pattern, Scope: scope, Member: member, Handle: h})
	}
	post := func(pattern, scope string, idem bool, h func(*api.Request) (int, any, error)) {
		add(api.Endpoint{Method: http.MethodPost, Pattern: pattern, Scope: scope, Member: true, Idempotent: idem, Handle: h})
	}
	get("/v1/cards/products", "cards:read", false, l.handleCardProducts)
	get("/v1/cards/products/{id}/quote", "cards:read", true, l.handleCardQuote)
	post("/v1/cards/applications", "cards:write", true, l.handleCardApply)
	get("/v1/cards", "cards:read", true, l.handleCardList)
	add(api.Endpoint{Method: http.MethodGet, Pattern: "/v1/cards/{id}", Scope: "cards:read", Member: true,
		Handle: l.handleCardGet, Serves: func(path string) bool { return path != "/v1/cards/applications" }})
	// GET /v1/cards/applications/{id}, /v1/cards/{id}/close-check and
	// /v1/cards/{id}/transactions overlap as ServeMux patterns; one pattern
	// serves the three.
	add(api.Endpoint{Method: http.MethodGet, Pattern: "/v1/cards/{id}/{sub}", Scope: "cards:read", Member: true,
		Handle: l.handleCardSubGet, Serves: cardSubPath,
		Routes: []string{"/v1/cards/applications/{id}", "/v1/cards/{id}/close-check", "/v1/cards/{id}/transactions"}})
	post("/v1/cards/{id}/activate", "cards:write", true, l.handleCardActivate)
	post("/v1/cards/{id}/pin", "cards:write", true, l.handleCardPIN)
	post("/v1/cards/{id}/lost", "cards:write", true, l.handleCardLost)
	// Freeze and unfreeze are naturally idempotent: no key needed.
	post("/v1/cards/{id}/freeze", "cards:write", false, l.handleCardFreeze)
	post("/v1/cards/{id}/unfreeze", "cards:write", false, l.handleCardUnfreeze)
	post("/v1/cards/{id}/close", "cards:write", true, l.handleCardClose)
	post("/v1/cards/{id}/replacements", "cards:write", true, l.handleCardReplace)
	post("/v1/cards/{id}/secure-session", "cards:secure", false, l.handleCardSecureSession)
	post("/v1/cards/{id}/topups", "cards:write", true, l.handleCardTopUp)
	get("/v1/cards/{id}/topups/estimate", "cards:read", true, l.handleCardTopUpEstimate)
	return out
}

func (l *Line) handleCardProducts(c *api.Request) (int, any, error) {
	items := []map[string]any{}
	for _, p := range l.st.catalogue.All(c.Tx) {
		if !l.productVisible(c.Tx, &p) {
			continue
		}
		items = append(items, map[string]any{
			"id": p.ID, "form_factor": p.FormFactor, "currency": cardCurrency, "bin": p.BIN, "scheme": p.Scheme,
			"limits_updatable": p.LimitsUpdatable, "card_types": append([]string{}, p.CardTypes.Slice()...),
		})
	}
	return 200, api.ListEnvelope{Data: items, NextCursor: nil, HasMore: false}, nil
}

// cardSlotsUsed counts m's card-limit slots of a form factor: applications
// in progress and cards that have not ended.
func (l *Line) cardSlotsUsed(tx *kernel.Tx, m *api.Member, formFactor string) int {
	n := 0
	for _, a := range l.st.apps.All(tx) {
		if a.MemberID == m.ID && a.FormFactor == formFactor && (a.Status == "pending_review" || a.Status == "submitted") {
			n++
		}
	}
	for _, c := range owned(tx, l.st.cardsByMem, m.ID) {
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
func (l *Line) cardIneligibility(tx *kernel.Tx, m *api.Member, p *cardProduct, bindingID string, allocating bool) string {
	bound := allocating
	if bindingID != "" {
		if !l.host.BindingActive(tx, m, bindingID) {
			return reasonBindingNotActive
		}
		bound = true
	}
	// Member status, KYC (a quick binding stands in for a missing genuine
	// L1 only, never while the profile is under review, never for an L2
	// product), KYC country and penalties: the gates an approval checks
	// again.
	if r := l.cardMemberGate(tx, m, p, bound); r != "" {
		return r
	}
	limit, _ := l.st.limits.Get(tx, p.formFactor())
	if l.cardSlotsUsed(tx, m, p.formFactor()) >= limit {
		return reasonCardLimit
	}
	if p.physical() && len(l.deliverableAddresses(tx, m, p)) == 0 {
		return reasonNoAddress
	}
	return ""
}

// deliverableAddresses lists m's addresses in countries the product ships to.
func (l *Line) deliverableAddresses(tx *kernel.Tx, m *api.Member, p *cardProduct) []cardAddress {
	var out []cardAddress
	for _, a := range l.memberAddresses(tx, m.ID) {
		if _, ok := p.shippingTo(a.Country); ok {
			out = append(out, a)
		}
	}
	return out
}

// shippingFee is the fee to ship p to a, zero for virtual products; ok is
// false for a country the product does not ship to.
func (l *Line) shippingFee(tx *kernel.Tx, p *cardProduct, a cardAddress) (money.Amount, bool) {
	if !p.physical() {
		return mustAmount(tx, p.FeeAsset, "0"), true
	}
	v, ok := p.shippingTo(a.Country)
	if !ok {
		return money.Amount{}, false
	}
	return mustAmount(tx, p.FeeAsset, v), true
}

func (l *Line) handleCardQuote(c *api.Request) (int, any, error) {
	p := l.lookupProduct(c.Tx, c.PathID())
	if p == nil {
		return 0, nil, api.NotFound("card product")
	}
	binding := c.Req.URL.Query().Get("quick_kyc_binding_id")
	fee := mustAmount(c.Tx, p.FeeAsset, p.IssueFee)
	shipping := mustAmount(c.Tx, p.FeeAsset, "0")
	out := map[string]any{
		"product_id": p.ID, "form_factor": p.FormFactor, "fee_asset": p.FeeAsset,
		"ledger_scale": fee.Scale(), "display_scale": displayScale(c.Tx, p.FeeAsset),
		"issue_fee": fee.String(), "min_first_topup": mustAmount(c.Tx, p.FeeAsset, p.MinFirstTopUp).String(),
	}
	if p.physical() {
		rows := []map[string]any{}
		addrs := l.deliverableAddresses(c.Tx, c.Member, p)
		sort.SliceStable(addrs, func(i, j int) bool { return addrs[i].IsDefault && !addrs[j].IsDefault })
		for i, a := range addrs {
			sf, _ := l.shippingFee(c.Tx, p, a)
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
	reason := l.cardIneligibility(c.Tx, c.Member, p, binding, false)
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

func (l *Line) handleCardSubGet(c *api.Request) (int, any, error) {
	sub := c.Req.PathValue("sub")
	switch {
	case c.PathID() == "applications":
		return l.handleCardApplicationGet(c, sub)
	case sub == "close-check":
		return l.handleCardCloseCheck(c)
	case sub == "transactions":
		return l.handleCardTransactions(c)
	}
	return 0, nil, api.NotFound("path " + c.Req.URL.Path)
}

// displayScale is the scale answers show amounts of asset at.
func displayScale(tx *kernel.Tx, asset string) int {
	a, _ := tx.Asset(asset)
	return a.DisplayScale
}
