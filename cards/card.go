package cards

import (
	"cmp"
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"regexp"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// Card is a member's card. It never carries the full card number.
//
// The shape is inferred: the specification names GET /v1/cards and
// GET /v1/cards/{id} without showing their fields.
type Card struct {
	// Meta holds Response, the HTTP exchange that returned the value (nil
	// for list items).
	mwallet.Meta
	// ID is the card id (crd_ prefix).
	ID string
	// Status is the card status (open enumeration).
	Status CardStatus
	// StatusVersion increases with every status move; merge forward by it.
	StatusVersion int64
	// FormFactor is virtual or physical.
	FormFactor    FormFactor
	ProductID     string
	ApplicationID string
	// Currency and Scale describe the card currency (for example USD, 2).
	Currency string
	Scale    int
	// Balance is the card balance in the card currency at Scale.
	Balance money.Amount
	// Last4 is the last four digits of the card number.
	Last4 string
	// LockedUntil is the end of an activation lock; zero when not locked.
	LockedUntil time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

type cardWire struct {
	ID            string     `json:"id"`
	Status        CardStatus `json:"status"`
	StatusVersion int64      `json:"status_version"`
	FormFactor    FormFactor `json:"form_factor"`
	ProductID     string     `json:"product_id"`
	ApplicationID string     `json:"application_id"`
	Currency      string     `json:"currency"`
	Scale         int        `json:"scale"`
	Balance       string     `json:"balance"`
	Last4         string     `json:"last4"`
	LockedUntil   string     `json:"locked_until"`
	CreatedAt     string     `json:"created_at"`
	UpdatedAt     string     `json:"updated_at"`
}

// UnmarshalJSON parses the balance at the card currency's scale.
func (c *Card) UnmarshalJSON(b []byte) error {
	var w cardWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := Card{ID: w.ID, Status: w.Status, StatusVersion: w.StatusVersion, FormFactor: w.FormFactor, ProductID: w.ProductID,
		ApplicationID: w.ApplicationID, Currency: w.Currency, Scale: w.Scale, Last4: w.Last4}
	var err error
	if out.Balance, err = parseAmount("balance", w.Balance, w.Scale); err != nil {
		return err
	}
	if out.LockedUntil, err = parseTime("locked_until", w.LockedUntil); err != nil {
		return err
	}
	if out.CreatedAt, err = parseTime("created_at", w.CreatedAt); err != nil {
		return err
	}
	if out.UpdatedAt, err = parseTime("updated_at", w.UpdatedAt); err != nil {
		return err
	}
	*c = out
	return nil
}

// List iterates over member's cards, newest first (GET /v1/cards, scope
// cards:read). To stop
// and resume later, walk ListPages instead.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields. Items are read as Card.
func (c *Client) List(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[Card, error] {
	return mwallet.Items(c.ListPages(ctx, member, p, opts...))
}

// ListPages walks the pages of List: each page carries its cards, the
// cursor of the next page and the Response. Keep a page's NextCursor and
// pass it as p.Cursor to resume after that page (see mwallet.Pages).
func (c *Client) ListPages(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[*mwallet.Page[Card], error] {
	req := mwallet.Request{Method: http.MethodGet, Path: "/v1/cards", MemberScoped: true, Member: member}
	return mwallet.Pages[Card](ctx, c.caller, req, p, opts...)
}

// Get reads one card of member (GET /v1/cards/{id}, scope cards:read); the id is accepted with
// or without crd_ (card events carry it bare).
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) Get(ctx context.Context, member, cardID string, opts ...mwallet.CallOption) (*Card, error) {
	path, err := cardPath(cardID, "")
	if err != nil {
		return nil, err
	}
	return mwallet.Call[Card](ctx, c.caller, &mwallet.Request{Method: http.MethodGet, Path: path, MemberScoped: true, Member: member}, opts...)
}

// StatusResult is the answer of a card status change: the card id and its
// new status.
type StatusResult struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	ID     string     `json:"id"`
	Status CardStatus `json:"status"`
}

var expiryRE = regexp.MustCompile(`^(0[1-9]|1[0-2])/[0-9]{2}$`)

// ActivateParams are the parameters of Activate.
type ActivateParams struct {
	// Expiry is the expiry printed on the card, MM/YY.
	Expiry string
	// PIN is the PIN to set, digits only. Its length is checked by the
	// service for the card (card_pin_invalid, not counted).
	PIN PIN
}

type activateBody struct {
	Expiry string `json:"expiry"`
	PIN    string `json:"pin"`
}

// Activate activates a physical card that has left stock
// (POST /v1/cards/{id}/activate, scope cards:write). card_pin_rejected and card_activate_failed
// are counted failures: three lock the card for 24 hours, after which calls
// answer state_invalid with LockedUntil set on the *mwallet.Error.
// card_pin_invalid (wrong length) is not counted. A repeat call on a card
// already activated with its PIN succeeds without counting.
func (c *Client) Activate(ctx context.Context, member, cardID string, p ActivateParams, opts ...mwallet.CallOption) (*StatusResult, error) {
	path, err := cardPath(cardID, "/activate")
	return c.statusCall(ctx, member, path, activateBody{Expiry: p.Expiry, PIN: string(p.PIN)}, cmp.Or(err, p.check()), opts)
}

// check refuses what the service would refuse without counting a failure.
func (p ActivateParams) check() error {
	if p.Expiry == "" || p.PIN == "" {
		param := "expiry"
		if p.Expiry != "" {
			param = "pin"
		}
		return &mwallet.ParamError{Param: param, Reason: "expiry and pin are required", Code: mwallet.CodeInvalidRequest}
	}
	if !expiryRE.MatchString(p.Expiry) {
		return &mwallet.ParamError{Param: "expiry", Reason: "must be MM/YY with a month from 01 to 12", Code: mwallet.CodeInvalidFields}
	}
	if !isDigits(string(p.PIN)) {
		return &mwallet.ParamError{Param: "pin", Reason: "must be digits only (card_pin_invalid, not a counted failure)", Code: mwallet.CodeCardPinInvalid}
	}
	return nil
}

// statusCall sends a card action that answers {id, status}; invalid is
// the input the method refused (mwallet.Request.Invalid).
func (c *Client) statusCall(ctx context.Context, member, path string, body any, invalid error, opts []mwallet.CallOption) (*StatusResult, error) {
	_, sensitive := body.(activateBody) // carries the PIN
	return mwallet.Call[StatusResult](ctx, c.caller, &mwallet.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: member, Body: body, Idempotent: true, Sensitive: sensitive, Invalid: invalid}, opts...)
}

// Freeze freezes an active card (POST /v1/cards/{id}/freeze, scope
// cards:write). Freezing is
// reversible with Unfreeze; a frozen card still accepts top-ups.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields. The SDK reads {id, status}.
func (c *Client) Freeze(ctx context.Context, member, cardID string, opts ...mwallet.CallOption) (*StatusResult, error) {
	path, err := cardPath(cardID, "/freeze")
	return c.statusCall(ctx, member, path, struct{}{}, err, opts)
}

// Unfreeze makes a frozen card active again (POST /v1/cards/{id}/unfreeze,
// scope cards:write).
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields. The SDK reads {id, status}.
func (c *Client) Unfreeze(ctx context.Context, member, cardID string, opts ...mwallet.CallOption) (*StatusResult, error) {
	path, err := cardPath(cardID, "/unfreeze")
	return c.statusCall(ctx, member, path, struct{}{}, err, opts)
}

// LostResult is the answer of ReportLost.
type LostResult struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	ID     string     `json:"id"`
	Status CardStatus `json:"status"`
	Kind   LostKind   `json:"kind"`
}

// ReportLost reports a physical card lost or stolen (POST /v1/cards/{id}/lost,
// scope cards:write).
// The move is irreversible (a lost card is recoverable only through Replace)
// and sends no webhook: update your own state from the result or re-read the
// card. Step-up is required: see the package documentation. An empty kind
// means lost.
func (c *Client) ReportLost(ctx context.Context, member, cardID string, kind LostKind, opts ...mwallet.CallOption) (*LostResult, error) {
	path, err := cardPath(cardID, "/lost")
	if err == nil && kind != "" && !kind.Known() {
		err = &mwallet.ParamError{Param: "kind", Reason: "must be lost or stolen", Code: mwallet.CodeInvalidFields}
	}
	body := struct {
		Kind LostKind `json:"kind,omitempty"`
	}{kind}
	return mwallet.Call[LostResult](ctx, c.caller, &mwallet.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: member, Body: body, Idempotent: true, Invalid: err}, opts...)
}

// CloseCheck says whether a card can be closed now.
//
// The response shape is inferred: the specification names the close-check
// endpoint without showing its fields. The SDK reads {id, closable, reasons}.
type CloseCheck struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	ID       string         `json:"id"`
	Closable bool           `json:"closable"`
	Reasons  []CloseBlocker `json:"reasons"`
}

// CheckClose asks whether a card can be closed (GET /v1/cards/{id}/close-check,
// scope cards:read).
// Call it before Close: Close currently answers 500 api_error when a balance
// remains, authorizations are unsettled, a top-up is still in flight or the
// upstream balance is unreadable.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) CheckClose(ctx context.Context, member, cardID string, opts ...mwallet.CallOption) (*CloseCheck, error) {
	path, err := cardPath(cardID, "/close-check")
	if err != nil {
		return nil, err
	}
	return mwallet.Call[CloseCheck](ctx, c.caller, &mwallet.Request{Method: http.MethodGet, Path: path, MemberScoped: true, Member: member}, opts...)
}

// CloseParams are the parameters of Close.
type CloseParams struct {
	// Reason is kept for audit and has no effect; the service truncates it to
	// 200 characters (the SDK sends it as given).
	Reason string
}

// Close asks to close a card (POST /v1/cards/{id}/close, scope cards:write). It needs a zero
// balance, no top-up in flight, no unsettled authorizations and a readable
// upstream balance. The
// answer is {id, status closing}, also for cards that have already ended;
// the final state arrives by card.status.updated.
func (c *Client) Close(ctx context.Context, member, cardID string, p CloseParams, opts ...mwallet.CallOption) (*StatusResult, error) {
	path, err := cardPath(cardID, "/close")
	body := struct {
		Reason string `json:"reason,omitempty"`
	}{p.Reason}
	return c.statusCall(ctx, member, path, body, err, opts)
}

// ReplaceParams are the parameters of Replace.
type ReplaceParams struct {
	// AddressID is the shipping address of a physical replacement; empty uses
	// the member's default address.
	AddressID string
	// Reason is kept for audit.
	Reason string
}

// Replacement is the answer of Replace: the new card and the card it replaces.
//
// The shape is inferred: the specification names replacements without
// showing their fields.
type Replacement struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// CardID is the new card (crd_ prefix).
	CardID string `json:"card_id"`
	// Status is the new card's status (unactivated for physical cards).
	Status CardStatus `json:"status"`
	// ReplacedCardID is the card that was replaced.
	ReplacedCardID string `json:"replaced_card_id"`
}

// Replace orders a replacement of a card, the only way to recover from a lost
// card (POST /v1/cards/{id}/replacements, scope cards:write). The old card becomes replaced and
// its balance moves to the new card.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) Replace(ctx context.Context, member, cardID string, p ReplaceParams, opts ...mwallet.CallOption) (*Replacement, error) {
	path, err := cardPath(cardID, "/replacements")
	body := struct {
		AddressID string `json:"address_id,omitempty"`
		Reason    string `json:"reason,omitempty"`
	}{strings.TrimSpace(p.AddressID), p.Reason}
	return mwallet.Call[Replacement](ctx, c.caller, &mwallet.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: member, Body: body, Idempotent: true, AcceptedStatus: []int{http.StatusCreated}, Invalid: err}, opts...)
}

// SecureSession opens the card's sensitive data (number, CVV) for the end
// user without the data passing through the merchant.
//
// The shape is inferred: the specification names the secure-session endpoint
// without showing its fields.
type SecureSession struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// Token is the session credential; it prints as [redacted].
	Token SessionToken
	// HostedURL is the page that shows the card data once opened with Token.
	HostedURL string
	// ExpiresAt is when the session ends.
	ExpiresAt time.Time
}

// SecureSession opens a secure session on a card
// (POST /v1/cards/{id}/secure-session, scope cards:secure). Treat the token
// as a secret: hand it only to the end user's device.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields. The SDK reads {token, hosted_url, expires_at
// (Unix seconds)}.
func (c *Client) SecureSession(ctx context.Context, member, cardID string, opts ...mwallet.CallOption) (*SecureSession, error) {
	path, err := cardPath(cardID, "/secure-session")
	return mwallet.Call[SecureSession](ctx, c.caller, &mwallet.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: member, Body: struct{}{}, Idempotent: true, Invalid: err}, opts...)
}

// UnmarshalJSON reads {token, hosted_url, expires_at (Unix seconds)}.
func (s *SecureSession) UnmarshalJSON(b []byte) error {
	var w struct {
		Token     string `json:"token"`
		HostedURL string `json:"hosted_url"`
		ExpiresAt int64  `json:"expires_at"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = SecureSession{Token: SessionToken(w.Token), HostedURL: w.HostedURL}
	if w.ExpiresAt > 0 {
		s.ExpiresAt = time.Unix(w.ExpiresAt, 0).UTC()
	}
	return nil
}
