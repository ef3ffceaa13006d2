package mwallet

import (
	"context"
	"iter"

	"github.com/mwallet/mwallet-go/internal/api"
)

// Request describes one endpoint call for Client.Do: method, escaped path,
// query, member context, body and whether the call is idempotent. Use it
// for endpoints the SDK has no typed method for:
//
//	var out map[string]any
//	resp, err := client.Do(ctx, &mwallet.Request{
//		Method: http.MethodGet, Path: "/v1/qrpay/orders/" + url.PathEscape(id),
//		MemberScoped: true, Member: member,
//	}, &out)
type Request = api.Request

// Page is the list envelope {data, next_cursor, has_more}.
type Page[T any] = api.Page[T]

// Iterate walks every page of a list endpoint through c, newest first, and
// yields each item; it stops when has_more is false, when the loop stops, or
// at the first error, which it yields once. Use it for list endpoints the SDK
// has no typed method for.
func Iterate[T any](ctx context.Context, c *Client, req Request, p ListParams, opts ...CallOption) iter.Seq2[T, error] {
	return api.Iterate[T](ctx, c, req, p, opts...)
}
