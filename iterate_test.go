package mwallet

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIterateFollowsHasMore(t *testing.T) {
	t.Parallel()
	// Page 1 is short but has_more is true; page 2 is full-size but has_more
	// is false: the walk must follow has_more, not page sizes.
	pages := map[string]map[string]any{
		"":   {"data": []string{"a"}, "next_cursor": "c1", "has_more": true},
		"c1": {"data": []string{"b", "c"}, "next_cursor": "c2", "has_more": false},
		"c2": {"data": []string{"never"}, "next_cursor": nil, "has_more": false},
	}
	f := newFakeAPI(t)
	var limits []string
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		limits = append(limits, r.URL.Query().Get("limit"))
		if r.URL.Query().Get("status") != "pending" {
			t.Errorf("filter lost: %s", r.URL.RawQuery)
		}
		writeTestJSON(w, 200, pages[r.URL.Query().Get("cursor")])
	}
	c := f.client()
	req := Request{Method: http.MethodGet, Path: "/v1/remittances", Query: map[string][]string{"status": {"pending"}}}
	var got []string
	for item, err := range Iterate[string](context.Background(), c, req, ListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, item)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"2", "2"}, limits); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
}

func TestIterateCapsLimitAndStopsOnError(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		if got := r.URL.Query().Get("limit"); got != "100" {
			t.Errorf("limit = %s, want capped at 100", got)
		}
		if n == 1 {
			writeTestJSON(w, 200, map[string]any{"data": []int{1}, "next_cursor": "x", "has_more": true})
			return
		}
		writeTestJSON(w, 403, errBody("insufficient_scope"))
	}
	c := f.client()
	var items, errs int
	for _, err := range Iterate[int](context.Background(), c, Request{Method: http.MethodGet, Path: "/v1/x"}, ListParams{Limit: 1000}) {
		if err != nil {
			errs++
			if CodeOf(err) != CodeInsufficientScope {
				t.Errorf("err = %v", err)
			}
			continue
		}
		items++
	}
	if items != 1 || errs != 1 {
		t.Errorf("items %d errors %d; want 1 and 1", items, errs)
	}
}

func TestPagesCarryCursorAndResponse(t *testing.T) {
	t.Parallel()
	pages := map[string]map[string]any{
		"":   {"data": []string{"a", "b"}, "next_cursor": "c1", "has_more": true},
		"c1": {"data": []string{"c"}, "next_cursor": "ignored", "has_more": false},
	}
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		w.Header().Set("X-Request-Id", "req_"+r.URL.Query().Get("cursor"))
		writeTestJSON(w, 200, pages[r.URL.Query().Get("cursor")])
	}
	c := f.client()
	type view struct {
		Data    []string
		Next    string
		HasMore bool
		Request string
	}
	var got []view
	for p, err := range Pages[string](context.Background(), c, Request{Method: http.MethodGet, Path: "/v1/x"}, ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, view{p.Data, p.NextCursor, p.HasMore, p.Response.RequestID})
	}
	want := []view{{[]string{"a", "b"}, "c1", true, "req_"}, {[]string{"c"}, "", false, "req_c1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	// Resuming from the first page's cursor starts after it.
	var rest []string
	for item, err := range Iterate[string](context.Background(), c, Request{Method: http.MethodGet, Path: "/v1/x"}, ListParams{Cursor: "c1"}) {
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, item)
	}
	if diff := cmp.Diff([]string{"c"}, rest); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
}

func TestPagesStopOnARepeatedCursor(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		writeTestJSON(w, 200, map[string]any{"data": []int{n}, "next_cursor": "same", "has_more": true})
	}
	var pages, errs int
	for p, err := range Pages[int](context.Background(), f.client(), Request{Method: http.MethodGet, Path: "/v1/x"}, ListParams{}) {
		if err != nil {
			errs++
			if p != nil || CodeOf(err) != CodeAPIError {
				t.Errorf("page %v, err %v", p, err)
			}
			continue
		}
		pages++
	}
	if pages != 2 || errs != 1 {
		t.Errorf("%d pages and %d errors; want 2 pages, then the loop error once", pages, errs)
	}
}
