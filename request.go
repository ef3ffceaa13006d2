package mwallet

import (
	"net/http"
	"net/url"

	"github.com/mwallet/mwallet-go/money"
)

// Request describes one endpoint call: method, escaped path, query, member
// context, body and whether the call is idempotent. The product packages
// describe each of their calls with one; use it yourself with Client.Do,
// Call, Iterate or Pages for endpoints the SDK has no typed method for:
//
//	var out map[string]any
//	resp, err := client.Do(ctx, &mwallet.Request{
//		Method: http.MethodGet, Path: "/v1/qrpay/orders/" + url.PathEscape(id),
//		MemberScoped: true, Member: member,
//	}, &out)
type Request struct {
	// Method is the HTTP method, for example http.MethodPost.
	Method string
	// Path is the escaped path beginning with /v1, for example "/v1/qrpay/payments".
	// Build path segments with url.PathEscape.
	Path string
	// Query is sent as the query string (encoded in sorted key order).
	Query url.Values
	// MemberScoped marks endpoints that need x-on-behalf-of. Member must then
	// be a non-blank identifier; a blank one is rejected with a *ParamError
	// of code member_context_required before anything is sent.
	MemberScoped bool
	// Member is the member identifier: an external_member_id or mem_<uuid>.
	Member string
	// Body is JSON-encoded once per logical call (the same bytes are sent and
	// signed on every retry). A json.RawMessage is sent byte for byte. nil
	// sends no body.
	Body any
	// Idempotent marks creating writes that carry x-idempotency-key. The key
	// is generated once per logical call unless the caller supplies one with
	// WithIdempotencyKey, and reused on every retry.
	Idempotent bool
	// Sensitive marks a body that carries secrets (card PIN, CVV). The
	// client never copies such a body out of the call (no pending-request
	// record).
	Sensitive bool
	// Amounts names the asset amounts of Body, so that the client checks
	// each against its asset's ledger_scale before sending (see
	// AssetAmount). The product packages fill it; it is not sent.
	Amounts []AssetAmount
	// AcceptedStatus lists extra 2xx statuses the endpoint documents; any 2xx
	// is a success anyway. It exists for documentation only.
	AcceptedStatus []int
	// Invalid is the error of input the code that builds the Request has
	// refused (every method of the product packages checks its parameters
	// this way), nil when the input is valid. The call then sends nothing
	// and returns it as a *ParamError (Invalid itself when it is one, or
	// one that wraps it) that carries the call's idempotency key when the
	// call has one, like every other error of a keyed write
	// (IdempotencyKeyOf). Method, Path and Body are not checked then, so
	// they may be left incomplete:
	//
	//	body, err := p.body() // a *mwallet.ParamError for a bad p
	//	return mwallet.Call[Deposit](ctx, client, &mwallet.Request{
	//		Method: http.MethodPost, Path: "/v1/deposits", MemberScoped: true,
	//		Member: member, Body: body, Idempotent: true, Invalid: err,
	//	}, opts...)
	Invalid error
}

// AssetAmount is one amount of a request body in an asset of the catalogue,
// for Request.Amounts.
//
// The rule is the service's: an amount is fixed-point at the asset's
// ledger_scale; fewer decimals, and extra decimals that are all zero, are
// accepted ("2.50000000" for USDT, ledger_scale 6, is credited 2.5); an
// extra non-zero decimal ("1.0000001") is refused, never rounded. The
// client refuses that last case before sending, with a *ParamError whose
// Code is the one the service would answer (Code, or invalid_request) and
// which wraps money.ErrPrecision. The amount is sent as given, never
// rescaled.
//
// The decision does not depend on earlier calls: an amount with a non-zero
// decimal needs the asset's ledger_scale, so the client loads the asset
// catalogue (GET /v1/assets, once per client; concurrent callers share the
// load) when it is not cached yet. A whole amount needs no look-up. When
// the catalogue cannot be read (a Key without merchant:read) or does not
// list Asset, or Asset is empty, the amount is sent and the service
// decides, with the same answer.
type AssetAmount struct {
	// Param names the amount in errors, for example "Amount" or "FirstTopUp".
	Param string
	// Asset is the asset code the amount is in; empty when the service
	// chooses the asset.
	Asset string
	// Amount is the amount as it will be sent.
	Amount money.Amount
	// Code is the code the endpoint answers for an amount with too many
	// decimals; invalid_request when empty.
	Code Code
}

// Response is the metadata of the HTTP exchange behind a result: status,
// request id, replay flag, idempotency key and attempts. Results of the
// product packages carry it in their Response field.
type Response struct {
	// StatusCode is the HTTP status of the final attempt.
	StatusCode int
	// RequestID is the X-Request-Id of the final attempt; quote it to support.
	RequestID string
	// Replayed is true when the server answered with X-Idempotent-Replay: true,
	// meaning the result is the stored result of an earlier identical request.
	Replayed bool
	// IdempotencyKey is the x-idempotency-key sent (empty when none was needed).
	IdempotencyKey string
	// Attempts is the number of HTTP attempts the call took (1 when no retry).
	Attempts int
	// Header holds the response headers of the final attempt.
	Header http.Header
}
