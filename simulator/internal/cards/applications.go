package cards

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

type cardApplyBody struct {
	SourceAsset       string `json:"source_asset"`
	ProductID         string `json:"product_id"`
	BIN               string `json:"bin"`
	FormFactor        string `json:"form_factor"`
	FirstTopUp        string `json:"first_topup"`
	FundingSource     string `json:"funding_source"`
	AddressID         string `json:"address_id"`
	QuickKYCBindingID string `json:"quick_kyc_binding_id"`
	QuickKYCEmail     string `json:"quick_kyc_email"`
	ClientKey         string `json:"client_key"`
}

// appCreatedJSON is the Card application resource of the contract (the
// answer of POST /v1/cards/applications): id, status, form_factor and no
// more.
func appCreatedJSON(a *cardApplication) map[string]any {
	return map[string]any{"id": a.ID, "status": a.Status, "form_factor": a.FormFactor}
}

// appJSON is the card application detail (GET /v1/cards/applications/{id}),
// whose fields the contract does not show: the resource's fields plus
// product_id, card_id (once issued), client_key, status_version and the
// timestamps.
func appJSON(a *cardApplication) map[string]any {
	return map[string]any{
		"id": a.ID, "status": a.Status, "form_factor": a.FormFactor, "product_id": a.ProductID, "card_id": a.CardID,
		"client_key": a.ClientKey, "status_version": a.StatusVersion,
		"created_at": isoTime(a.CreatedAt), "updated_at": isoTime(a.UpdatedAt),
	}
}

// cardAmountError is the card line's answer to a top-up amount (first_topup,
// a top-up's amount) the parser refused (nonNegAmount: a plain non-negative
// decimal at the source asset's ledger scale, decimalNonNegative): a source
// asset outside the catalogue is product_not_available; a malformed amount
// is invalid_fields with the field's key, the card line's validation code
// (the applications list it; the top-up's list shows none).
func cardAmountError(field, asset string, err error) error {
	var pe *money.ParseError
	if !errors.As(err, &pe) {
		return api.NewErr("product_not_available", "source asset "+asset+" is not available")
	}
	return api.InvalidFields(fmt.Sprintf("%s must be a non-negative decimal string in %s with at most %d decimals", field, asset, pe.Scale), field)
}

// cardCredit splits a source-asset amount into what the card receives and
// the rounding remainder. A card holds whole cents of its currency, so the
// credit is the amount cut down to the card currency's scale (never more
// than was paid); the remainder, under one cent, goes back to the funding
// account in the crediting entry. The member loses nothing to rounding and
// the service keeps nothing of it.
func cardCredit(amount money.Amount) (credit, remainder money.Amount, err error) {
	if amount.Scale() <= cardScale {
		return amount, money.Zero(amount.Scale()), nil
	}
	f := int64(1)
	for i := cardScale; i < amount.Scale(); i++ {
		f *= 10
	}
	q, err := amount.MulRatio(1, f, money.RoundDown)
	if err != nil {
		return money.Amount{}, money.Amount{}, err
	}
	if credit, err = q.MulRatio(f, 1, money.RoundDown); err != nil {
		return money.Amount{}, money.Amount{}, err
	}
	remainder, err = amount.Sub(credit)
	return credit, remainder, err
}

// atScaleOf re-expresses a fee-asset amount in another asset at par (the
// simulator's stablecoins all have ledger scale 6). An unknown asset or an
// amount the asset's ledger scale cannot hold exactly is an error, never a
// rounding.
func atScaleOf(tx *kernel.Tx, asset string, a money.Amount) (money.Amount, error) {
	sc, ok := tx.AssetScale(asset)
	if !ok {
		return money.Amount{}, fmt.Errorf("simulator: unknown asset %s", asset)
	}
	r, err := a.Rescale(sc)
	if err != nil {
		return money.Amount{}, fmt.Errorf("simulator: rescale %s to %s: %w", a, asset, err)
	}
	return r, nil
}

func (l *Line) handleCardApply(c *api.Request) (int, any, error) {
	var b cardApplyBody
	if err := c.Decode(&b); err != nil {
		return 0, nil, err
	}
	m := c.Member
	b.ClientKey = strings.TrimSpace(b.ClientKey)
	if b.ClientKey != "" {
		// The business key is permanent: the same key is the same
		// application, however late the resend.
		if a := l.appByClientKey(c.Tx, m.ID, b.ClientKey); a != nil {
			return 200, appCreatedJSON(a), nil
		}
	}
	funding, err := l.cardFunding(c.Tx, strings.TrimSpace(b.FundingSource))
	if err != nil {
		return 0, nil, err
	}
	src := strings.TrimSpace(b.SourceAsset)
	if src == "" {
		return 0, nil, api.InvalidRequest("source_asset is required")
	}
	wantPhysical := b.FormFactor == "physical" // anything else makes a virtual card
	var p *cardProduct
	switch {
	case strings.TrimSpace(b.ProductID) != "":
		if p = l.lookupProduct(c.Tx, b.ProductID); p == nil {
			return 0, nil, api.NewErr("product_not_available", "card product not available")
		}
		if b.FormFactor != "" && wantPhysical != p.physical() {
			return 0, nil, api.NewErr("product_not_available", "form_factor conflicts with the product")
		}
	default:
		bin := strings.TrimSpace(b.BIN)
		for _, q := range l.st.catalogue.All(c.Tx) {
			if l.productVisible(c.Tx, &q) && q.physical() == wantPhysical && (bin == "" || q.BIN == bin) {
				p = &q
				break
			}
		}
		if p == nil {
			return 0, nil, api.NewErr("product_not_available", "no product for this BIN and form factor")
		}
	}
	if !p.allows(src) {
		return 0, nil, api.NewErr("product_not_available", "source_asset is not allowed for this product")
	}
	// First top-up.
	first := mustAmount(c.Tx, src, "0")
	if b.FirstTopUp != "" { // "0" is no first top-up, as omitting it
		if first, err = nonNegAmount(c.Tx, src, b.FirstTopUp); err != nil {
			return 0, nil, cardAmountError("first_topup", src, err)
		}
	}
	if first.Cmp(mustAmount(c.Tx, p.FeeAsset, p.MinFirstTopUp)) < 0 {
		return 0, nil, api.NewErr("amount_out_of_range", "first_topup is below the product's min_first_topup "+mustAmount(c.Tx, p.FeeAsset, p.MinFirstTopUp).String())
	}
	if !first.IsZero() && first.Cmp(mustAmount(c.Tx, p.FeeAsset, p.MinTopUp)) < 0 {
		return 0, nil, api.Business500("top-up below minimum")
	}
	if first.Cmp(mustAmount(c.Tx, p.FeeAsset, p.MaxTopUp)) > 0 {
		return 0, nil, api.Business500("top-up over the per-transaction limit")
	}
	binding := strings.TrimSpace(b.QuickKYCBindingID)
	// A member without a genuine L1 applying for an L1 product with a
	// quick_kyc_email gets a quick profile allocated automatically.
	allocate := binding == "" && m.KYCLevel < 1 && p.KYCLevel <= 1 && strings.TrimSpace(b.QuickKYCEmail) != ""
	switch l.cardIneligibility(c.Tx, m, p, binding, allocate) {
	case "":
	case reasonBindingNotActive:
		return 0, nil, api.InvalidFields("quick_kyc_binding_id is not an active binding of this member", "quick_kyc_binding_id")
	case reasonKYCRequired:
		return 0, nil, api.Business500("KYC not passed")
	case reasonMemberRestricted:
		return 0, nil, api.Business500("member account restricted")
	case reasonKYCCountry, reasonNoAddress:
		return 0, nil, api.NewErr("product_not_available", "product prerequisites unmet")
	case reasonPenalties:
		return 0, nil, api.Business500("outstanding penalties")
	case reasonCardLimit:
		return 0, nil, api.Business500("card limit reached")
	default:
		return 0, nil, api.Business500("cannot apply")
	}
	fee, err := atScaleOf(c.Tx, src, mustAmount(c.Tx, p.FeeAsset, p.IssueFee))
	if err != nil {
		return 0, nil, api.Business500("the issue fee cannot be charged in " + src)
	}
	shipping := mustAmount(c.Tx, src, "0")
	var addr *cardAddress
	if p.physical() {
		want := strings.TrimSpace(b.AddressID)
		for _, a := range l.memberAddresses(c.Tx, m.ID) {
			if (want == "" && a.IsDefault) || (want != "" && a.ID == want) {
				addr = &a
			}
		}
		if addr == nil {
			if want != "" {
				return 0, nil, api.InvalidFields("address_id is not a shipping address of this member", "address_id")
			}
			return 0, nil, api.NewErr("product_not_available", "the member has no default shipping address")
		}
		sf, ok := l.shippingFee(c.Tx, p, *addr)
		if !ok {
			return 0, nil, api.Business500("unsupported shipping country")
		}
		if shipping, err = atScaleOf(c.Tx, src, sf); err != nil {
			return 0, nil, api.Business500("the shipping fee cannot be charged in " + src)
		}
	}
	// Money moves last, in one balanced entry, so a failure changes nothing.
	avail, locked := fundingAccounts(funding, m.ID)
	charge, _ := fee.Add(shipping)
	postings := []kernel.Posting{
		{Account: avail, Asset: src, Amount: charge.Neg()},
		{Account: kernel.AccountRevenueFees, Asset: src, Amount: charge},
	}
	if !first.IsZero() {
		postings = append(postings,
			kernel.Posting{Account: avail, Asset: src, Amount: first.Neg()},
			kernel.Posting{Account: locked, Asset: src, Amount: first})
	}
	need, _ := charge.Add(first)
	if allocate && src == api.QuickKYCFeeAsset {
		need, _ = need.Add(mustAmount(c.Tx, api.QuickKYCFeeAsset, api.QuickKYCFee))
	}
	if c.Tx.Balance(avail, src).Cmp(need) < 0 {
		if funding == "merchant" {
			return 0, nil, api.NewErr("service_unavailable", "card line temporarily unavailable")
		}
		return 0, nil, api.Business500("insufficient member balance")
	}
	if allocate {
		qb, err := l.host.AllocateBinding(c.Tx, m, b.QuickKYCEmail)
		if err != nil {
			if ae := api.AsError(err); ae.Code == "invalid_fields" {
				return 0, nil, api.InvalidFields(ae.Message, "quick_kyc_email")
			}
			return 0, nil, err
		}
		binding = qb
	}
	appID := "cap_" + c.Tx.NewUUID()
	if err := c.Tx.Post(c.Now, "card application "+appID+": fee, shipping, first top-up hold", postings...); err != nil {
		if errors.Is(err, kernel.ErrInsufficientFunds) {
			if funding == "merchant" {
				return 0, nil, api.NewErr("service_unavailable", "card line temporarily unavailable")
			}
			return 0, nil, api.Business500("insufficient member balance")
		}
		return 0, nil, err
	}
	if b.ClientKey == "" {
		b.ClientKey = c.Tx.NewUUID() // the service generates a random key when none is sent
	}
	status := "submitted"
	if p.ManualReview {
		status = "pending_review"
	}
	a := &cardApplication{Seq: c.Tx.NextSeq(), ID: appID, MemberID: m.ID, ProductID: p.ID, FormFactor: p.formFactor(), Status: status, StatusVersion: 1,
		ClientKey: b.ClientKey, SourceAsset: src, Funding: funding, Fee: fee, Shipping: shipping, FirstTopUp: first,
		QuickBindingID: binding, CreatedAt: c.Now, UpdatedAt: c.Now}
	if addr != nil {
		a.Address, a.HasAddress = *addr, true
	}
	l.putApp(c.Tx, a)
	l.emit(c.Tx, "card.application.submitted", "card_application", a.ID, m, a.Status, a.StatusVersion)
	c.Tx.InFlight(CollectionApplications, a.ID)
	return 201, appCreatedJSON(a), nil
}

func (l *Line) handleCardApplicationGet(c *api.Request, id string) (int, any, error) {
	a, ok := l.st.apps.Get(c.Tx, WithIDPrefix("cap_", id))
	if !ok || a.MemberID != c.Member.ID {
		return 0, nil, api.NotFound("card application")
	}
	return 200, appJSON(&a), nil
}

// appByClientKey is member's application of the business key, or nil.
func (l *Line) appByClientKey(tx *kernel.Tx, memberID, clientKey string) *cardApplication {
	k := memberID + "\x00" + clientKey
	x := l.st.appByKey
	i := x.Search(tx, func(ik string) bool { return ik >= k })
	if i == x.Len(tx) {
		return nil
	}
	if ik, _, a := x.At(tx, i); ik == k {
		return &a
	}
	return nil
}

// findApplication finds an application by id (cap_ optional); the copy is
// written back by putApp.
func (l *Line) findApplication(tx *kernel.Tx, id string) (*cardApplication, error) {
	a, ok := l.st.apps.Get(tx, WithIDPrefix("cap_", id))
	if !ok {
		return nil, fmt.Errorf("card application %q not found", id)
	}
	return &a, nil
}

// approveCardApplication issues the card of an application under
// review: the card exists (virtual active, physical unactivated in
// manufacturing), the first top-up held at application is credited to it.
// An application whose member no longer passes the product's gates
// (cardIssuanceBlocker: KYC sent back to review, restricted member, KYC
// country, penalties, compensated binding, product gone) is rejected
// instead, as rejectCardApplication does, and RejectReason says why.
func (l *Line) approveCardApplication(tx *kernel.Tx, a *cardApplication) error {
	if a.Status != "pending_review" && a.Status != "submitted" {
		return api.NewErr("state_invalid", fmt.Sprintf("card application %s is %s, not under review", a.ID, a.Status))
	}
	if reason := l.cardIssuanceBlocker(tx, a); reason != "" {
		a.RejectReason = reason
		l.putApp(tx, a)
		return l.rejectCardApplication(tx, a)
	}
	now := tx.Now()
	m := l.host.Member(tx, a.MemberID)
	card := l.newCard(tx, m, a.ProductID, a.ID, a.FormFactor)
	if !a.FirstTopUp.IsZero() {
		avail, locked := fundingAccounts(a.Funding, a.MemberID)
		t := &cardTopUp{Seq: tx.NextSeq(), ID: "ctp_" + tx.NewUUID(), CardID: card.ID, MemberID: a.MemberID, Asset: a.SourceAsset, Funding: a.Funding,
			Amount: a.FirstTopUp, Fee: mustAmount(tx, a.SourceAsset, "0"), Status: "processing", StatusVersion: 1, CreatedAt: now}
		if err := l.creditCard(tx, "first top-up "+t.ID+" of "+a.ID, a.SourceAsset, a.FirstTopUp, locked, avail, card.ID); err != nil {
			return err
		}
		t.Status, t.StatusVersion = "completed", 2
		l.putTopUp(tx, t)
		defer l.emit(tx, "card.topup.credited", "card_topup", strings.TrimPrefix(t.ID, "ctp_"), m, t.Status, t.StatusVersion)
	}
	a.Status, a.CardID, a.UpdatedAt = "issued", card.ID, now
	a.StatusVersion++
	l.putApp(tx, a)
	tx.Settled(a.ID)
	l.emit(tx, "card.application.approved", "card_application", a.ID, m, a.Status, a.StatusVersion)
	return nil
}

// rejectCardApplication fails an application under review: the fee
// and shipping are refunded, the first top-up hold is released and the
// quick KYC binding it used is compensated.
func (l *Line) rejectCardApplication(tx *kernel.Tx, a *cardApplication) error {
	return l.failCardApplication(tx, a, true)
}

// failCardApplication rejects a; compensate says whether the quick KYC
// binding it used is compensated automatically (false when the binding's
// compensation is what fails the application).
func (l *Line) failCardApplication(tx *kernel.Tx, a *cardApplication, compensate bool) error {
	if a.Status != "pending_review" && a.Status != "submitted" {
		return api.NewErr("state_invalid", fmt.Sprintf("card application %s is %s, not under review", a.ID, a.Status))
	}
	avail, locked := fundingAccounts(a.Funding, a.MemberID)
	charge, _ := a.Fee.Add(a.Shipping)
	postings := []kernel.Posting{
		{Account: kernel.AccountRevenueFees, Asset: a.SourceAsset, Amount: charge.Neg()},
		{Account: avail, Asset: a.SourceAsset, Amount: charge},
	}
	if !a.FirstTopUp.IsZero() {
		postings = append(postings,
			kernel.Posting{Account: locked, Asset: a.SourceAsset, Amount: a.FirstTopUp.Neg()},
			kernel.Posting{Account: avail, Asset: a.SourceAsset, Amount: a.FirstTopUp})
	}
	if err := tx.Post(tx.Now(), "card application "+a.ID+" rejected: refund and release", postings...); err != nil {
		return err
	}
	a.Status, a.UpdatedAt = "rejected", tx.Now()
	a.StatusVersion++
	l.putApp(tx, a)
	tx.Settled(a.ID)
	l.emit(tx, "card.application.rejected", "card_application", a.ID, l.host.Member(tx, a.MemberID), a.Status, a.StatusVersion)
	if compensate && a.QuickBindingID != "" && l.host.BindingActive(tx, l.host.Member(tx, a.MemberID), a.QuickBindingID) {
		// The first upstream terminal failure compensates the binding.
		_ = l.host.CompensateBinding(tx, a.QuickBindingID, a.ID)
	}
	return nil
}

// newCard creates an issued card for m.
func (l *Line) newCard(tx *kernel.Tx, m *api.Member, productID, applicationID, formFactor string) *simCard {
	now := tx.Now()
	exp := now.AddDate(3, 0, 0)
	c := &simCard{Seq: tx.NextSeq(), ID: "crd_" + tx.NewUUID(), MemberID: m.ID, ProductID: productID, ApplicationID: applicationID,
		FormFactor: formFactor, Status: "active", StatusVersion: 1,
		Last4: fmt.Sprintf("%04d", tx.RandIntN(10000)), ExpMonth: int(exp.Month()), ExpYear: exp.Year() % 100,
		CreatedAt: now, UpdatedAt: now}
	if formFactor == "physical" {
		c.Status, c.Inventory = "unactivated", "manufacturing"
	}
	l.putCard(tx, c)
	return c
}

// creditCard credits a card with amount of asset taken from an
// account: the card receives the amount cut to whole cents (cardCredit) and
// the remainder returns to refund, all in one entry. Card balances are
// booked in cardLedgerAsset; another stablecoin passes through the issuer's
// account at par.
func (l *Line) creditCard(tx *kernel.Tx, memo, asset string, amount money.Amount, from, refund, cardID string) error {
	credit, rem, err := cardCredit(amount)
	if err != nil {
		return err
	}
	postings := []kernel.Posting{{Account: from, Asset: asset, Amount: amount.Neg()}}
	if !rem.IsZero() {
		postings = append(postings, kernel.Posting{Account: refund, Asset: asset, Amount: rem})
	}
	if asset == cardLedgerAsset {
		postings = append(postings, kernel.Posting{Account: cardAccount(cardID), Asset: asset, Amount: credit})
		return tx.Post(tx.Now(), memo, postings...)
	}
	conv, err := atScaleOf(tx, cardLedgerAsset, credit)
	if err != nil {
		return err
	}
	postings = append(postings,
		kernel.Posting{Account: upstreamAccount("card_issuer"), Asset: asset, Amount: credit},
		kernel.Posting{Account: upstreamAccount("card_issuer"), Asset: cardLedgerAsset, Amount: conv.Neg()},
		kernel.Posting{Account: cardAccount(cardID), Asset: cardLedgerAsset, Amount: conv},
	)
	return tx.Post(tx.Now(), memo, postings...)
}

// appsOnBinding returns the applications under review that rely on quick
// KYC binding id, oldest first.
func (l *Line) appsOnBinding(tx *kernel.Tx, id string) []*cardApplication {
	var out []*cardApplication
	for _, a := range l.st.apps.All(tx) {
		if a.QuickBindingID == id && cardAppUnderReview(&a) {
			out = append(out, &a)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}
