package simulator

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
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
	return call1(c.s, ctlCardsApproveApplication, func() error { return unknownID("card application", id, c.drop(id, c.s.st.cards.ApproveApplication)) }, id)
}

// RejectApplication fails an application under review (action
// cards/applications/{id}/reject): the issuance fee and shipping are
// refunded, the first top-up hold released, card.application.rejected sent.
func (c *CardsControl) RejectApplication(id string) error {
	return call1(c.s, ctlCardsRejectApplication, func() error { return unknownID("card application", id, c.drop(id, c.s.st.cards.RejectApplication)) }, id)
}

// Ship makes a physical card leave stock (action cards/{id}/ship); it
// can then be activated.
func (c *CardsControl) Ship(cardID string) error {
	return call1(c.s, ctlCardsShip, func() error { return unknownID("card", cardID, c.drop(cardID, c.s.st.cards.Ship)) }, cardID)
}

// AddTransaction adds (or, with an existing ID, updates) a transaction
// of a card (action cards/{id}/transactions) and returns its ctx_ id.
func (c *CardsControl) AddTransaction(cardID string, t CardTransaction) (string, error) {
	return call2(c.s, ctlCardsAddTransaction, func() (string, error) {
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
	return call1(c.s, ctlCardsCompleteClose, func() error { return unknownID("card", cardID, c.drop(cardID, c.s.st.cards.CompleteClose)) }, cardID)
}

// SetStatus overrides a card's status as an operator would (action
// cards/{id}/set_status), for reaching pending or expired in tests.
func (c *CardsControl) SetStatus(cardID, status string) error {
	return call1(c.s, ctlCardsSetStatus, func() error {
		return badName("card status", status, sortedNames(cardline.Statuses()), unknownID("card", cardID, c.tx(func(tx *kernel.Tx) error { _, err := c.s.st.cards.SetStatus(tx, cardID, status); return err })))
	}, cardID, status)
}

// SetUpstreamBalanceReadable makes the issuer's balance of a card
// readable or not (action cards/{id}/upstream_balance); close needs it
// readable.
func (c *CardsControl) SetUpstreamBalanceReadable(cardID string, readable bool) error {
	return call1(c.s, ctlCardsSetUpstreamBalanceReadable, func() error {
		return unknownID("card", cardID, c.tx(func(tx *kernel.Tx) error {
			_, err := c.s.st.cards.SetUpstreamBalanceReadable(tx, cardID, readable)
			return err
		}))
	}, cardID, readable)
}

// UnlockActivation lifts an activation lock as an operator would
// (action cards/{id}/unlock).
func (c *CardsControl) UnlockActivation(cardID string) error {
	return call1(c.s, ctlCardsUnlockActivation, func() error { return unknownID("card", cardID, c.drop(cardID, c.s.st.cards.UnlockActivation)) }, cardID)
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
	return call1(c.s, ctlCardsCreditTopUp, func() error { return unknownID("card top-up", id, c.drop(id, c.s.st.cards.CreditTopUp)) }, id)
}

// RejectTopUp is an explicit upstream rejection (action
// cards/topups/{id}/reject): the hold is released at once.
func (c *CardsControl) RejectTopUp(id string) error {
	return call1(c.s, ctlCardsRejectTopUp, func() error { return unknownID("card top-up", id, c.drop(id, c.s.st.cards.RejectTopUp)) }, id)
}

// TimeoutTopUp is an upstream timeout (action cards/topups/{id}/timeout):
// the top-up stays processing and its funds stay held.
func (c *CardsControl) TimeoutTopUp(id string) error {
	return call1(c.s, ctlCardsTimeoutTopUp, func() error { return unknownID("card top-up", id, c.drop(id, c.s.st.cards.TimeoutTopUp)) }, id)
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
	return call1(c.s, ctlCardsSetLimit, func() error {
		if err := checkFormFactor(formFactor); err != nil {
			return err
		}
		return c.tx(func(tx *kernel.Tx) error { c.s.st.cards.SetLimit(tx, formFactor, n); return nil })
	}, formFactor, n)
}

// SetPenalty marks a member as having outstanding penalties (card
// applications then fail) or clears it.
func (c *CardsControl) SetPenalty(memberID string, outstanding bool) error {
	return call1(c.s, ctlCardsSetPenalty, func() error {
		return unknownID("member", memberID, c.member(memberID, func(tx *kernel.Tx, m *member) { c.s.st.cards.SetPenalty(tx, m.ID, outstanding) }))
	}, memberID, outstanding)
}

// SetKYCCountry sets the country of the KYC a member used (default SG),
// which product country restrictions check.
func (c *CardsControl) SetKYCCountry(memberID, country string) error {
	return call1(c.s, ctlCardsSetKYCCountry, func() error {
		return unknownID("member", memberID, c.member(memberID, func(tx *kernel.Tx, m *member) { c.s.st.cards.SetKYCCountry(tx, m.ID, country) }))
	}, memberID, country)
}

// AddShippingAddress adds a shipping address to a member and returns its
// id. Every member starts with adr_ addresses in SG (default) and HK.
func (c *CardsControl) AddShippingAddress(memberID, country string, isDefault bool) (string, error) {
	return call2(c.s, ctlCardsAddShippingAddress, func() (string, error) {
		var id string
		err := c.member(memberID, func(tx *kernel.Tx, m *member) { id = c.s.st.cards.AddShippingAddress(tx, m.ID, country, isDefault) })
		return unknownID2[string]("member", memberID)(id, err)
	}, memberID, country, isDefault)
}

// SetBINAuthorizations restricts the products the merchant sees to these
// BINs; no BINs means unrestricted.
func (c *CardsControl) SetBINAuthorizations(bins ...string) error {
	return call0(c.s, ctlCardsSetBINAuthorizations, func() {
		_ = c.tx(func(tx *kernel.Tx) error { c.s.st.cards.SetBINAuthorizations(tx, bins...); return nil })
	}, bins)
}

// SetProductEnabled enables or disables a card product.
func (c *CardsControl) SetProductEnabled(productID string, enabled bool) error {
	return call1(c.s, ctlCardsSetProductEnabled, func() error {
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
	return call1(c.s, ctlCardsSetCloseRefused, func() error {
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
	return call1(c.s, ctlCardsTimeoutNextTopUps, func() error {
		if n < 0 {
			return errInvalidRequest("count must be 0 or more")
		}
		return c.tx(func(tx *kernel.Tx) error { c.s.st.cards.TimeoutNextTopUps(tx, n); return nil })
	}, n)
}

// The names the Cards control methods record their calls under, each declared
// once and used by its method and by cardsControls.
const (
	ctlCardsApproveApplication         = "Cards.ApproveApplication"
	ctlCardsRejectApplication          = "Cards.RejectApplication"
	ctlCardsShip                       = "Cards.Ship"
	ctlCardsAddTransaction             = "Cards.AddTransaction"
	ctlCardsCompleteClose              = "Cards.CompleteClose"
	ctlCardsSetStatus                  = "Cards.SetStatus"
	ctlCardsSetUpstreamBalanceReadable = "Cards.SetUpstreamBalanceReadable"
	ctlCardsUnlockActivation           = "Cards.UnlockActivation"
	ctlCardsCreditTopUp                = "Cards.CreditTopUp"
	ctlCardsRejectTopUp                = "Cards.RejectTopUp"
	ctlCardsTimeoutTopUp               = "Cards.TimeoutTopUp"
	ctlCardsSetLimit                   = "Cards.SetLimit"
	ctlCardsSetPenalty                 = "Cards.SetPenalty"
	ctlCardsSetKYCCountry              = "Cards.SetKYCCountry"
	ctlCardsAddShippingAddress         = "Cards.AddShippingAddress"
	ctlCardsSetBINAuthorizations       = "Cards.SetBINAuthorizations"
	ctlCardsSetProductEnabled          = "Cards.SetProductEnabled"
	ctlCardsSetCloseRefused            = "Cards.SetCloseRefused"
	ctlCardsTimeoutNextTopUps          = "Cards.TimeoutNextTopUps"
)

// cardsControls declares the cards control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var cardsControls = []controlDecl{
	{
		name: ctlCardsSetLimit, bind: func(s *Simulator) any { return s.Cards.SetLimit },
		route: "POST /_sim/cards/limits",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				FormFactor string `json:"form_factor"`
				Limit      *int   `json:"limit"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			if in.FormFactor != "virtual" && in.FormFactor != "physical" {
				return 0, nil, errInvalidRequest("form_factor must be virtual or physical")
			}
			if in.Limit == nil || *in.Limit < 0 {
				return 0, nil, errInvalidRequest("limit must be 0 or more")
			}
			if err := s.Cards.SetLimit(in.FormFactor, *in.Limit); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"form_factor": in.FormFactor, "limit": *in.Limit}, nil
		},
	},
	{
		name: ctlCardsSetBINAuthorizations, bind: func(s *Simulator) any { return s.Cards.SetBINAuthorizations },
		route: "POST /_sim/cards/bin_authorizations",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				BINs []string `json:"bins"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			if err := s.Cards.SetBINAuthorizations(in.BINs...); err != nil {
				return 0, nil, err
			}
			if in.BINs == nil {
				in.BINs = []string{}
			}
			return http.StatusOK, map[string]any{"bins": in.BINs}, nil
		},
	},
	{
		name: ctlCardsSetProductEnabled, bind: func(s *Simulator) any { return s.Cards.SetProductEnabled },
		route: "POST /_sim/cards/products/{id}/enabled",
		call: func(s *Simulator, r *http.Request, body []byte) (int, any, error) {
			on, err := decodeBool(body, "enabled")
			if err != nil {
				return 0, nil, err
			}
			if err := s.Cards.SetProductEnabled(r.PathValue("id"), on); err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusOK, map[string]any{"product_id": cardline.WithIDPrefix("cpd_", r.PathValue("id")), "enabled": on}, nil
		},
	},
	{
		name: ctlCardsSetPenalty, bind: func(s *Simulator) any { return s.Cards.SetPenalty },
		route: "POST /_sim/members/{id}/card_penalty",
		call: func(s *Simulator, r *http.Request, body []byte) (int, any, error) {
			on, err := decodeBool(body, "outstanding")
			if err != nil {
				return 0, nil, err
			}
			if err := s.Cards.SetPenalty(r.PathValue("id"), on); err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusOK, map[string]any{"member": r.PathValue("id"), "outstanding": on}, nil
		},
	},
	{
		name: ctlCardsSetKYCCountry, bind: func(s *Simulator) any { return s.Cards.SetKYCCountry },
		route: "POST /_sim/members/{id}/kyc_country",
		call: func(s *Simulator, r *http.Request, body []byte) (int, any, error) {
			var in struct {
				Country string `json:"country"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			c := strings.ToUpper(strings.TrimSpace(in.Country))
			if !api.IsAlpha(c, 2) {
				return 0, nil, errInvalidRequest("country must be an ISO 3166 alpha-2 code")
			}
			if err := s.Cards.SetKYCCountry(r.PathValue("id"), c); err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusOK, map[string]any{"member": r.PathValue("id"), "country": c}, nil
		},
	},
	{
		name: ctlCardsAddShippingAddress, bind: func(s *Simulator) any { return s.Cards.AddShippingAddress },
		route: "POST /_sim/members/{id}/shipping_addresses",
		call: func(s *Simulator, r *http.Request, body []byte) (int, any, error) {
			var in struct {
				Country string `json:"country"`
				Default bool   `json:"default"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			c := strings.ToUpper(strings.TrimSpace(in.Country))
			if !api.IsAlpha(c, 2) {
				return 0, nil, errInvalidRequest("country must be an ISO 3166 alpha-2 code")
			}
			id, err := s.Cards.AddShippingAddress(r.PathValue("id"), c, in.Default)
			if err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusCreated, map[string]any{"id": id, "country": c, "is_default": in.Default}, nil
		},
	},
	{
		name: ctlCardsSetCloseRefused, bind: func(s *Simulator) any { return s.Cards.SetCloseRefused },
		route: "POST /_sim/cards/{id}/refuse_close",
		call: func(s *Simulator, r *http.Request, body []byte) (int, any, error) {
			on, err := decodeBool(body, "refuse")
			if err != nil {
				return 0, nil, err
			}
			if err := s.Cards.SetCloseRefused(r.PathValue("id"), on); err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusOK, map[string]any{"id": cardline.WithIDPrefix("crd_", r.PathValue("id")), "refuse": on}, nil
		},
	},
	{
		name: ctlCardsTimeoutNextTopUps, bind: func(s *Simulator) any { return s.Cards.TimeoutNextTopUps },
		route: "POST /_sim/cards/topups/upstream_timeout",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				Count *int `json:"count"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			n := 1
			if in.Count != nil {
				n = *in.Count
			}
			if err := s.Cards.TimeoutNextTopUps(n); err != nil {
				return 0, nil, err
			}
			return http.StatusOK, map[string]any{"count": n}, nil
		},
	},
	{
		route: "GET /_sim/cards/{id}",
		inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
			out, err := s.st.cards.CardDetail(tx, r.PathValue("id"))
			if err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusOK, out, nil
		},
	},
	{
		route: "GET /_sim/cards/topups/{id}",
		inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
			out, err := s.st.cards.TopUp(tx, r.PathValue("id"))
			if err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusOK, out, nil
		},
	},
	{name: ctlCardsApproveApplication, bind: func(s *Simulator) any { return s.Cards.ApproveApplication }},
	{name: ctlCardsRejectApplication, bind: func(s *Simulator) any { return s.Cards.RejectApplication }},
	{name: ctlCardsShip, bind: func(s *Simulator) any { return s.Cards.Ship }},
	{name: ctlCardsAddTransaction, bind: func(s *Simulator) any { return s.Cards.AddTransaction }},
	{name: ctlCardsCompleteClose, bind: func(s *Simulator) any { return s.Cards.CompleteClose }},
	{name: ctlCardsSetStatus, bind: func(s *Simulator) any { return s.Cards.SetStatus }},
	{name: ctlCardsSetUpstreamBalanceReadable, bind: func(s *Simulator) any { return s.Cards.SetUpstreamBalanceReadable }},
	{name: ctlCardsUnlockActivation, bind: func(s *Simulator) any { return s.Cards.UnlockActivation }},
	{name: "Cards.Plastic", noCall: true, bind: func(s *Simulator) any { return s.Cards.Plastic }},
	{name: "Cards.UpstreamCloseRequests", noCall: true, bind: func(s *Simulator) any { return s.Cards.UpstreamCloseRequests }},
	{name: ctlCardsCreditTopUp, bind: func(s *Simulator) any { return s.Cards.CreditTopUp }},
	{name: ctlCardsRejectTopUp, bind: func(s *Simulator) any { return s.Cards.RejectTopUp }},
	{name: ctlCardsTimeoutTopUp, bind: func(s *Simulator) any { return s.Cards.TimeoutTopUp }},
	{name: "Cards.TopUpStatus", noCall: true, bind: func(s *Simulator) any { return s.Cards.TopUpStatus }},
	{name: "Cards.Funds", noCall: true, bind: func(s *Simulator) any { return s.Cards.Funds }},
}
