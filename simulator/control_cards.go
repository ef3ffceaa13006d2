package simulator

import (
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/money"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// CardsControl plays the card issuer and the operator of the card line
// (sim.Cards): it approves or rejects applications, ships physical cards,
// credits, rejects or times out top-ups, adds card transactions, ends
// closures, and sets the limits, penalties, countries and products that card
// requests are checked against. Its methods mirror the control actions under
// POST /_sim/cards/... listed in the simulator README.
type CardsControl struct{ s *Simulator }

// tx runs fn in a transaction of the simulator.
func (c *CardsControl) tx(fn func(tx *kernel.Tx) error) error {
	tx := c.s.k.Begin()
	defer tx.End()
	return fn(tx)
}

// member runs fn in a transaction with the member of id (external_member_id
// or mem_ id), as a member-scoped request resolves it.
func (c *CardsControl) member(id string, fn func(tx *kernel.Tx, m *member)) error {
	return c.tx(func(tx *kernel.Tx) error {
		m, ae := c.s.wiring.gw.resolveMember(id)
		if ae != nil {
			return fmt.Errorf("member %q: %s", id, ae.Code)
		}
		fn(tx, m)
		return nil
	})
}

// drop runs a line call in a transaction, keeping its error only.
func (c *CardsControl) drop(id string, f func(tx *kernel.Tx, id string) (map[string]any, error)) error {
	return c.tx(func(tx *kernel.Tx) error { _, err := f(tx, id); return err })
}

// CardTransaction is one card transaction to add with
// CardsControl.AddTransaction or the control action cards/{id}/transactions. Amounts are non-negative
// integer strings in the smallest unit of the card currency.
//
// A transaction whose status is "succeed" and whose direction is debit or
// credit moves the card balance once (debit down, credit up); a kind "auth"
// with status "pending" is an authorization not yet settled, which blocks
// closing the card. Sending an existing ID updates that transaction.
//
// The card line has the same struct (cards.Transaction): a public
// declaration may not name an internal package, and the conversion between
// the two compiles only while their fields are the same.
type CardTransaction struct {
	// ID (ctx_ prefix optional) updates an existing transaction; empty adds one.
	ID        string `json:"id,omitempty"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	Direction string `json:"direction"`
	Amount    string `json:"amount"`
	// Currency and Scale default to the card currency (USD, 2) and must
	// equal it when sent.
	Currency         string `json:"currency,omitempty"`
	Scale            int    `json:"scale,omitempty"`
	OriginalAmount   string `json:"original_amount,omitempty"`
	OriginalCurrency string `json:"original_currency,omitempty"`
	// BillAmount is omitted when unknown; it may be 0 only when Amount is 0.
	BillAmount   string `json:"bill_amount,omitempty"`
	BankFee      string `json:"bank_fee,omitempty"`
	ZinfraFee    string `json:"zinfra_fee,omitempty"`
	FeeCurrency  string `json:"fee_currency,omitempty"`
	FeeScale     int    `json:"fee_scale,omitempty"`
	MerchantName string `json:"merchant_name,omitempty"`
	MCC          string `json:"mcc,omitempty"`
	AuthCode     string `json:"auth_code,omitempty"`
	// OccurredAt defaults to the simulator's now.
	OccurredAt time.Time `json:"occurred_at,omitempty"`
}

// CardPlastic is what is printed on a card, for tests that play the end
// user: never returned by the business API.
type CardPlastic struct {
	CardID string `json:"card_id"`
	Last4  string `json:"last4"`
	Expiry string `json:"expiry"` // MM/YY
	CVV    string `json:"cvv"`
}

// ApproveApplication issues the card of an application under review
// (action cards/applications/{id}/approve): the card exists, any first
// top-up is credited to it, and card.application.approved is sent. An
// application whose member no longer passes the product's gates (KYC sent
// back to review, a restricted member, KYC country, penalties, a compensated
// quick KYC binding, a product gone) is rejected instead, with everything it
// held returned, as the upstream would.
func (c *CardsControl) ApproveApplication(id string) error {
	return call1(c.s, "Cards.ApproveApplication", func() error { return unknownID("card application", id, c.drop(id, c.s.st.cards.ApproveApplication)) }, id)
}

// RejectApplication fails an application under review (action
// cards/applications/{id}/reject): the issuance fee and shipping are
// refunded, the first top-up hold released, card.application.rejected sent.
func (c *CardsControl) RejectApplication(id string) error {
	return call1(c.s, "Cards.RejectApplication", func() error { return unknownID("card application", id, c.drop(id, c.s.st.cards.RejectApplication)) }, id)
}

// Ship makes a physical card leave stock (action cards/{id}/ship); it
// can then be activated.
func (c *CardsControl) Ship(cardID string) error {
	return call1(c.s, "Cards.Ship", func() error { return unknownID("card", cardID, c.drop(cardID, c.s.st.cards.Ship)) }, cardID)
}

// AddTransaction adds (or, with an existing ID, updates) a transaction
// of a card (action cards/{id}/transactions) and returns its ctx_ id.
func (c *CardsControl) AddTransaction(cardID string, t CardTransaction) (string, error) {
	return call2(c.s, "Cards.AddTransaction", func() (string, error) {
		var id string
		err := c.tx(func(tx *kernel.Tx) error {
			var err error
			id, _, err = c.s.st.cards.AddTransaction(tx, cardID, cardline.Transaction(t))
			return err
		})
		return unknownID2[string]("card", cardID)(id, err)
	}, cardID, t)
}

// CompleteClose is the issuer's callback ending a closure (action
// cards/{id}/close_complete): closing becomes closed.
func (c *CardsControl) CompleteClose(cardID string) error {
	return call1(c.s, "Cards.CompleteClose", func() error { return unknownID("card", cardID, c.drop(cardID, c.s.st.cards.CompleteClose)) }, cardID)
}

// SetStatus overrides a card's status as an operator would (action
// cards/{id}/set_status), for reaching pending or expired in tests.
func (c *CardsControl) SetStatus(cardID, status string) error {
	return call1(c.s, "Cards.SetStatus", func() error {
		return badName("card status", status, sortedNames(cardline.Statuses()), unknownID("card", cardID, c.tx(func(tx *kernel.Tx) error { _, err := c.s.st.cards.SetStatus(tx, cardID, status); return err })))
	}, cardID, status)
}

// SetUpstreamBalanceReadable makes the issuer's balance of a card
// readable or not (action cards/{id}/upstream_balance); close needs it
// readable.
func (c *CardsControl) SetUpstreamBalanceReadable(cardID string, readable bool) error {
	return call1(c.s, "Cards.SetUpstreamBalanceReadable", func() error {
		return unknownID("card", cardID, c.tx(func(tx *kernel.Tx) error {
			_, err := c.s.st.cards.SetUpstreamBalanceReadable(tx, cardID, readable)
			return err
		}))
	}, cardID, readable)
}

// UnlockActivation lifts an activation lock as an operator would
// (action cards/{id}/unlock).
func (c *CardsControl) UnlockActivation(cardID string) error {
	return call1(c.s, "Cards.UnlockActivation", func() error { return unknownID("card", cardID, c.drop(cardID, c.s.st.cards.UnlockActivation)) }, cardID)
}

// Plastic returns what is printed on a card (last four digits, expiry
// MM/YY, CVV), as the end user would read it (action cards/{id}/plastic).
func (c *CardsControl) Plastic(cardID string) (CardPlastic, error) {
	var p cardline.Plastic
	err := c.tx(func(tx *kernel.Tx) error {
		var err error
		p, err = c.s.st.cards.Plastic(tx, cardID)
		return err
	})
	return unknownID2[CardPlastic]("card", cardID)(CardPlastic(p), err)
}

// UpstreamCloseRequests returns how many close requests were sent to the
// issuer for a card (repeat closes of a closing or ended card send none).
func (c *CardsControl) UpstreamCloseRequests(cardID string) (int, error) {
	var n int
	err := c.tx(func(tx *kernel.Tx) error {
		var err error
		n, err = c.s.st.cards.UpstreamCloseRequests(tx, cardID)
		return err
	})
	return unknownID2[int]("card", cardID)(n, err)
}

// CreditTopUp confirms a top-up upstream (action cards/topups/{id}/credit):
// the card is credited and card.topup.credited sent.
func (c *CardsControl) CreditTopUp(id string) error {
	return call1(c.s, "Cards.CreditTopUp", func() error { return unknownID("card top-up", id, c.drop(id, c.s.st.cards.CreditTopUp)) }, id)
}

// RejectTopUp is an explicit upstream rejection (action
// cards/topups/{id}/reject): the hold is released at once.
func (c *CardsControl) RejectTopUp(id string) error {
	return call1(c.s, "Cards.RejectTopUp", func() error { return unknownID("card top-up", id, c.drop(id, c.s.st.cards.RejectTopUp)) }, id)
}

// TimeoutTopUp is an upstream timeout (action cards/topups/{id}/timeout):
// the top-up stays processing and its funds stay held.
func (c *CardsControl) TimeoutTopUp(id string) error {
	return call1(c.s, "Cards.TimeoutTopUp", func() error { return unknownID("card top-up", id, c.drop(id, c.s.st.cards.TimeoutTopUp)) }, id)
}

// TopUpStatus returns the status of a top-up order (processing,
// completed or failed); the business API has no top-up retrieval.
func (c *CardsControl) TopUpStatus(id string) (string, error) {
	var st string
	err := c.tx(func(tx *kernel.Tx) error {
		var err error
		st, err = c.s.st.cards.TopUpStatus(tx, id)
		return err
	})
	return unknownID2[string]("card top-up", id)(st, err)
}

// SetLimit sets how many cards of a form factor (virtual or physical)
// each member may hold, applications in progress included. Another form
// factor is refused with a *NameError, and nothing changes.
func (c *CardsControl) SetLimit(formFactor string, n int) error {
	return call1(c.s, "Cards.SetLimit", func() error {
		if err := checkFormFactor(formFactor); err != nil {
			return err
		}
		return c.tx(func(tx *kernel.Tx) error { c.s.st.cards.SetLimit(tx, formFactor, n); return nil })
	}, formFactor, n)
}

// SetPenalty marks a member as having outstanding penalties (card
// applications then fail) or clears it.
func (c *CardsControl) SetPenalty(memberID string, outstanding bool) error {
	return call1(c.s, "Cards.SetPenalty", func() error {
		return unknownID("member", memberID, c.member(memberID, func(tx *kernel.Tx, m *member) { c.s.st.cards.SetPenalty(tx, m.ID, outstanding) }))
	}, memberID, outstanding)
}

// SetKYCCountry sets the country of the KYC a member used (default SG),
// which product country restrictions check.
func (c *CardsControl) SetKYCCountry(memberID, country string) error {
	return call1(c.s, "Cards.SetKYCCountry", func() error {
		return unknownID("member", memberID, c.member(memberID, func(tx *kernel.Tx, m *member) { c.s.st.cards.SetKYCCountry(tx, m.ID, country) }))
	}, memberID, country)
}

// AddShippingAddress adds a shipping address to a member and returns its
// id. Every member starts with adr_ addresses in SG (default) and HK.
func (c *CardsControl) AddShippingAddress(memberID, country string, isDefault bool) (string, error) {
	return call2(c.s, "Cards.AddShippingAddress", func() (string, error) {
		var id string
		err := c.member(memberID, func(tx *kernel.Tx, m *member) { id = c.s.st.cards.AddShippingAddress(tx, m.ID, country, isDefault) })
		return unknownID2[string]("member", memberID)(id, err)
	}, memberID, country, isDefault)
}

// SetBINAuthorizations restricts the products the merchant sees to these
// BINs; no BINs means unrestricted.
func (c *CardsControl) SetBINAuthorizations(bins ...string) error {
	return call0(c.s, "Cards.SetBINAuthorizations", func() {
		_ = c.tx(func(tx *kernel.Tx) error { c.s.st.cards.SetBINAuthorizations(tx, bins...); return nil })
	}, bins)
}

// SetProductEnabled enables or disables a card product.
func (c *CardsControl) SetProductEnabled(productID string, enabled bool) error {
	return call1(c.s, "Cards.SetProductEnabled", func() error {
		return unknownID("card product", productID, c.tx(func(tx *kernel.Tx) error { return c.s.st.cards.SetProductEnabled(tx, productID, enabled) }))
	}, productID, enabled)
}

// Funds returns the available and locked balances of asset that card
// operations draw on: the member's wallet (external_member_id or mem_ id),
// or the merchant prepaid account when memberID is empty.
func (c *CardsControl) Funds(memberID, asset string) (available, locked money.Amount, err error) {
	if memberID == "" {
		err = c.tx(func(*kernel.Tx) error {
			available, locked = c.s.st.ledger.Balance(AccountMerchantPrepaid, asset), c.s.st.ledger.Balance(AccountMerchantPrepaidLocked, asset)
			return nil
		})
		return available, locked, unknownID("member", memberID, err)
	}
	err = c.member(memberID, func(_ *kernel.Tx, m *member) {
		available, locked = c.s.st.ledger.Balance(MemberAvailable(m.ID), asset), c.s.st.ledger.Balance(MemberLocked(m.ID), asset)
	})
	return available, locked, unknownID("member", memberID, err)
}

// SetCloseRefused makes the card issuer refuse (or accept again) the close
// requests of a card: a close that passes every other check then answers
// 400 state_invalid ("upstream refuses") and the card keeps its status.
// Control API: POST /_sim/cards/{id}/refuse_close with {"refuse": true|false}.
func (c *CardsControl) SetCloseRefused(cardID string, refused bool) error {
	return call1(c.s, "Cards.SetCloseRefused", func() error {
		return unknownID("card", cardID, c.tx(func(tx *kernel.Tx) error { return c.s.st.cards.SetCloseRefused(tx, cardID, refused) }))
	}, cardID, refused)
}

// TimeoutNextTopUps makes the issuer's call time out after the hold for
// the next n card top-ups (0 clears it): each is answered 504
// upstream_timeout while its order exists and stays processing with its
// funds held (no outcome runs by itself: credit or reject it), and its
// idempotency key stores the order, so the retry with the same key replays
// it. Control API: POST /_sim/cards/topups/upstream_timeout with
// {"count": n}.
func (c *CardsControl) TimeoutNextTopUps(n int) error {
	return call1(c.s, "Cards.TimeoutNextTopUps", func() error {
		if n < 0 {
			return errInvalidRequest("count must be 0 or more")
		}
		return c.tx(func(tx *kernel.Tx) error { c.s.st.cards.TimeoutNextTopUps(tx, n); return nil })
	}, n)
}
