package cards

import "github.com/mwallet/mwallet-go/internal/api"

// Client is the cards sub-client. Get it from mwallet.Client; it shares the root
// client's tokens, signing, idempotency keys and retries.
type Client struct {
	caller api.Caller
}

// New returns a sub-client that sends its calls through c. Integrators use the
// field of mwallet.Client instead.
func New(c api.Caller) *Client { return &Client{caller: c} }
