package deposits

import (
	"context"

	mwallet "github.com/mwallet/mwallet-go"
)

// ResumeCreate finishes a Create that a process left in the pending store
// (mwallet.WithPendingStore): it resends the recorded request with its
// idempotency key and exact body (mwallet.Client.Resume) and returns the
// deposit as Create would. A record of another method is refused with a
// *mwallet.ParamError before anything is sent.
func (c *Client) ResumeCreate(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*Deposit, error) {
	return mwallet.ResumeAs[Deposit](ctx, c.caller, p, "deposits.Create", opts...)
}
