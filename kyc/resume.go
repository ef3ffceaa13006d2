package kyc

import (
	"context"

	mwallet "github.com/mwallet/mwallet-go"
)

// ResumeProfileSession finishes a ProfileSession that a process left in the
// pending store (mwallet.WithPendingStore): it resends the recorded request
// with its idempotency key (mwallet.Client.Resume) and returns the ticket as
// ProfileSession would. A record of another method is refused with a
// *mwallet.ParamError before anything is sent.
func (c *Client) ResumeProfileSession(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*Ticket, error) {
	return mwallet.ResumeAs[Ticket](ctx, c.caller, p, "kyc.ProfileSession", opts...)
}

// ResumeCreateQuickBinding finishes a CreateQuickBinding, as
// ResumeProfileSession does a ProfileSession.
func (c *Client) ResumeCreateQuickBinding(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*QuickBinding, error) {
	return mwallet.ResumeAs[QuickBinding](ctx, c.caller, p, "kyc.CreateQuickBinding", opts...)
}
