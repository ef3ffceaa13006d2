// Package qrpay pays fiat QR codes (PromptPay, PayNow, QRIS, KHQR, DuitNow
// and other EMVCo merchant-presented codes) with a member's digital assets.
//
// Get the client from mwclient.Client (client.QRPay) or with New. The flow is:
//
//  1. Decode the scanned text, unmodified, to show the payee, the fiat amount
//     and whether the payer must type the amount (Decoded.AmountEditable).
//  2. Quote it to show what the member pays in each asset. Quotes are
//     indicative; reusing the same member, code, currency and amount within
//     60 seconds returns the same upstream order, and a member may quote at
//     most 30 times per 60 seconds (rate_limited with RetryDelay).
//  3. Pay it. Every payment needs strong authentication: the first call fails
//     with step_up_required; send the end user to the hosted screen, then
//     resend the same parameters with the same idempotency key and the
//     challenge id. mwallet.AsStepUp and StepUp.Options make that one line.
//  4. Wait for the outcome. A 201 does not mean paid: the order is usually
//     processing. Wait for the qrpay.order.* webhook or poll with
//     WaitForOutcome.
//
// # Money
//
// Asset amounts are money.Amount values parsed with the ledger_scale sent in
// the same item (fee_amount with fee_ledger_scale); the payment order carries
// no ledger_scale, so its amounts are parsed at the asset's ledger_scale from
// the client's cached asset catalogue (see Order.LedgerScale). A response
// amount with more non-zero decimals than its scale is reported as an error,
// never rounded: an *mwallet.AnswerError, which for Pay says the payment
// executed and carries its idempotency key (never pay it again with a new
// key). Fiat amounts of the acquiring side (acquirer_amount, the decoded
// amount and range) stay decimal strings next to their ISO 4217 alphabetic
// currency in a Fiat: they are texts of the upstream, never computed with.
//
// # Funding
//
// FundingSource is sent exactly as set; the zero value omits the field,
// which platform_hosted accounts read as mwallet.FundingMember. merchant_hosted
// accounts must set mwallet.FundingMerchant on every quote and payment, or the
// service answers invalid_fields on funding_source with nothing debited.
// Merchant-funded quotes and orders carry a MerchantFee: when its asset is
// the debit asset the fee is already inside CustomerTotal; otherwise Fee is
// zero and the fee is debited in addition, in its own asset.
//
// # What this package does not do
//
// There is no cancel or refund method because the service has no such
// endpoint: a processing order cannot be called back, and refunds start at
// the upstream and arrive as qrpay.order.refunded (the order's status becomes
// StatusRefunded and the funds return to the available balance).
//
// # Classic mistakes
//
//   - Treating 201 as paid. Check Order.Status; StatusProcessing means the
//     outcome is unknown.
//   - Treating processing as failed, unlocking funds in your own books, or
//     paying again with a new idempotency key while the first order is
//     processing: that can pay twice. Wait for the outcome instead.
//   - Retrying after step_up_required with a new idempotency key: the resend
//     must carry the same key (mwallet.StepUp.Options does it).
//   - Reusing a key after a business failure (a 500 api_error such as an
//     insufficient balance or a limit): the same key replays the failure; fix
//     the cause and pay with a new key.
//   - Parsing amounts with display_scale or as float64.
//   - Trimming or re-encoding the scanned text: send it exactly as scanned.
package qrpay

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"

	mwallet "github.com/mwallet/mwallet-go"
)

// Client is the qrpay client. mwclient.Client has one as its QRPay
// field; it shares the root client's tokens, signing, idempotency keys and
// retries.
type Client struct {
	caller *mwallet.Client
}

// New returns a qrpay client that sends its calls through c, the root
// client. mwclient.New builds one for its QRPay field.
func New(c *mwallet.Client) *Client { return &Client{caller: c} }

// DecodeParams are the parameters of Decode.
type DecodeParams struct {
	// CodeValue is the raw scanned text, unmodified (required).
	CodeValue string
}

// Decode decodes a scanned QR code for member (POST /v1/qrpay/decode, scope
// qrpay:write). It
// creates no order and holds nothing, so it takes no idempotency key.
// Undecodable codes, unsupported standards and codes the upstream rejects all
// give qr_code_invalid.
func (c *Client) Decode(ctx context.Context, member string, p DecodeParams, opts ...mwallet.CallOption) (*Decoded, error) {
	if p.CodeValue == "" {
		return nil, &mwallet.ParamError{Param: "code_value", Reason: "the scanned text is required", Code: mwallet.CodeInvalidRequest}
	}
	return mwallet.Call[Decoded](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/qrpay/decode", MemberScoped: true, Member: member,
		Body: map[string]string{"code_value": p.CodeValue},
	}, opts...)
}

// QuoteParams are the parameters of Quote.
type QuoteParams struct {
	// CodeValue is the raw scanned text; it must equal the value later paid.
	CodeValue string
	// FundingSource is sent as set; empty omits it (see the package doc).
	FundingSource mwallet.FundingSource
	// Currency and Amount are the acquiring-side fiat for custom-amount codes
	// only (Decoded.AmountEditable); they are refused for fixed-amount codes.
	// Amount is a decimal string such as "150.00".
	Currency string
	Amount   string
	// PreferredAsset selects the debit asset; empty lets the member's payment
	// priority (or, merchant-funded, USDT) decide.
	PreferredAsset string
	// Payer is accepted but codes with required payer fields cannot be quoted.
	Payer *Payer
}

// Quote prices a code for member (POST /v1/qrpay/quotes, scope qrpay:write). It creates a
// pending-payment order at the upstream and holds no funds; it takes no
// idempotency key. The result is indicative: Pay re-quotes.
func (c *Client) Quote(ctx context.Context, member string, p QuoteParams, opts ...mwallet.CallOption) (*Quote, error) {
	body, err := requestBody(p.CodeValue, p.FundingSource, p.Currency, p.Amount, p.PreferredAsset, p.Payer)
	if err != nil {
		return nil, err
	}
	return mwallet.Call[Quote](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/qrpay/quotes", MemberScoped: true, Member: member, Body: body,
	}, opts...)
}

// PayParams are the parameters of Pay: the same fields as QuoteParams.
type PayParams struct {
	// CodeValue is the raw scanned text, the same value that was quoted.
	CodeValue string
	// FundingSource is sent as set; empty omits it (see the package doc).
	FundingSource mwallet.FundingSource
	// Currency and Amount are for custom-amount codes only; they are
	// forwarded upstream, which rejects mismatches.
	Currency string
	Amount   string
	// PreferredAsset is the asset to debit. An asset without a current
	// upstream quote is rejected, never replaced by another.
	PreferredAsset string
	// Payer is required, with exactly the keys of
	// Decoded.RequiredPayerFields, when that list is not empty.
	Payer *Payer
}

// Pay pays a code for member (POST /v1/qrpay/payments, scope qrpay:write): the service
// re-quotes, holds the funds, then notifies the upstream. It is an
// idempotent write: the idempotency key is generated once and reused on
// retries, or taken from mwallet.WithIdempotencyKey.
//
// The first call of every payment fails with step_up_required;
// mwallet.AsStepUp reads the challenge, and the resend is
//
//	su, _ := mwallet.AsStepUp(err) // after the end user finished su.HostedURL
//	order, err = client.QRPay.Pay(ctx, member, params, su.Options()...)
//
// The returned order is usually StatusProcessing: the outcome is unknown
// until the upstream answers (see WaitForOutcome). Business failures the
// service currently reports as 500 api_error (insufficient balance, limits,
// KYC threshold, no quote for PreferredAsset, ...) replay with the same key;
// retry them with a new key after fixing the cause.
func (c *Client) Pay(ctx context.Context, member string, p PayParams, opts ...mwallet.CallOption) (*Order, error) {
	body, err := requestBody(p.CodeValue, p.FundingSource, p.Currency, p.Amount, p.PreferredAsset, p.Payer)
	return mwallet.Call[Order](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/qrpay/payments", MemberScoped: true, Member: member,
		Body: body, Idempotent: true, AcceptedStatus: []int{http.StatusCreated}, Invalid: err,
	}, opts...)
}

// Order reads a QR payment order of member (GET /v1/qrpay/orders/{id}, scope
// qrpay:write). id
// is accepted with or without its qrp_ prefix, so the data.id of a
// qrpay_order event can be passed as is.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields. It is read as the payment order of
// POST /v1/qrpay/payments.
func (c *Client) Order(ctx context.Context, member, id string, opts ...mwallet.CallOption) (*Order, error) {
	rid, err := orderPathID(id)
	if err != nil {
		return nil, err
	}
	return mwallet.Call[Order](ctx, c.caller, &mwallet.Request{
		Method: http.MethodGet, Path: "/v1/qrpay/orders/" + url.PathEscape(rid), MemberScoped: true, Member: member,
	}, opts...)
}

// Schemes iterates over the QR schemes the service accepts
// (GET /v1/qrpay/schemes, scope qrpay:write). It is a bounded catalogue
// list: the service answers it in one page (next_cursor null, has_more false), so it takes no
// paging parameters; the iterator still follows has_more should the service
// ever page it.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields. Items are read as scheme, name, country and
// currency; fields that are absent stay empty.
func (c *Client) Schemes(ctx context.Context, opts ...mwallet.CallOption) iter.Seq2[Scheme, error] {
	return mwallet.Iterate[Scheme](ctx, c.caller, mwallet.Request{Method: http.MethodGet, Path: "/v1/qrpay/schemes"}, mwallet.ListParams{}, opts...)
}

// OrderID returns the REST id (qrp_<id>) of an order id given with or
// without its prefix, such as the data.id of a qrpay_order event; surrounding
// spaces are dropped and an empty id stays empty. It only converts: Order
// and WaitForOutcome check the id and refuse a malformed one with a
// *mwallet.ParamError before anything is sent. remittance.OrderID and
// cards.CardID have the same shape.
func OrderID(id string) string {
	id = strings.TrimSpace(id)
	if id == "" || strings.HasPrefix(id, "qrp_") {
		return id
	}
	return "qrp_" + id
}

// orderPathID checks an order id given to a method and returns it with its
// qrp_ prefix.
func orderPathID(id string) (string, error) {
	if strings.TrimSpace(id) != id || id == "" || id == "qrp_" {
		return "", &mwallet.ParamError{Param: "id", Reason: "an order id (qrp_<id> or the bare id) without spaces is required", Code: mwallet.CodeNotFound}
	}
	if strings.ContainsAny(id, "/?#") {
		return "", &mwallet.ParamError{Param: "id", Reason: "an order id may not contain '/', '?' or '#'", Code: mwallet.CodeNotFound}
	}
	return OrderID(id), nil
}

// requestBody validates and builds the body shared by quotes and payments.
// It sends exactly what the caller set: nothing is defaulted or replaced.
func requestBody(code string, fs mwallet.FundingSource, currency, amount, preferred string, payer *Payer) (map[string]any, error) {
	if code == "" {
		return nil, &mwallet.ParamError{Param: "code_value", Reason: "the scanned text is required", Code: mwallet.CodeInvalidRequest}
	}
	body := map[string]any{"code_value": code}
	if fs != "" {
		body["funding_source"] = string(fs)
	}
	if currency != "" {
		if !isCurrencyCode(currency) {
			return nil, &mwallet.ParamError{Param: "currency", Reason: fmt.Sprintf("%q is not an ISO 4217 alphabetic code such as THB", currency), Code: mwallet.CodeInvalidFields}
		}
		body["currency"] = currency
	}
	if amount != "" {
		if !isPlainDecimal(amount) {
			return nil, &mwallet.ParamError{Param: "amount", Reason: fmt.Sprintf("%q is not a plain positive decimal string such as 150.00", amount), Code: mwallet.CodeInvalidRequest}
		}
		body["amount"] = amount
	}
	if preferred != "" {
		if strings.TrimSpace(preferred) != preferred {
			return nil, &mwallet.ParamError{Param: "preferred_asset", Reason: "asset code with surrounding spaces", Code: mwallet.CodeInvalidFields}
		}
		body["preferred_asset"] = preferred
	}
	if payer != nil {
		body["payer"] = payer
	}
	return body, nil
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// isPlainDecimal reports digits with an optional fraction, not all zero.
func isPlainDecimal(s string) bool {
	ip, fp, dot := strings.Cut(s, ".")
	if ip == "" || (dot && fp == "") {
		return false
	}
	nonZero := false
	for _, part := range []string{ip, fp} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
			if part[i] != '0' {
				nonZero = true
			}
		}
	}
	return nonZero
}
