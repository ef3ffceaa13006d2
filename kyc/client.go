// Package kyc issues hosted KYC screens for members, reads their KYC state and
// manages quick KYC bindings.
//
// A hosted KYC ticket's URL is a one-time, 24-hour link bound to the member:
// hand it to that member only. Ticket's String and GoString hide it so it does
// not reach logs by accident.
//
// A KYC profile update always sends the profile back to review: the member's
// level drops from 1 to 0 until re-approval, and card issuing, remittances and
// high-value transfers stop in the meantime. The kyc.result.updated event does
// not say which way a review went; re-read with Get.
//
// GET /v1/kyc, GET /v1/kyc/quick and POST /v1/kyc/quick are named (or, for
// the last, implied by quick KYC bindings) without their shapes; the shapes
// here are inferred and each method says so.
package kyc

import mwallet "github.com/mwallet/mwallet-go"

// Client is the kyc client. mwclient.Client has one as its KYC
// field; it shares the root client's tokens, signing, idempotency keys and
// retries.
type Client struct {
	caller *mwallet.Client
}

// New returns a kyc client that sends its calls through c, the root
// client. mwclient.New builds one for its KYC field.
func New(c *mwallet.Client) *Client { return &Client{caller: c} }
