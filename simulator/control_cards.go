package simulator

import (
	"errors"
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

// CardTransaction is one card transaction to add with
// CardsControl.AddTransaction or the control action cards/{id}/transactions. Amounts are non-negative
// integer strings in the smallest unit of the card currency.
//
// A transaction whose status is "succeed" and whose direction is debit or
// credit moves the card balance once (debit down, credit up); a kind "auth"
// with status "pending" is an authorization not yet settled, which blocks
// closing the card. Sending an existing ID updates that transaction.
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
	return c.s.wiring.ctl.perform(cardOps.ApproveApplication, &cardline.AppRef{ID: id})
}

// RejectApplication fails an application under review (action
// cards/applications/{id}/reject): the issuance fee and shipping are
// refunded, the first top-up hold released, card.application.rejected sent.
func (c *CardsControl) RejectApplication(id string) error {
	return c.s.wiring.ctl.perform(cardOps.RejectApplication, &cardline.AppRef{ID: id})
}

// Ship makes a physical card leave stock (action cards/{id}/ship); it
// can then be activated.
func (c *CardsControl) Ship(cardID string) error {
	return c.s.wiring.ctl.perform(cardOps.Ship, &cardline.CardRef{ID: cardID})
}

// AddTransaction adds (or, with an existing ID, updates) a transaction
// of a card (action cards/{id}/transactions) and returns its ctx_ id.
func (c *CardsControl) AddTransaction(cardID string, t CardTransaction) (string, error) {
	out, err := invoke[cardline.TxAdded](c.s, opCardsAddTransaction, &cardline.TxIn{ID: cardID, TxFields: cardline.TxFields(t)})
	return out.ID, err
}

// CompleteClose is the issuer's callback ending a closure (action
// cards/{id}/close_complete): closing becomes closed.
func (c *CardsControl) CompleteClose(cardID string) error {
	return c.s.wiring.ctl.perform(cardOps.CompleteClose, &cardline.CardRef{ID: cardID})
}

// SetStatus overrides a card's status as an operator would (action
// cards/{id}/set_status), for reaching pending or expired in tests.
func (c *CardsControl) SetStatus(cardID, status string) error {
	return c.s.wiring.ctl.perform(cardOps.SetStatus, &cardline.StatusIn{ID: cardID, Status: status})
}

// SetUpstreamBalanceReadable makes the issuer's balance of a card
// readable or not (action cards/{id}/upstream_balance); close needs it
// readable.
func (c *CardsControl) SetUpstreamBalanceReadable(cardID string, readable bool) error {
	return c.s.wiring.ctl.perform(cardOps.SetUpstreamBalanceReadable, &cardline.ReadableIn{ID: cardID, Readable: &readable})
}

// UnlockActivation lifts an activation lock as an operator would
// (action cards/{id}/unlock).
func (c *CardsControl) UnlockActivation(cardID string) error {
	return c.s.wiring.ctl.perform(cardOps.UnlockActivation, &cardline.CardRef{ID: cardID})
}

// Plastic returns what is printed on a card (last four digits, expiry
// MM/YY, CVV), as the end user would read it (action cards/{id}/plastic).
func (c *CardsControl) Plastic(cardID string) (CardPlastic, error) {
	return invoke[CardPlastic](c.s, cardMemberOps.Plastic, &cardline.CardRef{ID: cardID})
}

// UpstreamCloseRequests returns how many close requests were sent to the
// issuer for a card (repeat closes of a closing or ended card send none).
func (c *CardsControl) UpstreamCloseRequests(cardID string) (int, error) {
	return invoke[int](c.s, cardOps.UpstreamCloseRequests, &cardline.CardRef{ID: cardID})
}

// CreditTopUp confirms a top-up upstream (action cards/topups/{id}/credit):
// the card is credited and card.topup.credited sent.
func (c *CardsControl) CreditTopUp(id string) error {
	return c.s.wiring.ctl.perform(cardOps.CreditTopUp, &cardline.TopUpRef{ID: id})
}

// RejectTopUp is an explicit upstream rejection (action
// cards/topups/{id}/reject): the hold is released at once.
func (c *CardsControl) RejectTopUp(id string) error {
	return c.s.wiring.ctl.perform(cardOps.RejectTopUp, &cardline.TopUpRef{ID: id})
}

// TimeoutTopUp is an upstream timeout (action cards/topups/{id}/timeout):
// the top-up stays processing and its funds stay held.
func (c *CardsControl) TimeoutTopUp(id string) error {
	return c.s.wiring.ctl.perform(cardOps.TimeoutTopUp, &cardline.TopUpRef{ID: id})
}

// TopUpStatus returns the status of a top-up order (processing,
// completed or failed); the business API has no top-up retrieval.
func (c *CardsControl) TopUpStatus(id string) (string, error) {
	return invoke[string](c.s, cardOps.TopUpStatus, &cardline.TopUpRef{ID: id})
}

// SetLimit sets how many cards of a form factor (virtual or physical)
// each member may hold, applications in progress included. Another form
// factor is refused with a *NameError, and nothing changes.
func (c *CardsControl) SetLimit(formFactor string, n int) error {
	return c.s.wiring.ctl.perform(cardOps.SetLimit, &cardline.LimitIn{FormFactor: formFactor, Limit: &n})
}

// SetPenalty marks a member as having outstanding penalties (card
// applications then fail) or clears it.
func (c *CardsControl) SetPenalty(memberID string, outstanding bool) error {
	return c.s.wiring.ctl.perform(cardMemberOps.SetPenalty, &cardline.PenaltyIn{Member: memberID, Outstanding: &outstanding})
}

// SetKYCCountry sets the country of the KYC a member used (default SG),
// an ISO 3166 alpha-2 code, which product country restrictions check.
func (c *CardsControl) SetKYCCountry(memberID, country string) error {
	return c.s.wiring.ctl.perform(cardMemberOps.SetKYCCountry, &cardline.KYCCountryIn{Member: memberID, Country: country})
}

// AddShippingAddress adds a shipping address in country (an ISO 3166
// alpha-2 code) to a member and returns its id. Every member starts with
// adr_ addresses in SG (default) and HK.
func (c *CardsControl) AddShippingAddress(memberID, country string, isDefault bool) (string, error) {
	out, err := invoke[map[string]any](c.s, cardMemberOps.AddShippingAddress, &cardline.ShippingIn{Member: memberID, Country: country, Default: isDefault})
	id, _ := out["id"].(string)
	return id, err
}

// SetBINAuthorizations restricts the products the merchant sees to these
// BINs (6 to 8 digits); no BINs means unrestricted.
func (c *CardsControl) SetBINAuthorizations(bins ...string) error {
	return c.s.wiring.ctl.perform(cardOps.SetBINAuthorizations, &cardline.BINsIn{BINs: bins})
}

// SetProductEnabled enables or disables a card product.
func (c *CardsControl) SetProductEnabled(productID string, enabled bool) error {
	return c.s.wiring.ctl.perform(cardOps.SetProductEnabled, &cardline.ProductEnabledIn{ID: productID, Enabled: &enabled})
}

// Funds returns the available and locked balances of asset that card
// operations draw on: the member's wallet (external_member_id or mem_ id),
// or the merchant prepaid account when memberID is empty.
func (c *CardsControl) Funds(memberID, asset string) (available, locked money.Amount, err error) {
	b, err := invoke[[2]money.Amount](c.s, cardMemberOps.Funds, &cardline.FundsIn{Member: memberID, Asset: asset})
	return b[0], b[1], err
}

// SetCloseRefused makes the card issuer refuse (or accept again) the close
// requests of a card: a close that passes every other check then answers
// 400 state_invalid ("upstream refuses") and the card keeps its status.
// Control API: POST /_sim/cards/{id}/refuse_close with {"refuse": true|false}.
func (c *CardsControl) SetCloseRefused(cardID string, refused bool) error {
	return c.s.wiring.ctl.perform(cardOps.SetCloseRefused, &cardline.RefuseCloseIn{ID: cardID, Refuse: &refused})
}

// TimeoutNextTopUps makes the issuer's call time out after the hold for
// the next n card top-ups (0 clears it): each is answered 504
// upstream_timeout while its order exists and stays processing with its
// funds held (no outcome runs by itself: credit or reject it), and its
// idempotency key stores the order, so the retry with the same key replays
// it. Control API: POST /_sim/cards/topups/upstream_timeout with
// {"count": n}.
func (c *CardsControl) TimeoutNextTopUps(n int) error {
	return c.s.wiring.ctl.perform(cardOps.TimeoutNextTopUps, &cardline.TopUpTimeoutsIn{Count: &n})
}

// cardOps are the card ops whose transitions need only the card line and
// the transaction, declared in the line (internal/cards); cardMemberOps,
// declared there too, resolve a member as the gateway does (memberCtxID)
// and answer the plastic as the public CardPlastic.
var (
	cardOps       = cardline.NewControlOps(cardsAt)
	cardMemberOps = cardline.NewMemberControlOps(cardsAt,
		memberCtxID, func(p cardline.Plastic) any { return CardPlastic(p) })
)

// memberCtxID is the id of the member a card op names, as a member-scoped
// request resolves it (its domain, member_ctx, was checked).
func memberCtxID(x *opRun, id string) string {
	m, _ := x.Sim.wiring.gw.ex.ResolveMember(x.Tx, id)
	return m.ID
}

// opCardsAddTransaction is declared in the line too: its Go method takes
// the public CardTransaction, and an earlier build's recordings replay the
// draws it made before refusing a debit the card could not cover (the
// public InsufficientFundsError).
var opCardsAddTransaction = cardline.NewTransactionOp(cardsAt,
	func(t cardline.Transaction) any { return CardTransaction(t) },
	func(x *opRun) bool { return x.Legacy },
	func(err error) bool { var short *InsufficientFundsError; return errors.As(err, &short) })

// cardsOps declares the card line's routes and methods.
var cardsOps = []*op{
	cardOps.ApproveApplication, cardOps.RejectApplication, cardOps.Ship, opCardsAddTransaction, cardOps.CompleteClose,
	cardOps.SetStatus, cardOps.SetUpstreamBalanceReadable, cardOps.UnlockActivation, cardMemberOps.Plastic, cardOps.UpstreamCloseRequests,
	cardOps.CreditTopUp, cardOps.RejectTopUp, cardOps.TimeoutTopUp, cardOps.TopUpStatus, cardOps.SetLimit, cardMemberOps.SetPenalty,
	cardMemberOps.SetKYCCountry, cardMemberOps.AddShippingAddress, cardOps.SetBINAuthorizations, cardOps.SetProductEnabled, cardMemberOps.Funds,
	cardOps.SetCloseRefused, cardOps.TimeoutNextTopUps,
	cardOps.Card, cardOps.TopUpView, cardOps.SecureSession,
}

// cardsAt is the card line and the transaction of a run.
func cardsAt(x *opRun) (*cardline.Line, *kernel.Tx) { return x.Sim.st.cards, x.Tx }
