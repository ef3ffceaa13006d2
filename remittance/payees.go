package remittance

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// Payee is a saved recipient of a member. Its corridor decides the payout
// currency of every remittance to it.
//
// The shape is inferred: the specification names the payee endpoints without
// showing their fields.
type Payee struct {
	// Meta holds Response, the HTTP exchange that returned the value (nil
	// for list items).
	mwallet.Meta
	// ID carries the pye_ prefix followed by digits.
	ID string `json:"id"`
	// Corridor names the destination, for example "GB-GBP".
	Corridor string `json:"corridor"`
	// Country is the ISO 3166 alpha-2 country of the receiving account.
	Country string `json:"country"`
	// Currency is the payout currency (ISO 4217); pass it as
	// CreateParams.PayoutCurrency.
	Currency string `json:"currency"`
	// Holder is the account holder's name.
	Holder string `json:"holder"`
	// Summary is a masked account summary for display.
	Summary string `json:"summary"`
	// Status is the payee's status, for example active (open enumeration).
	Status string `json:"status"`
	// CreatedAt is when the payee was saved.
	CreatedAt time.Time `json:"created_at"`
}

// PayeeParams are the parameters of CreatePayee.
type PayeeParams struct {
	// Country is the ISO 3166 alpha-2 country of the receiving account.
	Country string `json:"country"`
	// Currency is the payout currency (ISO 4217 alphabetic).
	Currency string `json:"currency"`
	// HolderName is the account holder's full name.
	HolderName string `json:"holder_name"`
	// AccountNumber is the receiving account (IBAN or local number). It is
	// masked by String.
	AccountNumber string `json:"account_number"`
	// BankCode is the bank or branch code where the corridor needs one.
	BankCode string `json:"bank_code,omitempty"`
}

// String masks the account number.
func (p PayeeParams) String() string {
	return fmt.Sprintf("{Country:%s Currency:%s HolderName:%s AccountNumber:%s BankCode:%s}",
		p.Country, p.Currency, p.HolderName, maskAccount(p.AccountNumber), p.BankCode)
}

// GoString masks the account number.
func (p PayeeParams) GoString() string { return "remittance.PayeeParams" + p.String() }

// maskAccount keeps the last four characters of an account number and
// masks the others, one * per character (never splitting a multi-byte one).
func maskAccount(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return strings.Repeat("*", len(r))
	}
	return strings.Repeat("*", len(r)-4) + string(r[len(r)-4:])
}

// CreatePayee saves a payee for member (POST /v1/remit/payees, scope
// remittances:write). Required
// fields are checked locally; the service answers invalid_fields with a key
// and a reason for each field it refuses (mwallet.Error.Fields).
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) CreatePayee(ctx context.Context, member string, p PayeeParams, opts ...mwallet.CallOption) (*Payee, error) {
	p.Country = strings.ToUpper(strings.TrimSpace(p.Country))
	p.Currency = strings.ToUpper(strings.TrimSpace(p.Currency))
	return mwallet.Call[Payee](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/remit/payees", MemberScoped: true, Member: member,
		Body: p, Idempotent: true, AcceptedStatus: []int{http.StatusCreated}, Invalid: p.check(),
	}, opts...)
}

// check refuses a payee without one of the fields every payee needs.
func (p PayeeParams) check() error {
	for _, f := range []struct{ name, v string }{
		{"Country", p.Country}, {"Currency", p.Currency}, {"HolderName", strings.TrimSpace(p.HolderName)}, {"AccountNumber", strings.TrimSpace(p.AccountNumber)},
	} {
		if f.v == "" {
			return &mwallet.ParamError{Param: f.name, Reason: "required", Code: mwallet.CodeInvalidFields}
		}
	}
	return nil
}

// Payees walks member's saved payees, newest first (GET /v1/remit/payees,
// scope remittances:read).
// To stop and resume later, walk PayeePages instead.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields; it is taken to be the list envelope of Payee.
func (c *Client) Payees(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[Payee, error] {
	return mwallet.Items(c.PayeePages(ctx, member, p, opts...))
}

// PayeePages walks the pages of Payees: each page carries its payees, the
// cursor of the next page and the Response. Keep a page's NextCursor and
// pass it as p.Cursor to resume after that page (see mwallet.Pages).
func (c *Client) PayeePages(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[*mwallet.Page[Payee], error] {
	return mwallet.Pages[Payee](ctx, c.caller, mwallet.Request{
		Method: http.MethodGet, Path: "/v1/remit/payees", MemberScoped: true, Member: member,
	}, p, opts...)
}

// ErrPayeeNotFound is returned (wrapped) by FindPayee when the member has no
// payee with the id.
var ErrPayeeNotFound = errors.New("remittance: payee not found")

// FindPayee returns member's payee with id (pye_ prefix optional). The
// service has no single-payee read: the specification names only the list
// GET /v1/remit/payees, so FindPayee walks it (one request per page of up
// to 100) and returns the matching item, or an error wrapping
// ErrPayeeNotFound. Keep the payees you use in your own records rather
// than calling it per payment.
func (c *Client) FindPayee(ctx context.Context, member, id string, opts ...mwallet.CallOption) (*Payee, error) {
	want := strings.TrimSpace(id)
	if want == "" {
		return nil, &mwallet.ParamError{Param: "id", Reason: "required", Code: mwallet.CodeResourceNotFound}
	}
	if !strings.HasPrefix(want, "pye_") {
		want = "pye_" + want
	}
	for py, err := range c.Payees(ctx, member, mwallet.ListParams{Limit: 100}, opts...) {
		if err != nil {
			return nil, err
		}
		if py.ID == want {
			return &py, nil
		}
	}
	return nil, fmt.Errorf("%w: %s of member %s", ErrPayeeNotFound, want, member)
}
