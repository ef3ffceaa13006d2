package cards

import (
	"context"
	"net/http"

	"github.com/mwallet/mwallet-go/internal/api"
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
	ID      string `json:"id"`
	Updated bool   `json:"updated"`
	// Response is the metadata of the HTTP exchange.
	Response *api.Response `json:"-"`
}

// SetPIN changes (with CurrentPIN) or resets (with CVV) the PIN of a card
// (POST /v1/cards/{id}/pin, scope cards:write). Step-up is required on every call: the first
// call answers step_up_required; resend with the same idempotency key and
// mwallet.WithStepUp (see the package documentation). The service allows 5
// calls per hour per member across all cards, then 429 rate_limited with
// RetryAfter. A wrong current PIN or CVV is invalid_fields without fields.
// The PIN and CVV never leave this call except in the request body.
func (c *Client) SetPIN(ctx context.Context, member, cardID string, p SetPINParams, opts ...api.CallOption) (*PINResult, error) {
	path, err := cardPath(cardID, "/pin")
	if err != nil {
		return nil, err
	}
	if !isDigits(string(p.NewPIN)) {
		return nil, api.Param("new_pin", "must be digits only and not empty", api.CodeInvalidFields)
	}
	hasCur, hasCVV := p.CurrentPIN != "", p.CVV != ""
	switch {
	case hasCur == hasCVV:
		return nil, api.Param("current_pin", "exactly one of current_pin (change) or cvv (reset) is required", api.CodeInvalidFields)
	case hasCur && !isDigits(string(p.CurrentPIN)):
		return nil, api.Param("current_pin", "must be digits only", api.CodeInvalidFields)
	case hasCVV && (len(p.CVV) != 3 || !isDigits(string(p.CVV))):
		return nil, api.Param("cvv", "must be three digits", api.CodeInvalidFields)
	}
	body := pinBody{NewPIN: string(p.NewPIN), CurrentPIN: string(p.CurrentPIN), CVV: string(p.CVV)}
	var out PINResult
	resp, err := c.caller.Do(ctx, &api.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: member, Body: body, Idempotent: true, Sensitive: true}, &out, opts...)
	if err != nil {
		return nil, err
	}
	out.Response = resp
	return &out, nil
}
