package mwallet

import "context"

// Meta carries the Response of the call that returned a result. Every result
// type of the product packages embeds it, so result.Response reads directly;
// it is nil for the items of a list (their Page carries the Response).
// Client.Do sets it in any out value that embeds Meta, so your own result
// types for Do and Call can embed it too.
type Meta struct {
	// Response is the metadata of the HTTP exchange that returned the value:
	// status, request id, replay flag, idempotency key and attempts.
	Response *Response `json:"-"`
}

func (m *Meta) setResponse(r *Response) { m.Response = r }

// responseSetter is implemented by every type that embeds Meta.
type responseSetter interface{ setResponse(*Response) }

// Call sends req through c and decodes the 2xx JSON answer into a new T
// (through T's UnmarshalJSON when it has one, then its ReadAnswer when *T is
// an AnswerReader), with the Response set when T embeds Meta. An answer
// that cannot be read is an *AnswerError, which says the call ran. It is the body of every single-object method of the product
// packages; use it for endpoints the SDK has no typed method for:
//
//	type member struct {
//		mwallet.Meta
//		ID string `json:"id"`
//	}
//	m, err := mwallet.Call[member](ctx, client.Client, &mwallet.Request{Method: http.MethodGet, Path: "/v1/members/" + id})
func Call[T any](ctx context.Context, c *Client, req *Request, opts ...CallOption) (*T, error) {
	out := new(T)
	if _, err := c.Do(ctx, req, out, opts...); err != nil {
		return nil, err
	}
	return out, nil
}
