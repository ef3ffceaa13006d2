package api

import (
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPaginateMatchingEqualsPaginateOfFiltered checks that paginating with a
// filter gives exactly what paginating the filtered list gives: the same
// items, has_more and next_cursor, for every cursor, limit and filter.
func TestPaginateMatchingEqualsPaginateOfFiltered(t *testing.T) {
	t.Parallel()
	ident := func(k PageKey) PageKey { return k }
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var items []PageKey
	for i := 0; i < 60; i++ {
		// Three items per second, so ties are broken by creation sequence.
		items = InsertByKey(items, PageKey{At: base.Add(time.Duration(i/3) * time.Second), Seq: int64(100 + i)}, ident)
	}
	filters := []struct {
		name  string
		match func(PageKey) bool
	}{
		{"all", func(PageKey) bool { return true }},
		{"none", func(PageKey) bool { return false }},
		{"every third", func(k PageKey) bool { return k.Seq%3 == 0 }},
		{"oldest ten", func(k PageKey) bool { return k.Seq < 110 }},
		{"newest five", func(k PageKey) bool { return k.Seq >= 155 }},
	}
	cursors := []string{"", "not-a-cursor", EncodeCursor(PageKey{At: base.Add(time.Hour), Seq: 1 << 40}), EncodeCursor(PageKey{At: base.Add(-time.Hour), Seq: -1})}
	for _, it := range items {
		cursors = append(cursors, EncodeCursor(it))
	}
	for _, f := range filters {
		var filtered []PageKey
		for _, it := range items {
			if f.match(it) {
				filtered = append(filtered, it)
			}
		}
		for _, limit := range []string{"", "1", "2", "7", "20", "100", "0", "x"} {
			for _, c := range cursors {
				q := url.Values{"limit": {limit}, "cursor": {c}}
				want := Paginate(filtered, ident, q)
				got := PaginateMatching(items, ident, q, f.match)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s, limit %q, cursor %q: (-paginate of filtered +PaginateMatching):\n%s", f.name, limit, c, diff)
				}
				at := func(i int) (PageKey, PageKey) { return items[i], items[i] }
				if diff := cmp.Diff(want, PaginatePositions(len(items), at, q, f.match)); diff != "" {
					t.Fatalf("%s, limit %q, cursor %q: (-paginate of filtered +PaginatePositions):\n%s", f.name, limit, c, diff)
				}
				if len(filtered) == len(items) {
					if diff := cmp.Diff(want, PaginatePositions(len(items), at, q, nil)); diff != "" {
						t.Fatalf("limit %q, cursor %q: (-paginate +PaginatePositions without a filter):\n%s", limit, c, diff)
					}
				}
			}
		}
	}
}
