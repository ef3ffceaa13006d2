package api

import (
	"net/url"
	"testing"
	"time"
)

// fuzzItems is a list sorted ascending by PageKey, with equal times (ties
// broken by creation sequence) as the lists of the product lines have.
func fuzzItems() []PageKey {
	var items []PageKey
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 45; i++ {
		k := PageKey{At: base.Add(time.Duration(i/3) * time.Second), Seq: int64(10 + i)}
		items = InsertByKey(items, k, func(k PageKey) PageKey { return k })
	}
	return items
}

// FuzzCursor feeds arbitrary cursors and limits to the list pagination.
// decodeCursor never panics; an encoded key decodes to itself; a page
// never holds more than the limit, is newest first, and holds only items
// older than the cursor's key; and walking on with next_cursor from any
// first page visits every remaining item exactly once, in order.
func FuzzCursor(f *testing.F) {
	items := fuzzItems()
	ident := func(k PageKey) PageKey { return k }
	f.Add("", "", int64(0), int64(1))
	f.Add(EncodeCursor(items[10]), "5", int64(1), int64(-1))
	f.Add(EncodeCursor(items[11]), "1", int64(1), int64(0))
	f.Add("!!!", "0", int64(-1), int64(0))
	f.Add("MTc2NzIyNTYwMDAwMDAwMDAwMHw", "101", int64(1<<62), int64(1<<62))
	f.Add(EncodeCursor(PageKey{At: time.Unix(0, -5), Seq: 20}), "-3", int64(-1<<63), int64(20))
	f.Add("MTc2NzIyNTYwMDAwMDAwMDAwMA", "abc", int64(0), int64(-1<<63))
	f.Fuzz(func(t *testing.T, cursor, limit string, nanos, seq int64) {
		k := PageKey{At: time.Unix(0, nanos).UTC(), Seq: seq}
		if got, ok := decodeCursor(EncodeCursor(k)); !ok || !got.At.Equal(k.At) || got.Seq != k.Seq {
			t.Fatalf("cursor of %+v decodes to %+v, %v", k, got, ok)
		}
		key, hasKey := decodeCursor(cursor)
		q := url.Values{"cursor": {cursor}, "limit": {limit}}
		max := PageLimit(q)
		if max < 1 || max > 100 {
			t.Fatalf("limit %q gives %d", limit, max)
		}
		seen := map[int64]bool{}
		var prev *PageKey
		for pages := 0; ; pages++ {
			if pages > len(items)+1 {
				t.Fatal("pagination does not end")
			}
			env := Paginate(items, ident, q)
			page := env.Data.([]PageKey)
			if len(page) > max {
				t.Fatalf("page of %d items, limit %d", len(page), max)
			}
			for i := range page {
				k := page[i]
				if hasKey && !k.Before(key) {
					t.Fatalf("item %+v is not older than the cursor key %+v", k, key)
				}
				if prev != nil && !k.Before(*prev) {
					t.Fatalf("item %+v follows %+v: not newest first", k, *prev)
				}
				if seen[k.Seq] {
					t.Fatalf("item %d returned twice", k.Seq)
				}
				seen[k.Seq] = true
				prev = &page[i]
			}
			if env.HasMore != (env.NextCursor != nil) {
				t.Fatalf("has_more %v with next_cursor %v", env.HasMore, env.NextCursor)
			}
			if !env.HasMore {
				break
			}
			if len(page) == 0 {
				t.Fatal("an empty page says has_more")
			}
			q.Set("cursor", *env.NextCursor)
		}
		// Every item older than the cursor key (all, without one) was seen.
		for _, k := range items {
			if (!hasKey || k.Before(key)) != seen[k.Seq] {
				t.Fatalf("item %+v seen=%v (cursor key %+v, %v)", k, seen[k.Seq], key, hasKey)
			}
		}
	})
}
