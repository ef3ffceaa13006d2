package mwallet

import (
	"context"
	"fmt"
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

// readItems lets each item that is an AnswerReader finish reading itself.
func (p *Page[T]) readItems(ctx context.Context, c *Client) error {
	for i := range p.Data {
		if r, ok := any(&p.Data[i]).(AnswerReader); ok {
			if err := r.ReadAnswer(ctx, c); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
	}
	return nil
}

// Pages walks the pages of a list endpoint through c, newest first,
// starting after p.Cursor (from the newest item when it is empty), and
// yields each page with its items, NextCursor, HasMore and Response. It
// stops after the page whose HasMore is false (never because a page is
// short), when the loop stops, or at the first error, which it yields once
// with a nil page. req.Query is copied, not modified.
//
// Pages is what makes a listing resumable: stop after any page, keep its
// NextCursor, and a later walk with ListParams{Cursor: saved} yields exactly
// the items after that page, none repeated and none lost. Cursors are
// opaque and keyset based (newest first), so items created in between do
// not shift the walk; they are newer and appear only in a walk from the
// start.
//
//	for page, err := range client.Remittances.ListPages(ctx, member, mwallet.ListParams{Limit: 50, Cursor: saved}) {
//		if err != nil {
//			return err
//		}
//		process(page.Data)
//		saved = page.NextCursor // store it; "" once the list is done
//	}
func Pages[T any](ctx context.Context, c *Client, req Request, p ListParams, opts ...CallOption) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
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
			page, err := Call[Page[T]](ctx, c, &r, opts...)
			if err != nil {
				yield(nil, err)
				return
			}
			next := strings.TrimSpace(page.NextCursor)
			if !page.HasMore || next == "" {
				page.HasMore, page.NextCursor = false, ""
				yield(page, nil)
				return
			}
			if !yield(page, nil) {
				return
			}
			if seen[next] {
				yield(nil, &Error{Code: CodeAPIError, Type: "api_error", Message: "the service repeated a cursor; stopping to avoid a loop"})
				return
			}
			seen[next] = true
			cursor = page.NextCursor
		}
	}
}

// Items yields the items of pages one by one, newest first. It stops when
// pages ends, when the loop stops, or at the first error, which it yields
// once. Every item iterator of the product packages is Items over its Pages
// companion.
func Items[T any](pages iter.Seq2[*Page[T], error]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for page, err := range pages {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range page.Data {
				if !yield(item, nil) {
					return
				}
			}
		}
	}
}

// Iterate walks every item of a list endpoint through c, newest first:
// Items over Pages. It stops when has_more is false, when the loop stops, or
// at the first error, which it yields once. Use it for list endpoints the
// SDK has no typed method for; to stop and resume later, walk Pages instead.
func Iterate[T any](ctx context.Context, c *Client, req Request, p ListParams, opts ...CallOption) iter.Seq2[T, error] {
	return Items(Pages[T](ctx, c, req, p, opts...))
}

// Collect gathers the items of a list into a slice: every item, or the
// first error and no items. It is meant for the bounded lists, which the
// service answers in one page (cards.Client.Products, qrpay.Client.Schemes,
// remittance.Client.Products, remittance.Client.ConversionDates):
//
//	products, err := mwallet.Collect(client.Cards.Products(ctx))
//
// On a paged list it walks every page before returning; walk the iterator
// (or its Pages companion) instead when the list can be long.
func Collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}
