package cards

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// cardStatuses are the card statuses named by the contract.
var cardStatuses = []string{"unactivated", "active", "frozen", "pending", "closing", "closed", "expired", "replaced", "lost"}

// cardMove is one row of the card state table: the statuses a trigger
// applies from and the status it leads to ("" leaves the status unchanged).
type cardMove struct {
	from map[string]bool
	to   string
}

func statusSet(in ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range in {
		m[s] = true
	}
	return m
}

func allStatusesExcept(out ...string) map[string]bool {
	m := statusSet(cardStatuses...)
	for _, s := range out {
		delete(m, s)
	}
	return m
}

// cardMoves is the card state table of the contract (plus the inferred
// freeze, unfreeze and replacement rows), read line by line against the
// specification's table:
//
//	unactivated --activate (physical, shipped, right expiry and PIN)--> active
//	any except closed, closing, lost --lost (physical only)--> lost (no event)
//	any with zero balance, no unsettled authorizations --close--> closing
//	closing --upstream callback--> closed
//	active, frozen, pending --topups--> unchanged
var cardMoves = map[string]cardMove{
	"activate":       {from: statusSet("unactivated"), to: "active"},
	"lost":           {from: allStatusesExcept("closed", "closing", "lost"), to: "lost"},
	"close":          {from: allStatusesExcept("closed", "closing", "expired", "replaced"), to: "closing"},
	"close_complete": {from: statusSet("closing"), to: "closed"},
	"topup":          {from: statusSet("active", "frozen", "pending"), to: ""},
	"freeze":         {from: statusSet("active"), to: "frozen"},
	"unfreeze":       {from: statusSet("frozen"), to: "active"},
	"replace":        {from: statusSet("active", "frozen", "lost"), to: "replaced"},
}

// cardEnded reports the statuses on which a close request has no effect.
func cardEnded(status string) bool {
	return status == "closed" || status == "expired" || status == "replaced"
}

// allowed reports whether trigger applies to c's status.
func (c *simCard) allowed(trigger string) bool { return cardMoves[trigger].from[c.Status] }

// moveCard changes c's status, bumps its status_version, writes c back
// and, unless silent, emits card.status.updated.
func (l *Line) moveCard(tx *kernel.Tx, c *simCard, to string, silent bool) {
	c.Status = to
	c.StatusVersion++
	c.UpdatedAt = tx.Now()
	l.putCard(tx, c)
	if !silent {
		l.emit(tx, "card.status.updated", "card", strings.TrimPrefix(c.ID, "crd_"), l.host.Member(tx, c.MemberID), c.Status, c.StatusVersion)
	}
}

func errCardState(c *simCard, action string) *api.Error {
	return api.NewErr("state_invalid", fmt.Sprintf("cannot %s a %s %s card", action, c.FormFactor, c.Status))
}

func (l *Line) cardJSON(tx *kernel.Tx, c *simCard) map[string]any {
	out := map[string]any{
		"id": c.ID, "status": c.Status, "status_version": c.StatusVersion, "form_factor": c.FormFactor,
		"product_id": c.ProductID, "application_id": c.ApplicationID, "currency": cardCurrency, "scale": cardScale,
		"balance": l.cardBalance(tx, c).String(), "last4": c.Last4,
		"created_at": isoTime(c.CreatedAt), "updated_at": isoTime(c.UpdatedAt),
	}
	if tx.Now().Before(c.LockedUntil) {
		out["locked_until"] = isoTime(c.LockedUntil)
	}
	return out
}

func (l *Line) handleCardList(c *api.Request) (int, any, error) {
	from, to := ownedRun(c.Tx, l.st.cardsByMem, c.Member.ID)
	env := api.PaginatePositions(to-from, func(i int) (api.PageKey, simCard) {
		k, _, card := l.st.cardsByMem.At(c.Tx, from+i)
		return k.key, card
	}, c.Req.URL.Query(), nil)
	page := env.Data.([]simCard)
	items := make([]map[string]any, 0, len(page))
	for _, card := range page {
		items = append(items, l.cardJSON(c.Tx, &card))
	}
	env.Data = items
	return 200, env, nil
}

func (l *Line) handleCardGet(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	return 200, l.cardJSON(c.Tx, card), nil
}

// pinBreaksRules reports PINs the issuer refuses: one repeated digit, or a
// run of consecutive ascending or descending digits.
func pinBreaksRules(pin string) bool {
	same, up, down := true, true, true
	for i := 1; i < len(pin); i++ {
		d := int(pin[i]) - int(pin[i-1])
		same = same && d == 0
		up = up && d == 1
		down = down && d == -1
	}
	return same || up || down
}

// activation returns the lock of c, lifting a lock whose 24 hours
// have passed (the counter starts again). The lift is the clock's doing,
// not the request's: it survives the refusal of the request that found it
// (Tx.Keep).
func (l *Line) activation(tx *kernel.Tx, c *simCard, now time.Time) bool {
	if c.LockedUntil.IsZero() {
		return false
	}
	if now.Before(c.LockedUntil) {
		return true
	}
	c.LockedUntil, c.Failures = time.Time{}, 0
	tx.Keep(func() { l.putCard(tx, c) })
	return false
}

// countActivationFailure records a counted failure and locks the card at the
// third. The count survives the refusal it answers (Tx.Keep): three
// refused activations lock the card.
func (l *Line) countActivationFailure(tx *kernel.Tx, c *simCard, now time.Time) {
	c.Failures++
	if c.Failures >= cardActivationMax {
		c.LockedUntil = now.Add(cardLockWindow)
	}
	tx.Keep(func() { l.putCard(tx, c) })
}

func (l *Line) handleCardActivate(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	var b struct {
		Expiry string `json:"expiry"`
		PIN    string `json:"pin"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, nil, err
	}
	if b.Expiry == "" || b.PIN == "" {
		return 0, nil, api.InvalidRequest("expiry and pin are required")
	}
	if card.FormFactor != "physical" {
		return 0, nil, api.NewErr("state_invalid", "only physical cards are activated")
	}
	if card.Status == "active" {
		// A repeat call: the card keeps its PIN. It succeeds when the PIN
		// came with activation; a PIN set by a separate request answers
		// card_pin_rejected and the card stays active. Never counted.
		if card.PINSetBy == "activation" {
			return 200, map[string]any{"id": card.ID, "status": card.Status}, nil
		}
		return 0, nil, api.NewErr("card_pin_rejected", "the card's PIN was set separately; it stays active")
	}
	if !card.allowed("activate") {
		return 0, nil, errCardState(card, "activate")
	}
	if l.activation(c.Tx, card, c.Now) {
		return 0, nil, api.NewErr("state_invalid", "activation locked after three failures").With("locked_until", isoTime(card.LockedUntil))
	}
	if card.Inventory != "shipped" {
		return 0, nil, api.NewErr("state_invalid", "the card has not left stock yet")
	}
	if !api.AllDigits(b.PIN) || len(b.PIN) != cardPINLength {
		return 0, nil, api.NewErr("card_pin_invalid", fmt.Sprintf("the PIN must be %d digits", cardPINLength))
	}
	if b.Expiry != fmt.Sprintf("%02d/%02d", card.ExpMonth, card.ExpYear) {
		l.countActivationFailure(c.Tx, card, c.Now)
		return 0, nil, api.NewErr("card_activate_failed", "activation not accepted")
	}
	if pinBreaksRules(b.PIN) {
		l.countActivationFailure(c.Tx, card, c.Now)
		return 0, nil, api.NewErr("card_pin_rejected", "the PIN breaks the card's rules; choose another")
	}
	card.PINDigest, card.PINSetBy, card.Failures = l.digest(card.ID, "pin", b.PIN), "activation", 0
	l.moveCard(c.Tx, card, cardMoves["activate"].to, false)
	return 200, map[string]any{"id": card.ID, "status": card.Status}, nil
}

func (l *Line) handleCardPIN(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	var b struct {
		NewPIN     string `json:"new_pin"`
		CurrentPIN string `json:"current_pin"`
		CVV        string `json:"cvv"`
	}
	if err := c.Decode(&b); err != nil {
		// The PIN endpoint answers field problems with invalid_fields.
		if ae, ok := err.(*api.Error); ok && ae.Field != "" {
			return 0, nil, api.InvalidFields(ae.Message, ae.Field)
		}
		return 0, nil, err
	}
	switch {
	case b.NewPIN == "" && b.CurrentPIN == "" && b.CVV == "":
		return 0, nil, api.InvalidFields("new_pin and one of current_pin or cvv are required", "new_pin", "current_pin", "cvv")
	case b.NewPIN == "":
		return 0, nil, api.InvalidFields("new_pin is required", "new_pin")
	case !api.AllDigits(b.NewPIN):
		return 0, nil, api.InvalidFields("new_pin must be digits only", "new_pin")
	case (b.CurrentPIN == "") == (b.CVV == ""):
		return 0, nil, api.InvalidFields("exactly one of current_pin (change) or cvv (reset) is required", "current_pin", "cvv")
	case b.CVV != "" && (len(b.CVV) != 3 || !api.AllDigits(b.CVV)):
		return 0, nil, api.InvalidFields("cvv must be three digits", "cvv")
	}
	if card.Status != "active" && card.Status != "frozen" {
		return 0, nil, errCardState(card, "set the PIN of")
	}
	if len(b.NewPIN) != cardPINLength {
		return 0, nil, api.NewErr("card_pin_invalid", fmt.Sprintf("the PIN must be %d digits", cardPINLength))
	}
	if pinBreaksRules(b.NewPIN) {
		return 0, nil, api.NewErr("card_pin_rejected", "the PIN breaks the card's rules; choose another")
	}
	// Quota: 5 PIN operations per member per hour, across all cards. Every
	// PIN call counts, refused or not: the window survives the refusal of
	// the request (Tx.Keep).
	w, _ := l.st.pinCalls.Get(c.Tx, c.Member.ID)
	cut := 0
	for cut < w.Calls.Len() && !c.Now.Before(w.Calls.At(cut).Add(cardPINWindow)) {
		cut++
	}
	if cut > 0 {
		w.Calls, w.Held = w.Calls.From(cut), true
	}
	c.Tx.Keep(func() { l.st.pinCalls.Put(c.Tx, c.Member.ID, w) })
	if w.Calls.Len() >= cardPINQuota {
		wait := int(w.Calls.At(0).Add(cardPINWindow).Sub(c.Now).Seconds() + 0.999)
		e := api.NewErr("rate_limited", "PIN changes are limited to 5 per hour per member").With("retry_after", wait)
		e.Header = map[string]string{"Retry-After": fmt.Sprint(wait)}
		return 0, nil, e
	}
	if err := l.host.RequireStepUp(c, api.ActionDigest("card.pin", card.ID)); err != nil {
		return 0, nil, err
	}
	w.Calls, w.Held = w.Calls.Append(c.Now), true
	c.Tx.Keep(func() { l.st.pinCalls.Put(c.Tx, c.Member.ID, w) })
	if b.CurrentPIN != "" {
		if card.PINDigest == "" || !equalDigest(card.PINDigest, l.digest(card.ID, "pin", b.CurrentPIN)) {
			return 0, nil, api.NewErr("invalid_fields", "current PIN or CVV not accepted")
		}
	} else if b.CVV != l.cvv(card.ID) {
		return 0, nil, api.NewErr("invalid_fields", "current PIN or CVV not accepted")
	}
	card.PINDigest, card.PINSetBy = l.digest(card.ID, "pin", b.NewPIN), "pin"
	card.UpdatedAt = c.Now
	l.putCard(c.Tx, card)
	return 200, map[string]any{"id": card.ID, "updated": true}, nil
}

func equalDigest(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := range a {
		v |= a[i] ^ b[i]
	}
	return v == 0
}

func (l *Line) handleCardLost(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	var b struct {
		Kind string `json:"kind"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, nil, err
	}
	kind := "lost"
	if b.Kind == "stolen" {
		kind = "stolen"
	}
	if card.FormFactor != "physical" || !card.allowed("lost") {
		return 0, nil, errCardState(card, "report lost")
	}
	if err := l.host.RequireStepUp(c, api.ActionDigest("card.lost", card.ID)); err != nil {
		return 0, nil, err
	}
	card.LostKind = kind
	l.moveCard(c.Tx, card, cardMoves["lost"].to, true) // irreversible; no webhook
	return 200, map[string]any{"id": card.ID, "status": card.Status, "kind": kind}, nil
}

func (l *Line) handleCardFreeze(c *api.Request) (int, any, error) {
	return l.toggleFreeze(c, "freeze", "frozen")
}

func (l *Line) handleCardUnfreeze(c *api.Request) (int, any, error) {
	return l.toggleFreeze(c, "unfreeze", "active")
}

func (l *Line) toggleFreeze(c *api.Request, trigger, target string) (int, any, error) {
	if err := c.NoBody(); err != nil {
		return 0, nil, err
	}
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	if card.Status != target {
		if !card.allowed(trigger) {
			return 0, nil, errCardState(card, trigger)
		}
		l.moveCard(c.Tx, card, cardMoves[trigger].to, false)
	}
	return 200, map[string]any{"id": card.ID, "status": card.Status}, nil
}

// closeBlockers lists why c cannot close now.
func (l *Line) closeBlockers(tx *kernel.Tx, c *simCard) []string {
	var out []string
	if !c.allowed("close") {
		return []string{"state"}
	}
	if c.UpstreamUnreadable {
		out = append(out, "upstream_balance_unreadable")
	}
	if !tx.Balance(cardAccount(c.ID), cardLedgerAsset).IsZero() {
		out = append(out, "balance_remaining")
	}
	if len(l.topUpsInFlight(tx, c)) > 0 {
		// Money on its way to the card is unsettled funds: closing now
		// would let the later credit land on a closed card.
		out = append(out, "topup_in_flight")
	}
	for _, t := range l.txsOfCard(tx, c.ID) {
		if t.unsettled() {
			out = append(out, "unsettled_transactions")
			break
		}
	}
	return out
}

func (l *Line) handleCardCloseCheck(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	reasons := l.closeBlockers(c.Tx, card)
	if reasons == nil {
		reasons = []string{}
	}
	return 200, map[string]any{"id": card.ID, "closable": len(reasons) == 0, "reasons": reasons}, nil
}

func (l *Line) handleCardClose(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	var b struct {
		Reason string `json:"reason"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, nil, err
	}
	answer := map[string]any{"id": card.ID, "status": "closing"}
	if card.Status == "closing" || cardEnded(card.Status) {
		return 200, answer, nil // no new upstream request
	}
	switch blockers := l.closeBlockers(c.Tx, card); {
	case len(blockers) == 0:
	case blockers[0] == "upstream_balance_unreadable":
		return 0, nil, api.Business500("upstream card balance unreadable")
	case blockers[0] == "balance_remaining":
		return 0, nil, api.Business500("card balance remaining")
	case blockers[0] == "topup_in_flight":
		return 0, nil, api.Business500("a top-up to this card is still in flight (unsettled funds)")
	case blockers[0] == "unsettled_transactions":
		return 0, nil, api.Business500("card has unsettled transactions")
	default:
		return 0, nil, errCardState(card, "close")
	}
	if card.UpstreamRefusesClose {
		// The issuer was asked and refused: the request it got is counted,
		// whatever the answer (Tx.Keep).
		card.UpstreamCloseCalls++
		c.Tx.Keep(func() { l.putCard(c.Tx, card) })
		return 0, nil, api.NewErr("state_invalid", "the card issuer refused to close the card")
	}
	if utf8.RuneCountInString(b.Reason) > 200 {
		b.Reason = string([]rune(b.Reason)[:200])
	}
	card.CloseReason = b.Reason
	card.UpstreamCloseCalls++
	l.moveCard(c.Tx, card, cardMoves["close"].to, false)
	c.Tx.InFlight(CollectionClosures, card.ID)
	return 200, answer, nil
}

// completeCardClose is the upstream callback that ends a closure. A
// credit that reached the card while it was closing is returned to the
// member's wallet first (endCard).
func (l *Line) completeCardClose(tx *kernel.Tx, card *simCard) error {
	if !card.allowed("close_complete") {
		return api.NewErr("state_invalid", fmt.Sprintf("card %s is %s, not closing", card.ID, card.Status))
	}
	if err := l.endCard(tx, card); err != nil {
		return err
	}
	tx.Settled(card.ID)
	l.moveCard(tx, card, cardMoves["close_complete"].to, false)
	return nil
}

func (l *Line) handleCardReplace(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	var b struct {
		AddressID string `json:"address_id"`
		Reason    string `json:"reason"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, nil, err
	}
	if !card.allowed("replace") {
		return 0, nil, errCardState(card, "replace")
	}
	p := l.product(c.Tx, card.ProductID)
	if p == nil || !l.productVisible(c.Tx, p) {
		return 0, nil, api.NewErr("product_not_available", "card product no longer available")
	}
	if p.physical() {
		var addr *cardAddress
		for _, a := range l.memberAddresses(c.Tx, c.Member.ID) {
			if (b.AddressID == "" && a.IsDefault) || (b.AddressID != "" && a.ID == b.AddressID) {
				addr = &a
			}
		}
		if addr == nil {
			return 0, nil, api.InvalidFields("address_id is not a shipping address of this member", "address_id")
		}
		if _, ok := l.shippingFee(c.Tx, p, *addr); !ok {
			return 0, nil, api.Business500("unsupported shipping country")
		}
	}
	bal := c.Tx.Balance(cardAccount(card.ID), cardLedgerAsset)
	nc := l.newCard(c.Tx, c.Member, card.ProductID, card.ApplicationID, card.FormFactor)
	if !bal.IsZero() {
		if err := c.Tx.Transfer(c.Now, "card "+card.ID+" replaced by "+nc.ID, cardLedgerAsset, bal, cardAccount(card.ID), cardAccount(nc.ID)); err != nil {
			return 0, nil, err
		}
	}
	// Top-ups still in flight follow the balance: their credit lands on the
	// replacement card, never on the replaced one.
	for _, t := range l.topUpsInFlight(c.Tx, card) {
		t.CardID = nc.ID
		l.putTopUp(c.Tx, t)
	}
	card.ReplacedBy = nc.ID
	l.moveCard(c.Tx, card, cardMoves["replace"].to, false)
	return 201, map[string]any{"card_id": nc.ID, "status": nc.Status, "replaced_card_id": card.ID}, nil
}

func (l *Line) handleCardSecureSession(c *api.Request) (int, any, error) {
	if err := c.NoBody(); err != nil {
		return 0, nil, err
	}
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	if card.Status != "active" && card.Status != "frozen" {
		return 0, nil, errCardState(card, "open a secure session on")
	}
	ss := cardSession{ID: c.Tx.NewUUID(), CardID: card.ID, ExpiresAt: c.Now.Add(secureSessionTTL)}
	l.st.sessions.Put(c.Tx, ss.ID, ss)
	token := "sst_" + strings.ReplaceAll(c.Tx.NewUUID(), "-", "")
	return 201, map[string]any{
		"token":      token,
		"hosted_url": c.Tx.URL() + "/_sim/cards/secure-sessions/" + ss.ID,
		"expires_at": ss.ExpiresAt.Unix(),
	}, nil
}
