package cards

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// MaxFilterLength is the longest auth_code, kind or status filter accepted,
// in characters (a multi-byte character counts once).
const MaxFilterLength = 64

// ErrUnknownDirection is returned by Transaction.Signed when the direction is
// unknown or unrecognised, so the amount cannot be signed.
var ErrUnknownDirection = errors.New("cards: transaction direction unknown; the amount cannot be signed")

// Transaction is a card transaction (GET /v1/cards/{id}/transactions item).
// Amount is never meaningful without Direction: use Signed for the effect on
// the card balance.
type Transaction struct {
	// ID is the transaction id (ctx_ prefix).
	ID     string
	Kind   TransactionKind
	Status TransactionStatus
	// Direction is debit, credit, none or unknown.
	Direction Direction
	// Amount is non-negative, in Currency at Scale (the card currency).
	Amount   money.Amount
	Currency string
	Scale    int
	// BillAmount is the card-currency bill at Scale; nil when the service
	// does not know it. It is never converted with a current exchange rate,
	// and it is zero only when Amount is zero.
	BillAmount *money.Amount
	// OriginalAmount and OriginalCurrency are the upstream transaction amount
	// and currency as stored (may differ from the card currency); the
	// service gives no scale for them, so they are kept as sent.
	OriginalAmount   string
	OriginalCurrency string
	// BankFee and ZinfraFee are cumulative fee snapshots in FeeCurrency at
	// FeeScale, not extra debits; nil when not sent.
	BankFee     *money.Amount
	ZinfraFee   *money.Amount
	FeeCurrency string
	FeeScale    int
	// MerchantName, MCC and AuthCode describe the card acceptor.
	MerchantName string
	MCC          string
	AuthCode     string
	// OccurredAt orders the list (newest first).
	OccurredAt time.Time
}

type transactionWire struct {
	ID               string            `json:"id"`
	Kind             TransactionKind   `json:"kind"`
	Status           TransactionStatus `json:"status"`
	Direction        Direction         `json:"direction"`
	Amount           string            `json:"amount"`
	Currency         string            `json:"currency"`
	Scale            int               `json:"scale"`
	OriginalAmount   string            `json:"original_amount"`
	OriginalCurrency string            `json:"original_currency"`
	BillAmount       *string           `json:"bill_amount"`
	BankFee          string            `json:"bank_fee"`
	ZinfraFee        string            `json:"zinfra_fee"`
	FeeCurrency      string            `json:"fee_currency"`
	FeeScale         int               `json:"fee_scale"`
	MerchantName     string            `json:"merchant_name"`
	MCC              string            `json:"mcc"`
	AuthCode         string            `json:"auth_code"`
	OccurredAt       string            `json:"occurred_at"`
}

// UnmarshalJSON turns the smallest-unit integer strings into amounts.
func (t *Transaction) UnmarshalJSON(b []byte) error {
	var w transactionWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := Transaction{ID: w.ID, Kind: w.Kind, Status: w.Status, Direction: w.Direction, Currency: w.Currency, Scale: w.Scale,
		OriginalAmount: w.OriginalAmount, OriginalCurrency: w.OriginalCurrency, FeeCurrency: w.FeeCurrency, FeeScale: w.FeeScale,
		MerchantName: w.MerchantName, MCC: w.MCC, AuthCode: w.AuthCode}
	var err error
	if out.Amount, err = parseMinor("amount", w.Amount, w.Scale); err != nil {
		return err
	}
	if out.Amount.IsNegative() {
		return fmt.Errorf("cards: amount %q is negative; direction carries the sign", w.Amount)
	}
	if w.BillAmount != nil && *w.BillAmount != "" {
		v, err := parseMinor("bill_amount", *w.BillAmount, w.Scale)
		if err != nil {
			return err
		}
		out.BillAmount = &v
	}
	if w.BankFee != "" {
		v, err := parseMinor("bank_fee", w.BankFee, w.FeeScale)
		if err != nil {
			return err
		}
		out.BankFee = &v
	}
	if w.ZinfraFee != "" {
		v, err := parseMinor("zinfra_fee", w.ZinfraFee, w.FeeScale)
		if err != nil {
			return err
		}
		out.ZinfraFee = &v
	}
	if out.OccurredAt, err = parseTime("occurred_at", w.OccurredAt); err != nil {
		return err
	}
	*t = out
	return nil
}

// Signed returns the amount with the direction applied: negative for a
// debit, positive for a credit, zero for none. An unknown or unrecognised
// direction gives ErrUnknownDirection: never guess the sign of card money.
func (t Transaction) Signed() (money.Amount, error) {
	switch t.Direction {
	case DirectionDebit:
		return t.Amount.Neg(), nil
	case DirectionCredit:
		return t.Amount, nil
	case DirectionNone:
		return money.Zero(t.Amount.Scale()), nil
	}
	return money.Amount{}, fmt.Errorf("%w (direction %q, transaction %s)", ErrUnknownDirection, t.Direction, t.ID)
}

// TransactionListParams select card transactions and page through them.
// Every field is optional.
type TransactionListParams struct {
	// ID selects one transaction (ctx_ prefix optional). A miss gives an
	// empty list.
	ID string
	// AuthCode matches exactly (case-sensitive; may match several rows); at
	// most 64 characters.
	AuthCode string
	// Kind and Status match exactly (case-sensitive), at most 64 characters
	// each. They are open sets: an unknown value gives an empty list.
	Kind   TransactionKind
	Status TransactionStatus
	// Direction is one of debit, credit, none or unknown.
	Direction Direction
	// From is inclusive and To exclusive, against occurred_at. Zero means
	// unbounded.
	From time.Time
	To   time.Time
	// ListParams holds the page size and starting cursor.
	mwallet.ListParams
}

func (f TransactionListParams) query() (url.Values, error) {
	q := url.Values{}
	if id := strings.TrimSpace(f.ID); id != "" {
		bare := strings.TrimPrefix(id, prefixTransaction)
		if _, err := uuid.Parse(bare); err != nil || len(bare) != 36 {
			return nil, &mwallet.ParamError{Param: "id", Reason: "must be a transaction id (ctx_ followed by a UUID, prefix optional)", Code: mwallet.CodeInvalidFields}
		}
		q.Set("id", prefixTransaction+bare)
	}
	for _, s := range []struct{ key, v string }{{"auth_code", f.AuthCode}, {"kind", string(f.Kind)}, {"status", string(f.Status)}} {
		if utf8.RuneCountInString(s.v) > MaxFilterLength { // characters, not bytes
			return nil, &mwallet.ParamError{Param: s.key, Reason: fmt.Sprintf("must be at most %d characters", MaxFilterLength), Code: mwallet.CodeInvalidFields}
		}
		if s.v != "" {
			q.Set(s.key, s.v)
		}
	}
	if f.Direction != "" {
		if !f.Direction.Known() {
			return nil, &mwallet.ParamError{Param: "direction", Reason: "must be debit, credit, none or unknown", Code: mwallet.CodeInvalidFields}
		}
		q.Set("direction", string(f.Direction))
	}
	if !f.From.IsZero() {
		q.Set("from", f.From.UTC().Format(time.RFC3339Nano))
	}
	if !f.To.IsZero() {
		q.Set("to", f.To.UTC().Format(time.RFC3339Nano))
	}
	return q, nil
}

// Transactions iterates over a card's transactions, newest occurred_at first
// (GET /v1/cards/{id}/transactions, scope cards:read). Invalid parameters
// are reported as the first (and only) yielded error without sending
// anything. To stop and resume later, walk TransactionPages instead.
func (c *Client) Transactions(ctx context.Context, member, cardID string, p TransactionListParams, opts ...mwallet.CallOption) iter.Seq2[Transaction, error] {
	return mwallet.Items(c.TransactionPages(ctx, member, cardID, p, opts...))
}

// TransactionPages walks the pages of Transactions: each page carries its
// transactions, the cursor of the next page and the Response. Keep a page's
// NextCursor and pass it as p.Cursor, with the same filters, to resume after
// that page (see mwallet.Pages).
func (c *Client) TransactionPages(ctx context.Context, member, cardID string, p TransactionListParams, opts ...mwallet.CallOption) iter.Seq2[*mwallet.Page[Transaction], error] {
	path, err := cardPath(cardID, "/transactions")
	if err == nil {
		var q url.Values
		if q, err = p.query(); err == nil {
			req := mwallet.Request{Method: http.MethodGet, Path: path, Query: q, MemberScoped: true, Member: member}
			return mwallet.Pages[Transaction](ctx, c.caller, req, p.ListParams, opts...)
		}
	}
	return func(yield func(*mwallet.Page[Transaction], error) bool) { yield(nil, err) }
}
