package qrpay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// Status is the status of a QR payment order. It is an open enumeration: an
// unknown value is kept verbatim (Known reports false; alert on it) and never
// mapped to a default.
type Status string

// Order statuses.
const (
	// StatusPending is brief: funds held, upstream not yet notified.
	StatusPending Status = "pending"
	// StatusProcessing means the outcome is unknown: funds are held; do not
	// unlock, do not declare failure, do not pay again.
	StatusProcessing Status = "processing"
	// StatusCompleted means the upstream released the funds to the acquiring
	// merchant. A completed order can still become refunded.
	StatusCompleted Status = "completed"
	// StatusFailed means the upstream failed the payment; the full debit was
	// returned.
	StatusFailed Status = "failed"
	// StatusExpired and StatusCanceled are listed by the contract without
	// their transitions.
	StatusExpired  Status = "expired"
	StatusCanceled Status = "canceled"
	// StatusRefunded means the upstream refunded a completed payment to the
	// available balance.
	StatusRefunded Status = "refunded"
)

// Known reports whether s is one of the documented statuses.
func (s Status) Known() bool {
	switch s {
	case StatusPending, StatusProcessing, StatusCompleted, StatusFailed, StatusExpired, StatusCanceled, StatusRefunded:
		return true
	}
	return false
}

// IsFinal reports whether s ends the wait for an outcome: completed, failed,
// refunded, expired or canceled. Pending, processing and unknown statuses
// are not final. Completed is final for the payment, but an upstream refund
// may still follow (qrpay.order.refunded).
func (s Status) IsFinal() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusRefunded, StatusExpired, StatusCanceled:
		return true
	}
	return false
}

// Fiat is an amount of the acquiring side, as the upstream printed it. It
// is a text to show, never to compute with; Amount may be empty (a
// custom-amount code has none).
type Fiat struct {
	// Amount is a decimal string such as "250.00".
	Amount string
	// Currency is the ISO 4217 alphabetic code such as "THB".
	Currency string
}

// String returns "250.00 THB" (or the currency alone when there is no amount).
func (f Fiat) String() string {
	if f.Amount == "" {
		return f.Currency
	}
	return f.Amount + " " + f.Currency
}

// Payer is the payer data some codes require (Decoded.RequiredPayerFields
// names the keys). Only these documented keys exist; empty fields are
// omitted.
type Payer struct {
	CustName        string `json:"custName,omitempty"`
	CustFirstName   string `json:"custFirstName,omitempty"`
	CustLastName    string `json:"custLastName,omitempty"`
	CustNationCode  string `json:"custNationCode,omitempty"`
	Gender          string `json:"gender,omitempty"`
	Mobile          string `json:"mobile,omitempty"`
	Email           string `json:"email,omitempty"`
	LegalNationCode string `json:"legalNationCode,omitempty"`
	LegalType       string `json:"legalType,omitempty"`
	LegalID         string `json:"legalId,omitempty"`
}

// Decoded is the result of Decode. Its amounts are acquiring-side fiat, not
// the member's debit.
type Decoded struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// Payee is what the member reads before paying: the merchant name the
	// code carries or, for a code without one, the account the service read
	// from the scheme's template ("account 257678859, bank 970416",
	// "mobile +66812345678"). It is text for people, not an identifier.
	Payee string
	// Amount is the code's amount in its currency; Amount.Amount is empty for
	// custom-amount codes.
	Amount Fiat
	// AmountEditable is true for custom-amount codes: send Currency and
	// Amount in QuoteParams and PayParams.
	AmountEditable bool
	// MinAmount and MaxAmount are the accepted range (empty when none).
	MinAmount string
	MaxAmount string
	// RequiredPayerFields lists the Payer keys the upstream needs; when it is
	// not empty, Quote refuses the code and Pay needs a Payer with them.
	RequiredPayerFields []string
}

// MerchantFee is the fee of a merchant-funded quote option or order.
type MerchantFee struct {
	// Asset is the fee asset: USDT, or USDC when the USDT left after any USDT
	// principal cannot cover the whole fee.
	Asset string
	// Amount is the fee in Asset, parsed with LedgerScale. When Asset equals
	// the debit asset it is already inside CustomerTotal; otherwise it is
	// debited in addition.
	Amount      money.Amount
	LedgerScale int
}

// QuoteOption is the price of one asset.
type QuoteOption struct {
	Asset        string
	LedgerScale  int
	DisplayScale int
	// CustomerTotal is the total debit in Asset (upstream quote, cost
	// protection, premium and fee included), indicative until paid.
	CustomerTotal money.Amount
	// Fee is the part of CustomerTotal that is a fee (zero when a
	// merchant-funded fee is charged in another asset).
	Fee money.Amount
	// Sufficient is true when the balance covers the plan (both assets when
	// a merchant-funded fee is charged separately). No balance is returned.
	Sufficient bool
	// MerchantFee is set on merchant-funded quotes.
	MerchantFee *MerchantFee
}

// Quote is the result of Quote.
type Quote struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// Payee is the acquiring merchant.
	Payee string
	// Acquirer is the fiat the acquiring merchant receives; a different
	// number, in a different currency, from any CustomerTotal.
	Acquirer Fiat
	// ExpiresAt is the upstream expiry; a quote reused within 60 seconds may
	// be near or past it. It is zero when the upstream gave none, or a value
	// that is neither RFC 3339 nor Unix seconds (ExpiresAtText keeps it).
	ExpiresAt time.Time
	// ExpiresAtText is expires_at exactly as sent, for a value ExpiresAt
	// could not read.
	ExpiresAtText string
	// Chosen is the option the member's payment priority (or PreferredAsset)
	// selects.
	Chosen QuoteOption
	// Options lists every quoted asset enabled here; their assets are exactly
	// the valid PreferredAsset values for Pay.
	Options []QuoteOption
	// BlockedReason, when not empty, means Pay will reject Chosen for that
	// reason. Empty does not guarantee execution.
	BlockedReason string
	// MerchantFee repeats Chosen's fee when the service sends the
	// merchant-funded fields at the top level.
	MerchantFee *MerchantFee
}

// Option returns the option for asset.
func (q *Quote) Option(asset string) (QuoteOption, bool) {
	for _, o := range q.Options {
		if o.Asset == asset {
			return o, true
		}
	}
	return QuoteOption{}, false
}

// parseExpiry reads an upstream expiry: RFC 3339, or Unix seconds.
func parseExpiry(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && n < 253402300800 {
		return time.Unix(n, 0).UTC()
	}
	return time.Time{}
}

// Order is a QR payment order.
type Order struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// ID is the REST id, qrp_<id>.
	ID string
	// Status is the order status; see Status.IsFinal.
	Status Status
	// Asset is the debit asset and LedgerScale its ledger_scale. The order
	// resource does not carry the scale: it comes from the asset catalogue
	// (GET /v1/assets, scope merchant:read, read once and cached by the
	// client), and CustomerTotal and Fee are parsed at it. When the
	// catalogue cannot be read (for example a Key without merchant:read)
	// the amounts keep the scale they were printed with and LedgerScale is
	// -1; the order itself is never lost to a catalogue failure.
	Asset       string
	LedgerScale int
	// CustomerTotal is the total debit in Asset; Fee its fee part.
	CustomerTotal money.Amount
	Fee           money.Amount
	// Payee is the acquiring merchant.
	Payee string
	// Acquirer is the amount reported upstream: the upstream quote text, not
	// the member's total.
	Acquirer Fiat
	// MerchantFee is set on merchant-funded orders.
	MerchantFee *MerchantFee
}

// Scheme is an accepted QR scheme (GET /v1/qrpay/schemes item; inferred shape).
type Scheme struct {
	// ID is a stable scheme name such as "promptpay".
	ID string `json:"scheme"`
	// Name is the display name.
	Name string `json:"name"`
	// Country is the ISO 3166-1 alpha-2 country.
	Country string `json:"country"`
	// Currency is the ISO 4217 alphabetic currency.
	Currency string `json:"currency"`
}

// Wire shapes: amounts arrive as strings and are parsed with the scale of
// their own item.

type wireDecoded struct {
	Payee               string   `json:"payee"`
	Currency            string   `json:"currency"`
	Amount              string   `json:"amount"`
	AmountEditable      bool     `json:"amount_editable"`
	MinAmount           string   `json:"min_amount"`
	MaxAmount           string   `json:"max_amount"`
	RequiredPayerFields []string `json:"required_payer_fields"`
}

// UnmarshalJSON reads the decode answer.
func (d *Decoded) UnmarshalJSON(b []byte) error {
	var w wireDecoded
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = Decoded{
		Payee: w.Payee, Amount: Fiat{Amount: w.Amount, Currency: w.Currency}, AmountEditable: w.AmountEditable,
		MinAmount: w.MinAmount, MaxAmount: w.MaxAmount, RequiredPayerFields: w.RequiredPayerFields,
	}
	return nil
}

type wireFee struct {
	FeeAsset       string  `json:"fee_asset"`
	FeeAmount      *string `json:"fee_amount"`
	FeeLedgerScale *int    `json:"fee_ledger_scale"`
}

func (w wireFee) fee() (*MerchantFee, error) {
	if w.FeeAmount == nil && w.FeeAsset == "" {
		return nil, nil
	}
	if w.FeeLedgerScale == nil || w.FeeAmount == nil {
		return nil, errors.New("merchant fee without fee_amount or fee_ledger_scale")
	}
	amt, err := money.ParseNonNegative(*w.FeeAmount, *w.FeeLedgerScale)
	if err != nil {
		return nil, fmt.Errorf("fee_amount: %w", err)
	}
	return &MerchantFee{Asset: w.FeeAsset, Amount: amt, LedgerScale: *w.FeeLedgerScale}, nil
}

type wireOption struct {
	Asset         string `json:"asset"`
	LedgerScale   *int   `json:"ledger_scale"`
	DisplayScale  int    `json:"display_scale"`
	CustomerTotal string `json:"customer_total"`
	Fee           string `json:"fee"`
	Sufficient    bool   `json:"sufficient"`
	wireFee
}

func (w wireOption) option() (QuoteOption, error) {
	if w.LedgerScale == nil {
		return QuoteOption{}, fmt.Errorf("option %s: ledger_scale missing", w.Asset)
	}
	sc := *w.LedgerScale
	o := QuoteOption{Asset: w.Asset, LedgerScale: sc, DisplayScale: w.DisplayScale, Sufficient: w.Sufficient}
	var err error
	if o.CustomerTotal, err = money.ParseNonNegative(w.CustomerTotal, sc); err != nil {
		return QuoteOption{}, fmt.Errorf("option %s customer_total: %w", w.Asset, err)
	}
	if o.Fee, err = money.ParseNonNegative(w.Fee, sc); err != nil {
		return QuoteOption{}, fmt.Errorf("option %s fee: %w", w.Asset, err)
	}
	if o.MerchantFee, err = w.fee(); err != nil {
		return QuoteOption{}, fmt.Errorf("option %s: %w", w.Asset, err)
	}
	return o, nil
}

type wireQuote struct {
	Payee            string       `json:"payee"`
	AcquirerCurrency string       `json:"acquirer_currency"`
	AcquirerAmount   string       `json:"acquirer_amount"`
	ExpiresAt        string       `json:"expires_at"`
	Chosen           *wireOption  `json:"chosen"`
	Options          []wireOption `json:"options"`
	BlockedReason    string       `json:"blocked_reason"`
	wireFee
}

// UnmarshalJSON reads a quote, parsing each amount with the scale of its
// own item; an amount that does not fit its scale is an error.
func (q *Quote) UnmarshalJSON(b []byte) error {
	var w wireQuote
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	v, err := w.quote()
	if err != nil {
		return fmt.Errorf("qrpay: quote response: %w", err)
	}
	*q = *v
	return nil
}

func (w wireQuote) quote() (*Quote, error) {
	q := &Quote{
		Payee: w.Payee, Acquirer: Fiat{Amount: w.AcquirerAmount, Currency: w.AcquirerCurrency},
		ExpiresAt: parseExpiry(w.ExpiresAt), ExpiresAtText: w.ExpiresAt, BlockedReason: w.BlockedReason,
	}
	if w.Chosen == nil {
		return nil, errors.New("chosen missing")
	}
	var err error
	if q.Chosen, err = w.Chosen.option(); err != nil {
		return nil, fmt.Errorf("chosen: %w", err)
	}
	for _, wo := range w.Options {
		o, err := wo.option()
		if err != nil {
			return nil, fmt.Errorf("options: %w", err)
		}
		q.Options = append(q.Options, o)
	}
	if q.MerchantFee, err = w.fee(); err != nil {
		return nil, err
	}
	if q.Chosen.MerchantFee == nil && q.MerchantFee != nil {
		fee := *q.MerchantFee
		q.Chosen.MerchantFee = &fee
	}
	return q, nil
}

type wireOrder struct {
	ID               string `json:"id"`
	Status           Status `json:"status"`
	Asset            string `json:"asset"`
	CustomerTotal    string `json:"customer_total"`
	Fee              string `json:"fee"`
	Payee            string `json:"payee"`
	AcquirerCurrency string `json:"acquirer_currency"`
	AcquirerAmount   string `json:"acquirer_amount"`
	wireFee
}

// UnmarshalJSON reads an order, parsing its amounts with its ledger_scale
// (or, without one, at the scale they are printed with).
func (o *Order) UnmarshalJSON(b []byte) error {
	var w wireOrder
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	v, err := w.order()
	if err != nil {
		return fmt.Errorf("qrpay: order response: %w", err)
	}
	*o = *v
	return nil
}

// order builds the Order with its amounts at the scale they are printed
// with; ReadAnswer then re-reads them at the asset's ledger_scale.
func (w wireOrder) order() (*Order, error) {
	o := &Order{
		ID: w.ID, Status: w.Status, Asset: w.Asset, LedgerScale: -1, Payee: w.Payee,
		Acquirer: Fiat{Amount: w.AcquirerAmount, Currency: w.AcquirerCurrency},
	}
	var err error
	if o.MerchantFee, err = w.fee(); err != nil {
		return nil, err
	}
	printed := func(s string) (money.Amount, error) {
		var a money.Amount
		if err := a.UnmarshalJSON([]byte(strconv.Quote(s))); err != nil {
			return money.Amount{}, err
		}
		if a.IsNegative() {
			return money.Amount{}, money.ErrNegative
		}
		return a, nil
	}
	if o.CustomerTotal, err = printed(w.CustomerTotal); err != nil {
		return nil, fmt.Errorf("customer_total: %w", err)
	}
	if o.Fee, err = printed(w.Fee); err != nil {
		return nil, fmt.Errorf("fee: %w", err)
	}
	return o, nil
}

// ReadAnswer re-reads the order's customer_total and fee at the
// ledger_scale of its asset, from c's cached asset catalogue (the order
// resource carries no scale of its own). It makes Order a
// mwallet.AnswerReader: the client calls it inside the call that read the
// order (Pay, Order, ResumePay, or your own mwallet.Client.Do), so that an
// amount that does not fit the catalogue's scale fails that call with an
// *mwallet.AnswerError, which says the payment ran and carries its key.
// When the catalogue cannot be read (a Key without merchant:read), or
// does not list the asset, the amounts keep their printed scale and
// LedgerScale stays -1. Calling it again changes nothing.
func (o *Order) ReadAnswer(ctx context.Context, c *mwallet.Client) error {
	if o.Asset == "" {
		return nil
	}
	total, err := c.ParseAmount(ctx, o.Asset, o.CustomerTotal.String())
	var pe *money.ParseError
	switch {
	case err == nil:
		fee, err := c.ParseAmount(ctx, o.Asset, o.Fee.String())
		if err != nil {
			return fmt.Errorf("qrpay: order fee: %w", err)
		}
		o.CustomerTotal, o.Fee, o.LedgerScale = total, fee, total.Scale()
	case errors.As(err, &pe):
		// The catalogue was read: the amount does not fit its scale.
		return fmt.Errorf("qrpay: order customer_total: %w", err)
	}
	return nil
}
