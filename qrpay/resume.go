package qrpay

import (
	"context"

	mwallet "github.com/mwallet/mwallet-go"
)

// ResumePay finishes a payment that a process left in the pending store
// (mwallet.WithPendingStore): it resends the recorded request with its
// idempotency key and exact body (mwallet.Client.Resume), and returns the
// order as Pay would, amounts at the asset's ledger_scale. The service
// replays the first result when the payment had executed
// (Order.Response.Replayed) and executes it once when it had not. p must be
// a record of Pay (p.Operation() is "qrpay.Pay"); any other is refused with
// a *mwallet.ParamError before anything is sent.
func (c *Client) ResumePay(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*Order, error) {
	return mwallet.ResumeAs[Order](ctx, c.caller, p, "qrpay.Pay", opts...)
}
