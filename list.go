package mwallet

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"strings"
)

// MaxPageLimit is the largest page size the service accepts.
const MaxPageLimit = 100

// ListParams are the pagination parameters of list methods: Limit (0 means
// the service default of 20; at most 100) and Cursor (a previous next_cursor;
// empty starts from the newest). The iterators walk every page themselves,
// so the zero value is the usual argument:
//
//	for p, err := range client.Remittances.Payees(ctx, member, mwallet.ListParams{}) { ... }
type ListParams struct {
	// Limit is the page size: 0 means the service default (20); values over
	// 100 are capped at 100.
	Limit int
	// Cursor starts from a previous next_cursor; empty starts from the newest.
	Cursor string
}

// apply writes limit and cursor into q.
func (p ListParams) apply(q url.Values) {
	if p.Limit > 0 {
		l := p.Limit
		if l > MaxPageLimit {
			l = MaxPageLimit
		}
		q.Set("limit", strconv.Itoa(l))
	}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
}

// Page is one page of a list: the envelope {data, next_cursor, has_more}
// and the Response of the call that read it.
type Page[T any] struct {
	Meta
	// Data holds the page's items, newest first.
	Data []T `json:"data"`
	// NextCursor is the cursor of the next page ("" when there is none).
	// Pass it as ListParams.Cursor to resume the list after this page.
	NextCursor string `json:"next_cursor"`
	// HasMore is true when another page follows; a list ends only when it
	// is false, never because a page is short.
	HasMore bool `json:"has_more"`
}

// Iterate walks every page of a list endpoint through c, newest first, and
// yields each item; it stops when has_more is false (never because a page is
// short), when the loop stops, or at the first error, which it yields once.
// req.Query is copied, not modified. Use it for list endpoints the SDK has no
// typed method for.
func Iterate[T any](ctx context.Context, c *Client, req Request, p ListParams, opts ...CallOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := p.Cursor
		seen := map[string]bool{}
		for {
			q := url.Values{}
			for k, v := range req.Query {
				q[k] = append([]string(nil), v...)
			}
			ListParams{Limit: p.Limit, Cursor: cursor}.apply(q)
			r := req
			r.Query = q
			var page Page[T]
			if _, err := c.Do(ctx, &r, &page, opts...); err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range page.Data {
				if !yield(item, nil) {
					return
				}
			}
			if !page.HasMore || strings.TrimSpace(page.NextCursor) == "" {
				return
			}
			next := page.NextCursor
			if seen[next] {
				var zero T
				yield(zero, &Error{Code: CodeAPIError, Type: "api_error", Message: "the service repeated a cursor; stopping to avoid a loop"})
				return
			}
			seen[next] = true
			cursor = next
		}
	}
}
