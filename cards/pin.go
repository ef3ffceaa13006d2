package cards

import (
	"cmp"
	"context"
	"net/http"

	mwallet "github.com/mwallet/mwallet-go"
)

// SetPINParams are the parameters of SetPIN: the new PIN and exactly one of
// CurrentPIN (change) or CVV (reset).
type SetPINParams struct {
	// NewPIN is digits only; its length is checked by the service for the
	// card (card_pin_invalid), its rules too (card_pin_rejected: choose
	// another PIN and use a new idempotency key).
	NewPIN PIN
	// CurrentPIN changes the PIN knowing the old one.
	CurrentPIN PIN
	// CVV resets the PIN with the card's three-digit CVV.
	CVV CVV
}

type pinBody struct {
	NewPIN     string `json:"new_pin"`
	CurrentPIN string `json:"current_pin,omitempty"`
	CVV        string `json:"cvv,omitempty"`
}

// PINResult is the answer of SetPIN.
type PINResult struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	ID      string `json:"id"`
	Updated bool   `json:"updated"`
}

// SetPIN changes (with CurrentPIN) or resets (with CVV) the PIN of a card
// (POST /v1/cards/{id}/pin, scope cards:write). Step-up is required on every call: the first
// call answers step_up_required; resend with the same idempotency key and
// the challenge (mwallet.AsStepUp, StepUp.Options; see the package
// documentation). The service allows 5 calls per hour per member across all
// cards, then 429 rate_limited with RetryDelay. A wrong current PIN or CVV is invalid_fields without fields.
// The PIN and CVV never leave this call except in the request body.
func (c *Client) SetPIN(ctx context.Context, member, cardID string, p SetPINParams, opts ...mwallet.CallOption) (*PINResult, error) {
	path, err := cardPath(cardID, "/pin")
	body := pinBody{NewPIN: string(p.NewPIN), CurrentPIN: string(p.CurrentPIN), CVV: string(p.CVV)}
	return mwallet.Call[PINResult](ctx, c.caller, &mwallet.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: member, Body: body, Idempotent: true, Sensitive: true,
		Invalid: cmp.Or(err, p.check())}, opts...)
}

// check refuses PINs and CVVs of the wrong shape, and a call with both or
// neither of CurrentPIN and CVV.
func (p SetPINParams) check() error {
	if !isDigits(string(p.NewPIN)) {
		return &mwallet.ParamError{Param: "new_pin", Reason: "must be digits only and not empty", Code: mwallet.CodeInvalidFields}
	}
	hasCur, hasCVV := p.CurrentPIN != "", p.CVV != ""
	switch {
	case hasCur == hasCVV:
		return &mwallet.ParamError{Param: "current_pin", Reason: "exactly one of current_pin (change) or cvv (reset) is required", Code: mwallet.CodeInvalidFields}
	case hasCur && !isDigits(string(p.CurrentPIN)):
		return &mwallet.ParamError{Param: "current_pin", Reason: "must be digits only", Code: mwallet.CodeInvalidFields}
	case hasCVV && (len(p.CVV) != 3 || !isDigits(string(p.CVV))):
		return &mwallet.ParamError{Param: "cvv", Reason: "must be three digits", Code: mwallet.CodeInvalidFields}
	}
	return nil
}
