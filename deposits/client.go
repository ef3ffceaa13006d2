// Package deposits declares deposits into member balances and reads them
// back. Only platform_hosted (platform-operated) merchants may declare
// deposits; merchant_hosted merchants get insufficient_scope even with the
// deposits:write scope.
//
// # The reference is the deposit's identity
//
// Every deposit carries the merchant's stable business reference. The service
// protects it permanently: posting a reference again, under any idempotency
// key and at any later time, credits nothing and answers 200 with
// Deposit.Replayed true and the values stored by the first posting (amount and
// chain fields included). Derive the reference from your own record (for
// example the on-chain transaction and output index) and never generate a new
// one for a retry: a regenerated reference is a second deposit.
//
// The idempotency key (24 hours) is generated once per Create call and reused
// on that call's retries; the reference covers everything beyond that.
//
// POST /v1/deposits is always signed; the root client signs every write.
//
// The read endpoints (GET /v1/deposits and GET /v1/deposits/{id}) are named by
// the specification without their shapes; they are taken to answer the
// Deposit resource and its list envelope, merchant-scoped.
package deposits

import mwallet "github.com/mwallet/mwallet-go"

// Client is the deposits client. mwclient.Client has one as its Deposits
// field; it shares the root client's tokens, signing, idempotency keys and
// retries.
type Client struct {
	caller *mwallet.Client
}

// New returns a deposits client that sends its calls through c, the root
// client. mwclient.New builds one for its Deposits field.
func New(c *mwallet.Client) *Client { return &Client{caller: c} }
