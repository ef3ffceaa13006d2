// Package mwclient wires the product lines of the Merchant Wallet, Card,
// Remittance and QR-Payment service into one client:
//
//	client, err := mwclient.New("https://api.example.com", mwallet.Credentials{
//		ClientID:   os.Getenv("MWALLET_CLIENT_ID"),
//		APIKey:     mwallet.Secret(os.Getenv("MWALLET_API_KEY")),
//		SigningKey: mwallet.Secret(os.Getenv("MWALLET_SIGNING_KEY")),
//	}, mwallet.WithLogger(logger))
//
//	client.QRPay        // pay fiat QR codes in digital assets   (package qrpay)
//	client.Cards        // card products, applications, cards    (package cards)
//	client.Remittances  // remittances to saved payees           (package remittance)
//	client.Deposits     // deposits into member balances         (package deposits)
//	client.KYC          // hosted KYC screens and KYC state      (package kyc)
//	client.Members      // members                               (package members)
//	client.Webhooks     // webhook deliveries                    (package webhooks)
//
// The Client embeds the root *mwallet.Client, the transport every product
// line shares (tokens, signing, idempotency keys, retries, error decoding),
// so its methods read directly: client.Assets(ctx), client.ParseAmount,
// client.Do(ctx, req, &out). The call vocabulary (errors, codes, call
// options, list parameters) is in package mwallet.
//
// A program that uses one product line only can skip this package and build
// that line's client from a root client: qrpay.New(c) with c from
// mwallet.New.
package mwclient

import (
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/members"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Client is the root client with one typed client per product line. It is
// safe for concurrent use; create one per set of credentials and share it.
// It prints like the root client, without credentials.
type Client struct {
	// Client is the shared transport: Assets, ParseAmount, Do, Resume and
	// the other root methods are promoted from it.
	*mwallet.Client

	// QRPay pays fiat QR codes in digital assets.
	QRPay *qrpay.Client
	// Cards manages card products, applications and cards.
	Cards *cards.Client
	// Remittances orders remittances to saved payees.
	Remittances *remittance.Client
	// Deposits declares deposits into member balances.
	Deposits *deposits.Client
	// KYC issues hosted KYC screens and reads KYC state.
	KYC *kyc.Client
	// Members reads members.
	Members *members.Client
	// Webhooks reads and redelivers webhook deliveries.
	Webhooks *webhooks.Deliveries
}

// New returns a Client for baseURL (the environment is chosen by the
// address) with the given credentials and options; see mwallet.New, which
// it calls. It checks the address and the credentials and sends
// nothing; the first call obtains the access token. Invalid arguments give a
// *mwallet.ParamError.
func New(baseURL string, creds mwallet.Credentials, opts ...mwallet.Option) (*Client, error) {
	c, err := mwallet.New(baseURL, creds, opts...)
	if err != nil {
		return nil, err
	}
	return &Client{
		Client:      c,
		QRPay:       qrpay.New(c),
		Cards:       cards.New(c),
		Remittances: remittance.New(c),
		Deposits:    deposits.New(c),
		KYC:         kyc.New(c),
		Members:     members.New(c),
		Webhooks:    webhooks.NewDeliveries(c),
	}, nil
}
