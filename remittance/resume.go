package remittance

import (
	"context"

	mwallet "github.com/mwallet/mwallet-go"
)

// ResumeCreate finishes a Create that a process left in the pending store
// (mwallet.WithPendingStore): it resends the recorded request with its
// idempotency key and exact body (mwallet.Client.Resume) and returns the
// result as Create would (Duplicated and no Quote when the service replays
// an order it had made). A record of another method is refused with a
// *mwallet.ParamError before anything is sent.
func (c *Client) ResumeCreate(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*CreateResult, error) {
	out, err := mwallet.ResumeAs[CreateResult](ctx, c.caller, p, "remittance.Create", opts...)
	if err != nil {
		return nil, err
	}
	if out.Duplicated {
		out.Quote = nil
	}
	return out, nil
}

// ResumeCreatePayee finishes a CreatePayee, as ResumeCreate does a Create.
func (c *Client) ResumeCreatePayee(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*Payee, error) {
	return mwallet.ResumeAs[Payee](ctx, c.caller, p, "remittance.CreatePayee", opts...)
}
