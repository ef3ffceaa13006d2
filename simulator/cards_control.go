package simulator

import (
	"fmt"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// registerCardActions registers the card line's control actions. Each has a
// Go method on *Simulator of the same meaning.
func (s *Simulator) registerCardActions() {
	decode := decodeControl
	s.wiring.actions["cards/applications/approve"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		a, err := s.findApplication(id)
		if err != nil {
			return nil, unknownID("card application", id, err)
		}
		if err := s.approveCardApplication(tx, a); err != nil {
			return nil, err
		}
		out := appJSON(a)
		if a.RejectReason != "" {
			out["reject_reason"] = a.RejectReason // the gate that turned the approval into a rejection
		}
		return out, nil
	}
	s.wiring.actions["cards/applications/reject"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		a, err := s.findApplication(id)
		if err != nil {
			return nil, unknownID("card application", id, err)
		}
		if err := s.rejectCardApplication(tx, a); err != nil {
			return nil, err
		}
		return appJSON(a), nil
	}
	s.wiring.actions["cards/ship"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		c, err := s.shipCard(tx, id)
		if err != nil {
			return nil, err
		}
		return s.cardJSON(c), nil
	}
	s.wiring.actions["cards/transactions"] = func(tx *kernel.Tx, id string, body []byte) (any, error) {
		var in CardTransaction
		if err := decode(body, &in); err != nil {
			return nil, err
		}
		c, err := s.cardOf(nil, id)
		if err != nil {
			return nil, err
		}
		t, err := s.addCardTransaction(tx, c, in)
		if err != nil {
			return nil, err
		}
		return txJSON(t), nil
	}
	s.wiring.actions["cards/close_complete"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		c, err := s.cardOf(nil, id)
		if err != nil {
			return nil, err
		}
		if err := s.completeCardClose(tx, c); err != nil {
			return nil, err
		}
		return s.cardJSON(c), nil
	}
	s.wiring.actions["cards/set_status"] = func(tx *kernel.Tx, id string, body []byte) (any, error) {
		var in struct {
			Status string `json:"status"`
		}
		if err := decode(body, &in); err != nil {
			return nil, err
		}
		c, err := s.setCardStatus(tx, id, in.Status)
		if err != nil {
			return nil, err
		}
		return s.cardJSON(c), nil
	}
	s.wiring.actions["cards/upstream_balance"] = func(tx *kernel.Tx, id string, body []byte) (any, error) {
		in := struct {
			Readable *bool `json:"readable"`
		}{}
		if err := decode(body, &in); err != nil {
			return nil, err
		}
		if in.Readable == nil {
			return nil, fmt.Errorf("body must carry readable (true or false)")
		}
		c, err := s.cardOf(nil, id)
		if err != nil {
			return nil, err
		}
		c.UpstreamUnreadable = !*in.Readable
		return map[string]any{"id": c.ID, "readable": *in.Readable}, nil
	}
	s.wiring.actions["cards/unlock"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		c, err := s.cardOf(nil, id)
		if err != nil {
			return nil, err
		}
		c.LockedUntil, c.Failures = timeZero, 0
		return s.cardJSON(c), nil
	}
	s.wiring.actions["cards/plastic"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		p, err := s.cardPlastic(tx, id)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	s.control("GET /_sim/cards/secure-sessions/{id}", s.serveSecureSessionPage)
	s.wiring.actions["cards/topups/credit"] = s.topUpAction(s.creditCardTopUp)
	s.wiring.actions["cards/topups/reject"] = s.topUpAction(s.rejectCardTopUp)
	s.wiring.actions["cards/topups/timeout"] = s.topUpAction(s.timeoutCardTopUp)
}

func (s *Simulator) topUpAction(fn func(*kernel.Tx, *cardTopUp) error) actionFunc {
	return func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		t, err := s.findTopUp(id)
		if err != nil {
			return nil, unknownID("card top-up", id, err)
		}
		if err := fn(tx, t); err != nil {
			return nil, err
		}
		return topUpJSON(t), nil
	}
}

// shipCard moves a physical card's inventory row to shipped: the card
// can be activated, and the application reports awaiting_bind.
func (s *Simulator) shipCard(tx *kernel.Tx, id string) (*simCard, error) {
	c, err := s.cardOf(nil, id)
	if err != nil {
		return nil, err
	}
	if c.FormFactor != "physical" || c.Inventory != "manufacturing" {
		return nil, fmt.Errorf("card %s is not a physical card in manufacturing", c.ID)
	}
	c.Inventory = "shipped"
	s.moveCard(tx, c, c.Status, false) // shipping progress is a status update
	if a := s.st.cards.apps[c.ApplicationID]; a != nil {
		a.StatusVersion++
		a.UpdatedAt = s.st.clock.Now()
		s.emit(tx, "card.application.awaiting_bind", "card_application", a.ID, s.memberOfCard(c), a.Status, a.StatusVersion, nil)
	}
	return c, nil
}

// setCardStatus is an operator override of a card's status, for
// reaching states the API cannot (pending, expired).
func (s *Simulator) setCardStatus(tx *kernel.Tx, id, status string) (*simCard, error) {
	c, err := s.cardOf(nil, id)
	if err != nil {
		return nil, err
	}
	if !statusSet(cardStatuses...)[status] {
		return nil, fmt.Errorf("unknown card status %q", status)
	}
	if cardEnded(status) && !cardEnded(c.Status) {
		// An ended card keeps no money: top-ups in flight are rejected and
		// the balance returns to the member's wallet.
		if err := s.endCard(tx, c); err != nil {
			return nil, err
		}
	}
	if c.Status == "closing" && status != "closing" {
		s.settled(tx, c.ID)
	}
	s.moveCard(tx, c, status, false)
	return c, nil
}

// CardPlastic is what is printed on a card, for tests that play the end
// user: never returned by the business API.
type CardPlastic struct {
	CardID string `json:"card_id"`
	Last4  string `json:"last4"`
	Expiry string `json:"expiry"` // MM/YY
	CVV    string `json:"cvv"`
}

func (s *Simulator) cardPlastic(tx *kernel.Tx, id string) (CardPlastic, error) {
	c, err := s.cardOf(nil, id)
	if err != nil {
		return CardPlastic{}, err
	}
	return CardPlastic{CardID: c.ID, Last4: c.Last4, Expiry: fmt.Sprintf("%02d/%02d", c.ExpMonth, c.ExpYear), CVV: s.st.cards.cvv(c.ID)}, nil
}

// --- Go methods mirroring the actions and fixture knobs ---------------------

func (s *Simulator) withApp(id string, fn func(*kernel.Tx, *cardApplication) error) error {
	tx := s.k.Begin()
	defer tx.End()
	a, err := s.findApplication(id)
	if err != nil {
		return err
	}
	return fn(tx, a)
}

func (s *Simulator) withTopUp(id string, fn func(*kernel.Tx, *cardTopUp) error) error {
	tx := s.k.Begin()
	defer tx.End()
	t, err := s.findTopUp(id)
	if err != nil {
		return err
	}
	return fn(tx, t)
}

func (s *Simulator) withCard(id string, fn func(*kernel.Tx, *simCard) error) error {
	tx := s.k.Begin()
	defer tx.End()
	c, err := s.cardOf(nil, id)
	if err != nil {
		return err
	}
	return fn(tx, c)
}

// runApproveCardApplication issues the card of an application under review
// (action cards/applications/{id}/approve): the card exists, any first
// top-up is credited to it, and card.application.approved is sent. An
// application whose member no longer passes the product's gates (KYC sent
// back to review, a restricted member, KYC country, penalties, a compensated
// quick KYC binding, a product gone) is rejected instead, with everything it
// held returned, as the upstream would.
func (s *Simulator) runApproveCardApplication(id string) error {
	return s.withApp(id, s.approveCardApplication)
}

// runRejectCardApplication fails an application under review (action
// cards/applications/{id}/reject): the issuance fee and shipping are
// refunded, the first top-up hold released, card.application.rejected sent.
func (s *Simulator) runRejectCardApplication(id string) error {
	return s.withApp(id, s.rejectCardApplication)
}

// runShipCard makes a physical card leave stock (action cards/{id}/ship); it
// can then be activated.
func (s *Simulator) runShipCard(cardID string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.shipCard(tx, cardID)
	return err
}

// runAddCardTransaction adds (or, with an existing ID, updates) a transaction
// of a card (action cards/{id}/transactions) and returns its ctx_ id.
func (s *Simulator) runAddCardTransaction(cardID string, t CardTransaction) (string, error) {
	var id string
	err := s.withCard(cardID, func(tx *kernel.Tx, c *simCard) error {
		ct, err := s.addCardTransaction(tx, c, t)
		if ct != nil {
			id = ct.ID
		}
		return err
	})
	return id, err
}

// runCompleteCardClose is the issuer's callback ending a closure (action
// cards/{id}/close_complete): closing becomes closed.
func (s *Simulator) runCompleteCardClose(cardID string) error {
	return s.withCard(cardID, s.completeCardClose)
}

// runSetCardStatus overrides a card's status as an operator would (action
// cards/{id}/set_status), for reaching pending or expired in tests.
func (s *Simulator) runSetCardStatus(cardID, status string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.setCardStatus(tx, cardID, status)
	return err
}

// setCardUpstreamBalanceReadable makes the issuer's balance of a card
// readable or not (action cards/{id}/upstream_balance); close needs it
// readable.
func (s *Simulator) setCardUpstreamBalanceReadable(cardID string, readable bool) error {
	return s.withCard(cardID, func(_ *kernel.Tx, c *simCard) error { c.UpstreamUnreadable = !readable; return nil })
}

// unlockCardActivation lifts an activation lock as an operator would
// (action cards/{id}/unlock).
func (s *Simulator) unlockCardActivation(cardID string) error {
	return s.withCard(cardID, func(_ *kernel.Tx, c *simCard) error { c.LockedUntil, c.Failures = timeZero, 0; return nil })
}

// runCardPlastic returns what is printed on a card (last four digits, expiry
// MM/YY, CVV), as the end user would read it (action cards/{id}/plastic).
func (s *Simulator) runCardPlastic(cardID string) (CardPlastic, error) {
	tx := s.k.Begin()
	defer tx.End()
	return s.cardPlastic(tx, cardID)
}

// cardUpstreamCloseRequests returns how many close requests were sent to the
// issuer for a card (repeat closes of a closing or ended card send none).
func (s *Simulator) cardUpstreamCloseRequests(cardID string) (int, error) {
	var n int
	err := s.withCard(cardID, func(_ *kernel.Tx, c *simCard) error { n = c.UpstreamCloseCalls; return nil })
	return n, err
}

// runCreditCardTopUp confirms a top-up upstream (action cards/topups/{id}/credit):
// the card is credited and card.topup.credited sent.
func (s *Simulator) runCreditCardTopUp(id string) error {
	return s.withTopUp(id, s.creditCardTopUp)
}

// runRejectCardTopUp is an explicit upstream rejection (action
// cards/topups/{id}/reject): the hold is released at once.
func (s *Simulator) runRejectCardTopUp(id string) error {
	return s.withTopUp(id, s.rejectCardTopUp)
}

// runTimeoutCardTopUp is an upstream timeout (action cards/topups/{id}/timeout):
// the top-up stays processing and its funds stay held.
func (s *Simulator) runTimeoutCardTopUp(id string) error {
	return s.withTopUp(id, s.timeoutCardTopUp)
}

// cardTopUpStatus returns the status of a top-up order (processing,
// completed or failed); the business API has no top-up retrieval.
func (s *Simulator) cardTopUpStatus(id string) (string, error) {
	var st string
	err := s.withTopUp(id, func(_ *kernel.Tx, t *cardTopUp) error { st = t.Status; return nil })
	return st, err
}

// setCardLimit sets how many cards of a form factor (virtual or physical)
// each member may hold, applications in progress included.
func (s *Simulator) setCardLimit(formFactor string, n int) {
	tx := s.k.Begin()
	defer tx.End()
	s.st.cards.limits[formFactor] = n
}

func (s *Simulator) withMember(id string, fn func(*member)) error {
	tx := s.k.Begin()
	defer tx.End()
	m, ae := s.resolveMember(id)
	if ae != nil {
		return fmt.Errorf("member %q: %s", id, ae.Code)
	}
	fn(m)
	return nil
}

// setCardPenalty marks a member as having outstanding penalties (card
// applications then fail) or clears it.
func (s *Simulator) setCardPenalty(memberID string, outstanding bool) error {
	return s.withMember(memberID, func(m *member) { s.st.cards.penalties[m.ID] = outstanding })
}

// setCardKYCCountry sets the country of the KYC a member used (default SG),
// which product country restrictions check.
func (s *Simulator) setCardKYCCountry(memberID, country string) error {
	return s.withMember(memberID, func(m *member) { s.st.cards.kycCountry[m.ID] = country })
}

// addCardShippingAddress adds a shipping address to a member and returns its
// id. Every member starts with adr_ addresses in SG (default) and HK.
func (s *Simulator) addCardShippingAddress(memberID, country string, isDefault bool) (string, error) {
	var id string
	err := s.withMember(memberID, func(m *member) {
		list := s.memberAddresses(m)
		if isDefault {
			for _, a := range list {
				a.IsDefault = false
			}
		}
		a := s.newAddress(country, isDefault)
		s.st.cards.addresses[m.ID] = append(list, a)
		id = a.ID
	})
	return id, err
}

// setCardBINAuthorizations restricts the products the merchant sees to these
// BINs; no BINs means unrestricted.
func (s *Simulator) setCardBINAuthorizations(bins ...string) {
	tx := s.k.Begin()
	defer tx.End()
	s.st.cards.binAuth = statusSet(bins...)
}

// setCardProductEnabled enables or disables a card product.
func (s *Simulator) setCardProductEnabled(productID string, enabled bool) error {
	tx := s.k.Begin()
	defer tx.End()
	p := s.st.cards.productByID[withIDPrefix("cpd_", productID)]
	if p == nil {
		return fmt.Errorf("card product %q not found", productID)
	}
	p.Enabled = enabled
	return nil
}

// cardFunds returns the available and locked balances of asset that card
// operations draw on: the member's wallet (external_member_id or mem_ id),
// or the merchant prepaid account when memberID is empty.
func (s *Simulator) cardFunds(memberID, asset string) (available, locked money.Amount, err error) {
	if memberID == "" {
		tx := s.k.Begin()
		defer tx.End()
		return s.st.ledger.Balance(AccountMerchantPrepaid, asset), s.st.ledger.Balance(AccountMerchantPrepaidLocked, asset), nil
	}
	err = s.withMember(memberID, func(m *member) {
		available, locked = s.st.ledger.Balance(MemberAvailable(m.ID), asset), s.st.ledger.Balance(MemberLocked(m.ID), asset)
	})
	return available, locked, err
}
