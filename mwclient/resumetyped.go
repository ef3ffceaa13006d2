package mwclient

import (
	"context"
	"encoding/json"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
)

// Resumed is the typed result of ResumeTyped: Operation names the SDK
// method that made the request, and the field of that method's result is
// set. A request the SDK has no typed result for leaves its body in Raw.
type Resumed struct {
	// Operation is the SDK method, for example "qrpay.Pay"
	// (mwallet.PendingRequest.Operation).
	Operation string
	// Response is the HTTP exchange; Response.Replayed is true when the
	// request had executed before and the service replayed its result.
	Response *mwallet.Response

	QRPayment       *qrpay.Order             // qrpay.Pay
	Deposit         *deposits.Deposit        // deposits.Create
	CardApplication *cards.Application       // cards.Apply
	CardTopUp       *cards.TopUp             // cards.TopUp
	CardStatus      *cards.StatusResult      // cards.Freeze, cards.Unfreeze, cards.Close
	CardLost        *cards.LostResult        // cards.ReportLost
	CardReplacement *cards.Replacement       // cards.Replace
	Remittance      *remittance.CreateResult // remittance.Create
	Payee           *remittance.Payee        // remittance.CreatePayee
	KYCTicket       *kyc.Ticket              // kyc.ProfileSession
	QuickBinding    *kyc.QuickBinding        // kyc.CreateQuickBinding
	// Raw is the answer's body for any other request.
	Raw json.RawMessage
}

// ResumeTyped finishes a request that a process left in the pending store
// (mwallet.WithPendingStore) and returns its result typed as the method
// that made it returns it: the product packages' Resume methods
// (qrpay.Client.ResumePay, cards.Client.ResumeTopUp, ...) chosen by
// p.Operation(). At start-up:
//
//	pending, err := client.PendingRequests(ctx)
//	for _, p := range pending {
//		res, err := client.ResumeTyped(ctx, p)
//		switch {
//		case err != nil: // see mwallet.PendingTable: a kept record is resumed again later
//		case res.QRPayment != nil: // update the order of res.QRPayment.ID
//		...
//		}
//	}
func (c *Client) ResumeTyped(ctx context.Context, p mwallet.PendingRequest, opts ...mwallet.CallOption) (*Resumed, error) {
	r := &Resumed{Operation: p.Operation()}
	var err error
	var meta mwallet.Meta
	switch r.Operation {
	case "qrpay.Pay":
		r.QRPayment, err = c.QRPay.ResumePay(ctx, p, opts...)
		meta = metaOf(r.QRPayment, func(v *qrpay.Order) mwallet.Meta { return v.Meta })
	case "deposits.Create":
		r.Deposit, err = c.Deposits.ResumeCreate(ctx, p, opts...)
		meta = metaOf(r.Deposit, func(v *deposits.Deposit) mwallet.Meta { return v.Meta })
	case "cards.Apply":
		r.CardApplication, err = c.Cards.ResumeApply(ctx, p, opts...)
		meta = metaOf(r.CardApplication, func(v *cards.Application) mwallet.Meta { return v.Meta })
	case "cards.TopUp":
		r.CardTopUp, err = c.Cards.ResumeTopUp(ctx, p, opts...)
		meta = metaOf(r.CardTopUp, func(v *cards.TopUp) mwallet.Meta { return v.Meta })
	case "cards.Freeze", "cards.Unfreeze", "cards.Close":
		r.CardStatus, err = c.Cards.ResumeStatus(ctx, p, opts...)
		meta = metaOf(r.CardStatus, func(v *cards.StatusResult) mwallet.Meta { return v.Meta })
	case "cards.ReportLost":
		r.CardLost, err = c.Cards.ResumeReportLost(ctx, p, opts...)
		meta = metaOf(r.CardLost, func(v *cards.LostResult) mwallet.Meta { return v.Meta })
	case "cards.Replace":
		r.CardReplacement, err = c.Cards.ResumeReplace(ctx, p, opts...)
		meta = metaOf(r.CardReplacement, func(v *cards.Replacement) mwallet.Meta { return v.Meta })
	case "remittance.Create":
		r.Remittance, err = c.Remittances.ResumeCreate(ctx, p, opts...)
		meta = metaOf(r.Remittance, func(v *remittance.CreateResult) mwallet.Meta { return v.Meta })
	case "remittance.CreatePayee":
		r.Payee, err = c.Remittances.ResumeCreatePayee(ctx, p, opts...)
		meta = metaOf(r.Payee, func(v *remittance.Payee) mwallet.Meta { return v.Meta })
	case "kyc.ProfileSession":
		r.KYCTicket, err = c.KYC.ResumeProfileSession(ctx, p, opts...)
		meta = metaOf(r.KYCTicket, func(v *kyc.Ticket) mwallet.Meta { return v.Meta })
	case "kyc.CreateQuickBinding":
		r.QuickBinding, err = c.KYC.ResumeCreateQuickBinding(ctx, p, opts...)
		meta = metaOf(r.QuickBinding, func(v *kyc.QuickBinding) mwallet.Meta { return v.Meta })
	default:
		r.Response, err = c.Resume(ctx, p, &r.Raw, opts...)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	r.Response = meta.Response
	return r, nil
}

func metaOf[T any](v *T, get func(*T) mwallet.Meta) mwallet.Meta {
	if v == nil {
		return mwallet.Meta{}
	}
	return get(v)
}
