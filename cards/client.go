package cards

import mwallet "github.com/mwallet/mwallet-go"

// Client is the cards client. mwclient.Client has one as its Cards
// field; it shares the root client's tokens, signing, idempotency keys and
// retries.
type Client struct {
	caller *mwallet.Client
}

// New returns a cards client that sends its calls through c, the root
// client. mwclient.New builds one for its Cards field.
func New(c *mwallet.Client) *Client { return &Client{caller: c} }
