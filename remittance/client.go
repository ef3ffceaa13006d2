// Package remittance orders remittances to saved payees and reads them back.
//
// A remittance is priced in the recipient's currency: the caller says how much
// the payee receives (payout_amount, in the payee's currency at exactly that
// currency's precision) and the service debits the member (or, for
// merchant_hosted accounts, the merchant prepaid account) in a digital asset.
// The debit is held as locked_amount = customer_total × (1 + slippage_bps/10000)
// and settled when the upstream pays out; the excess over the real cost is
// returned.
//
// # Choices this package makes where the specification is silent
//
//   - The payout currency is not a request field (the payee's corridor decides
//     it), but the SDK needs it to check payout_amount before anything is
//     sent. CreateParams.PayoutCurrency is therefore required and never sent.
//     Take it from Payee.Currency. The SDK does not look the payee up itself,
//     so a call never makes a hidden extra request.
//   - payout_amount must have exactly the currency's ISO 4217 minor units
//     ("10.00" GBP, "1000" JPY, "1.250" BHD). NormalizePayout turns "10.5" into
//     "10.50" without rounding.
//   - The specification names 23 purpose codes but shows only three
//     (FAMILY_SUPPORT, GOODS_PURCHASED, EDUCATION_TRAINING). The other twenty
//     constants of PurposeCode are this package's own list, matched by the
//     bundled simulator; the SDK checks only the shape of a purpose code and
//     leaves membership and per-line permission to the service, so a code the
//     real service knows is never blocked locally.
//   - An unknown line is rejected locally: the service would silently fall
//     back to express, which is rarely what a typo meant.
//   - Payees, remittance quotes, products, conversion dates and the
//     single-order read are named by the specification without their shapes;
//     those shapes are inferred and each method says so.
//
// # Completion
//
// Decide completion by Status (Order.IsCompleted), never by payout_date:
// payout_date is the upstream's value date, set at dispatch, and says nothing
// about whether the payee has received the money. Merge snapshots and events
// by status_version only, forward only (Merge, Order.ApplyEvent).
package remittance

import mwallet "github.com/mwallet/mwallet-go"

// Client is the remittance client. mwclient.Client has one as its Remittances
// field; it shares the root client's tokens, signing, idempotency keys and
// retries.
type Client struct {
	caller *mwallet.Client
}

// New returns a remittance client that sends its calls through c, the root
// client. mwclient.New builds one for its Remittances field.
func New(c *mwallet.Client) *Client { return &Client{caller: c} }
