package cards

import (
	"fmt"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The operator's and the issuer's side of the card line: what the control
// actions under /_sim/cards and the Go control type CardsControl play. A
// lookup that finds nothing answers the error the simulator types as an
// unknown id (card application %q not found, card top-up %q not found, or
// not_found for a card).

// ApproveApplication issues the card of an application under review
// (approveCardApplication) and returns the application as the control API
// shows it, with reject_reason when a gate turned the approval into a
// rejection.
func (l *Line) ApproveApplication(tx *kernel.Tx, id string) (map[string]any, error) {
	a, err := l.findApplication(tx, id)
	if err != nil {
		return nil, err
	}
	if err := l.approveCardApplication(tx, a); err != nil {
		return nil, err
	}
	out := appJSON(a)
	if a.RejectReason != "" {
		out["reject_reason"] = a.RejectReason // the gate that turned the approval into a rejection
	}
	return out, nil
}

// RejectApplication fails an application under review: the issuance fee and
// shipping are refunded, the first top-up hold released.
func (l *Line) RejectApplication(tx *kernel.Tx, id string) (map[string]any, error) {
	a, err := l.findApplication(tx, id)
	if err != nil {
		return nil, err
	}
	if err := l.rejectCardApplication(tx, a); err != nil {
		return nil, err
	}
	return appJSON(a), nil
}

// Ship makes a physical card leave stock and returns the card.
func (l *Line) Ship(tx *kernel.Tx, id string) (map[string]any, error) {
	c, err := l.shipCard(tx, id)
	if err != nil {
		return nil, err
	}
	return l.cardJSON(tx, c), nil
}

// AddTransaction adds (or, with an existing ID, updates) a transaction of a
// card and returns its ctx_ id and its JSON.
func (l *Line) AddTransaction(tx *kernel.Tx, cardID string, in Transaction) (string, map[string]any, error) {
	c, err := l.cardOf(tx, nil, cardID)
	if err != nil {
		return "", nil, err
	}
	t, err := l.addCardTransaction(tx, c, in)
	if err != nil {
		if t != nil {
			return t.ID, nil, err
		}
		return "", nil, err
	}
	return t.ID, txJSON(t), nil
}

// CompleteClose is the issuer's callback ending a closure: closing becomes
// closed.
func (l *Line) CompleteClose(tx *kernel.Tx, cardID string) (map[string]any, error) {
	c, err := l.cardOf(tx, nil, cardID)
	if err != nil {
		return nil, err
	}
	if err := l.completeCardClose(tx, c); err != nil {
		return nil, err
	}
	return l.cardJSON(tx, c), nil
}

// SetStatus overrides a card's status as an operator would.
func (l *Line) SetStatus(tx *kernel.Tx, cardID, status string) (map[string]any, error) {
	c, err := l.setCardStatus(tx, cardID, status)
	if err != nil {
		return nil, err
	}
	return l.cardJSON(tx, c), nil
}

// SetUpstreamBalanceReadable makes the issuer's balance of a card readable
// or not; close needs it readable.
func (l *Line) SetUpstreamBalanceReadable(tx *kernel.Tx, cardID string, readable bool) (map[string]any, error) {
	c, err := l.cardOf(tx, nil, cardID)
	if err != nil {
		return nil, err
	}
	c.UpstreamUnreadable = !readable
	l.putCard(tx, c)
	return map[string]any{"id": c.ID, "readable": readable}, nil
}

// UnlockActivation lifts an activation lock as an operator would.
func (l *Line) UnlockActivation(tx *kernel.Tx, cardID string) (map[string]any, error) {
	c, err := l.cardOf(tx, nil, cardID)
	if err != nil {
		return nil, err
	}
	c.LockedUntil, c.Failures = timeZero, 0
	l.putCard(tx, c)
	return l.cardJSON(tx, c), nil
}

// SetCloseRefused makes the issuer refuse (or accept again) the close
// requests of a card.
func (l *Line) SetCloseRefused(tx *kernel.Tx, cardID string, refused bool) error {
	c, err := l.cardOf(tx, nil, cardID)
	if err != nil {
		return err
	}
	c.UpstreamRefusesClose = refused
	l.putCard(tx, c)
	return nil
}

// UpstreamCloseRequests returns how many close requests were sent to the
// issuer for a card.
func (l *Line) UpstreamCloseRequests(tx *kernel.Tx, cardID string) (int, error) {
	c, err := l.cardOf(tx, nil, cardID)
	if err != nil {
		return 0, err
	}
	return c.UpstreamCloseCalls, nil
}

// CreditTopUp confirms a top-up upstream: the card is credited and
// card.topup.credited sent.
func (l *Line) CreditTopUp(tx *kernel.Tx, id string) (map[string]any, error) {
	return l.topUpAction(tx, id, l.creditCardTopUp)
}

// RejectTopUp is an explicit upstream rejection: the hold is released at
// once.
func (l *Line) RejectTopUp(tx *kernel.Tx, id string) (map[string]any, error) {
	return l.topUpAction(tx, id, l.rejectCardTopUp)
}

// TimeoutTopUp is an upstream timeout: the top-up stays processing and its
// funds stay held.
func (l *Line) TimeoutTopUp(tx *kernel.Tx, id string) (map[string]any, error) {
	return l.topUpAction(tx, id, l.timeoutCardTopUp)
}

func (l *Line) topUpAction(tx *kernel.Tx, id string, fn func(*kernel.Tx, *cardTopUp) error) (map[string]any, error) {
	t, err := l.findTopUp(tx, id)
	if err != nil {
		return nil, err
	}
	if err := fn(tx, t); err != nil {
		return nil, err
	}
	return topUpJSON(t), nil
}

// TopUpStatus returns the status of a top-up order (processing, completed
// or failed).
func (l *Line) TopUpStatus(tx *kernel.Tx, id string) (string, error) {
	t, err := l.findTopUp(tx, id)
	if err != nil {
		return "", err
	}
	return t.Status, nil
}

// TopUp is the control API's view of a top-up order.
func (l *Line) TopUp(tx *kernel.Tx, id string) (map[string]any, error) {
	t, err := l.findTopUp(tx, id)
	if err != nil {
		return nil, err
	}
	return topUpJSON(t), nil
}

// CardDetail is the control API's view of a card: the business fields plus
// its member and the issuer-side knobs.
func (l *Line) CardDetail(tx *kernel.Tx, cardID string) (map[string]any, error) {
	c, err := l.cardOf(tx, nil, cardID)
	if err != nil {
		return nil, err
	}
	out := l.cardJSON(tx, c)
	out["member_id"] = c.MemberID
	out["upstream_close_requests"] = c.UpstreamCloseCalls
	out["upstream_balance_readable"] = !c.UpstreamUnreadable
	out["upstream_refuses_close"] = c.UpstreamRefusesClose
	out["activation_failures"] = c.Failures
	return out, nil
}

// shipCard moves a physical card's inventory row to shipped: the card
// can be activated, and the application reports awaiting_bind.
func (l *Line) shipCard(tx *kernel.Tx, id string) (*simCard, error) {
	c, err := l.cardOf(tx, nil, id)
	if err != nil {
		return nil, err
	}
	if c.FormFactor != "physical" || c.Inventory != "manufacturing" {
		return nil, fmt.Errorf("card %s is not a physical card in manufacturing", c.ID)
	}
	c.Inventory = "shipped"
	l.moveCard(tx, c, c.Status, false) // shipping progress is a status update
	if a, ok := l.st.apps.Get(tx, c.ApplicationID); ok {
		a.StatusVersion++
		a.UpdatedAt = tx.Now()
		l.putApp(tx, &a)
		l.emit(tx, "card.application.awaiting_bind", "card_application", a.ID, l.host.Member(tx, c.MemberID), a.Status, a.StatusVersion)
	}
	return c, nil
}

// setCardStatus is an operator override of a card's status, for
// reaching states the API cannot (pending, expired).
func (l *Line) setCardStatus(tx *kernel.Tx, id, status string) (*simCard, error) {
	c, err := l.cardOf(tx, nil, id)
	if err != nil {
		return nil, err
	}
	if !statusSet(cardStatuses...)[status] {
		return nil, fmt.Errorf("unknown card status %q", status)
	}
	if cardEnded(status) && !cardEnded(c.Status) {
		// An ended card keeps no money: top-ups in flight are rejected and
		// the balance returns to the member's wallet.
		if err := l.endCard(tx, c); err != nil {
			return nil, err
		}
	}
	if c.Status == "closing" && status != "closing" {
		tx.Settled(c.ID)
	}
	l.moveCard(tx, c, status, false)
	return c, nil
}

// Plastic is what is printed on a card, for tests that play the end user:
// never returned by the business API.
type Plastic struct {
	CardID string
	Last4  string
	Expiry string // MM/YY
	CVV    string
}

// Plastic returns what is printed on a card (last four digits, expiry
// MM/YY, CVV), as the end user would read it.
func (l *Line) Plastic(tx *kernel.Tx, id string) (Plastic, error) {
	c, err := l.cardOf(tx, nil, id)
	if err != nil {
		return Plastic{}, err
	}
	return Plastic{CardID: c.ID, Last4: c.Last4, Expiry: fmt.Sprintf("%02d/%02d", c.ExpMonth, c.ExpYear), CVV: l.cvv(c.ID)}, nil
}

// SetLimit sets how many cards of a form factor (virtual or physical) each
// member may hold, applications in progress included.
func (l *Line) SetLimit(tx *kernel.Tx, formFactor string, n int) { l.st.limits.Put(tx, formFactor, n) }

// SetPenalty marks a member as having outstanding penalties (card
// applications then fail) or clears it.
func (l *Line) SetPenalty(tx *kernel.Tx, memberID string, outstanding bool) {
	l.st.penalties.Put(tx, memberID, outstanding)
}

// SetKYCCountry sets the country of the KYC a member used (default SG).
func (l *Line) SetKYCCountry(tx *kernel.Tx, memberID, country string) {
	l.st.kycCountry.Put(tx, memberID, country)
}

// AddShippingAddress adds a shipping address to a member and returns its
// id. Every member starts with adr_ addresses in SG (default) and HK.
func (l *Line) AddShippingAddress(tx *kernel.Tx, memberID, country string, isDefault bool) string {
	list := l.memberAddresses(tx, memberID)
	if isDefault {
		for i := range list {
			list[i].IsDefault = false
		}
	}
	a := l.newAddress(tx, country, isDefault)
	l.st.addresses.Put(tx, memberID, kernel.ListOf(append(list, a)...))
	return a.ID
}

// SetBINAuthorizations restricts the products the merchant sees to these
// BINs; no BINs means unrestricted.
func (l *Line) SetBINAuthorizations(tx *kernel.Tx, bins ...string) {
	l.st.binAuth.Clear(tx)
	for _, b := range bins {
		l.st.binAuth.Put(tx, b, true)
	}
}

// SetProductEnabled enables or disables a card product.
func (l *Line) SetProductEnabled(tx *kernel.Tx, productID string, enabled bool) error {
	if !l.st.products.Update(tx, WithIDPrefix("cpd_", productID), func(p *cardProduct) { p.Enabled = enabled }) {
		return fmt.Errorf("card product %q not found", productID)
	}
	return nil
}

// TimeoutNextTopUps makes the issuer's call time out after the hold for the
// next n card top-ups (0 clears it).
func (l *Line) TimeoutNextTopUps(tx *kernel.Tx, n int) { l.st.topUpTimeouts.Set(tx, n) }

// SecureSessionPage stands in for the hosted page of a secure session
// (GET /_sim/cards/secure-sessions/{id}). It shows what the page is about,
// never the card data.
func (l *Line) SecureSessionPage(tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
	ss, ok := l.st.sessions.Get(tx, r.PathValue("id"))
	if !ok {
		return 0, nil, api.NotFound("secure session")
	}
	state := "open"
	if !tx.Now().Before(ss.ExpiresAt) {
		state = "expired"
	}
	return 200, map[string]any{"card_id": ss.CardID, "state": state, "expires_at": isoTime(ss.ExpiresAt)}, nil
}
