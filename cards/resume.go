package cards

import (
	"context"
	"encoding/json"
	"net/http"

	mwallet "github.com/mwallet/mwallet-go"
)

// Typed resumes of the card writes a process left in the pending store
// (mwallet.WithPendingStore): each resends the recorded request with its
// idempotency key and exact body (mwallet.Client.Resume) and returns what
// the method that made it returns. A record of another method is refused
// with a *mwallet.ParamError before anything is sent. Activate and SetPIN
// carry a PIN or CVV and are never recorded.

// ResumeApply finishes an Apply.
func (c *Client) ResumeApply(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*Application, error) {
	out, err := mwallet.ResumeAs[Application](ctx, c.caller, p, "cards.Apply", opts...)
	if err != nil {
		return nil, err
	}
	if out.ClientKey == "" {
		var body struct {
			ClientKey string `json:"client_key"`
		}
		_ = json.Unmarshal(p.Body, &body)
		out.ClientKey = body.ClientKey
	}
	out.Existing = out.Response != nil && out.Response.StatusCode == http.StatusOK
	return out, nil
}

// ResumeTopUp finishes a TopUp. As for TopUp, the answer is not a credit:
// card.topup.credited confirms it.
func (c *Client) ResumeTopUp(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*TopUp, error) {
	return mwallet.ResumeAs[TopUp](ctx, c.caller, p, "cards.TopUp", opts...)
}

// ResumeStatus finishes a Freeze, Unfreeze or Close.
func (c *Client) ResumeStatus(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*StatusResult, error) {
	op := p.Operation()
	switch op {
	case "cards.Freeze", "cards.Unfreeze", "cards.Close":
	default:
		op = "cards.Freeze, cards.Unfreeze or cards.Close"
	}
	return mwallet.ResumeAs[StatusResult](ctx, c.caller, p, op, opts...)
}

// ResumeReportLost finishes a ReportLost.
func (c *Client) ResumeReportLost(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*LostResult, error) {
	return mwallet.ResumeAs[LostResult](ctx, c.caller, p, "cards.ReportLost", opts...)
}

// ResumeReplace finishes a Replace.
func (c *Client) ResumeReplace(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*Replacement, error) {
	return mwallet.ResumeAs[Replacement](ctx, c.caller, p, "cards.Replace", opts...)
}
