package api

import (
	"cmp"
	"encoding/base64"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Lists are newest first, deterministically: by the list's time field
// (created_at; occurred_at for card transactions), and among items of the
// same instant by creation sequence, the one created later first. Ids are
// random and never order anything. The creation sequence (nextSeq) is one
// counter for every listed object of a simulator.

// PageKey orders list items: by At, then by Seq (creation sequence).
type PageKey struct {
	At  time.Time
	Seq int64
}

func (k PageKey) Before(o PageKey) bool {
	if !k.At.Equal(o.At) {
		return k.At.Before(o.At)
	}
	return k.Seq < o.Seq
}

// PageLimit reads the limit query parameter: default 20, at most 100; an
// invalid or non-positive value falls back to 20.
func PageLimit(q url.Values) int {
	v := strings.TrimSpace(q.Get("limit"))
	if v == "" {
		return 20
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 20
	}
	if n > 100 {
		return 100
	}
	return n
}

// EncodeCursor is the next_cursor of a page that ends at k.
func EncodeCursor(k PageKey) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(k.At.UnixNano(), 10) + "|" + strconv.FormatInt(k.Seq, 10)))
}

// decodeCursor returns the key after which the next page starts; ok is false
// for an undecodable cursor, which restarts from the first page.
func decodeCursor(c string) (PageKey, bool) {
	if c == "" {
		return PageKey{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return PageKey{}, false
	}
	ts, seq, found := strings.Cut(string(b), "|")
	if !found {
		return PageKey{}, false
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return PageKey{}, false
	}
	q, err := strconv.ParseInt(seq, 10, 64)
	if err != nil {
		return PageKey{}, false
	}
	return PageKey{At: time.Unix(0, n).UTC(), Seq: q}, true
}

// ListEnvelope is the {data, next_cursor, has_more} envelope.
type ListEnvelope struct {
	Data       any     `json:"data"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// Paginate returns one page, newest first, of items sorted oldest first by
// key (ascending). It is keyset based: finding the cursor is a binary search,
// so page k costs the same as page 1.
func Paginate[T any](items []T, key func(T) PageKey, q url.Values) ListEnvelope {
	limit := PageLimit(q)
	end := len(items) // exclusive upper bound in ascending order
	if k, ok := decodeCursor(q.Get("cursor")); ok {
		end = sort.Search(len(items), func(i int) bool { return !key(items[i]).Before(k) })
	}
	start := end - limit
	if start < 0 {
		start = 0
	}
	page := make([]T, 0, end-start)
	for i := end - 1; i >= start; i-- {
		page = append(page, items[i])
	}
	env := ListEnvelope{Data: page, HasMore: start > 0}
	if env.HasMore {
		c := EncodeCursor(key(items[start]))
		env.NextCursor = &c
	}
	return env
}

// InsertByKey inserts item into items kept sorted ascending by key and returns
// the slice. Appending in clock order is the common case and costs O(1).
func InsertByKey[T any](items []T, item T, key func(T) PageKey) []T {
	k := key(item)
	if n := len(items); n == 0 || key(items[n-1]).Before(k) {
		return append(items, item)
	}
	i := sort.Search(len(items), func(i int) bool { return !key(items[i]).Before(k) })
	var zero T
	items = append(items, zero)
	copy(items[i+1:], items[i:])
	items[i] = item
	return items
}

// PaginateMatching is Paginate over the items for which match reports true,
// without building the filtered list: it walks back from the cursor, stops
// once the page is full and one more match (has_more) is found, so a page
// costs the items it visits, not the length of the list. The answer is the
// one Paginate gives for the filtered list.
func PaginateMatching[T any](items []T, key func(T) PageKey, q url.Values, match func(T) bool) ListEnvelope {
	limit := PageLimit(q)
	end := len(items)
	if k, ok := decodeCursor(q.Get("cursor")); ok {
		end = sort.Search(len(items), func(i int) bool { return !key(items[i]).Before(k) })
	}
	page := make([]T, 0, min(limit, end))
	i := end - 1
	for ; i >= 0 && len(page) < limit; i-- {
		if match(items[i]) {
			page = append(page, items[i])
		}
	}
	env := ListEnvelope{Data: page}
	for ; i >= 0 && !env.HasMore; i-- {
		env.HasMore = match(items[i])
	}
	if env.HasMore {
		c := EncodeCursor(key(page[len(page)-1]))
		env.NextCursor = &c
	}
	return env
}

// ComparePageKey orders page keys as lists do, oldest first: -1, 0 or +1.
func ComparePageKey(a, b PageKey) int {
	switch {
	case a.Before(b):
		return -1
	case b.Before(a):
		return 1
	}
	return 0
}

// PaginateIndex is Paginate over the rows of a table's index by page key:
// the list is the index itself, read by position, so a page costs its
// length and a binary search, not a copy of the list.
func PaginateIndex[K cmp.Ordered, V any](tx *kernel.Tx, x *kernel.Index[K, V, PageKey], q url.Values) ListEnvelope {
	return PaginateIndexMatching(tx, x, q, nil)
}

// PaginateIndexMatching is PaginateMatching over the rows of a table's
// index by page key (match nil: every row).
func PaginateIndexMatching[K cmp.Ordered, V any](tx *kernel.Tx, x *kernel.Index[K, V, PageKey], q url.Values, match func(V) bool) ListEnvelope {
	return PaginatePositions(x.Len(tx), func(i int) (PageKey, V) {
		ik, _, v := x.At(tx, i)
		return ik, v
	}, q, match)
}

// PaginatePositions is PaginateMatching over n items sorted oldest first by
// page key, read by position (at), so that a page costs the items it
// visits: a table's index, or a run of it (one member's, one card's).
// match nil takes every item.
func PaginatePositions[V any](n int, at func(i int) (PageKey, V), q url.Values, match func(V) bool) ListEnvelope {
	limit := PageLimit(q)
	end := n
	if k, ok := decodeCursor(q.Get("cursor")); ok {
		end = sort.Search(n, func(i int) bool { ik, _ := at(i); return !ik.Before(k) })
	}
	page := make([]V, 0, min(limit, end))
	var last PageKey
	i := end - 1
	for ; i >= 0 && len(page) < limit; i-- {
		if ik, v := at(i); match == nil || match(v) {
			page = append(page, v)
			last = ik
		}
	}
	env := ListEnvelope{Data: page}
	for ; i >= 0 && !env.HasMore; i-- {
		_, v := at(i)
		env.HasMore = match == nil || match(v)
	}
	if env.HasMore {
		c := EncodeCursor(last)
		env.NextCursor = &c
	}
	return env
}
