package simulator_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestPaginationEnvelope checks the list envelope over raw HTTP on
// GET /v1/webhooks/deliveries with over 100 rows: limit defaults to 20 and is
// capped at 100, an undecodable cursor restarts from the first page, and
// following next_cursor visits every row once, newest first, until has_more
// is false with next_cursor null.
func TestPaginationEnvelope(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	const rows = 105
	for i := range rows {
		// No endpoint subscribes: one no_subscriber row per event.
		if _, err := sim.Events.Emit("card.status.updated", "card", fmt.Sprintf("c%d", i), simulator.DefaultMemberExternalID, "active", int64(i+1)); err != nil {
			t.Fatalf("EmitEvent: %v", err)
		}
	}
	// The fixture may already have recorded rows of its own.
	all := sim.Webhooks.Deliveries()
	if len(all) < rows {
		t.Fatalf("%d delivery rows, want at least %d", len(all), rows)
	}
	tok := c.token()
	page := func(t *testing.T, query string) (ids []string, next any, more bool) {
		t.Helper()
		r := c.get(tok, "/v1/webhooks/deliveries"+query, "")
		wantStatus(t, r, http.StatusOK)
		data, ok := r.body["data"].([]any)
		if !ok {
			t.Fatalf("no data array: %s", r)
		}
		for _, d := range data {
			ids = append(ids, d.(map[string]any)["id"].(string))
		}
		more, ok = r.body["has_more"].(bool)
		if !ok {
			t.Fatalf("no has_more: %s", r)
		}
		next, ok = r.body["next_cursor"]
		if !ok {
			t.Fatalf("no next_cursor: %s", r)
		}
		return ids, next, more
	}
	first, _, _ := page(t, "")

	tests := []struct {
		name     string
		query    string
		wantLen  int
		wantMore bool
		sameAs   []string // the page must equal this one
	}{
		{"default limit", "", 20, true, nil},
		{"explicit limit", "?limit=7", 7, true, nil},
		{"limit over the maximum", "?limit=1000", 100, true, nil},
		{"undecodable cursor restarts", "?cursor=not-a-cursor", 20, true, first},
		{"invalid limit falls back", "?limit=abc", 20, true, first},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, next, more := page(t, tt.query)
			if len(ids) != tt.wantLen || more != tt.wantMore {
				t.Errorf("%d items, has_more %v; want %d, %v", len(ids), more, tt.wantLen, tt.wantMore)
			}
			if s, _ := next.(string); more && s == "" {
				t.Errorf("has_more true with next_cursor %v", next)
			}
			if tt.sameAs != nil && fmt.Sprint(ids) != fmt.Sprint(tt.sameAs) {
				t.Errorf("page = %v, want the first page %v", ids, tt.sameAs)
			}
		})
	}

	t.Run("walk", func(t *testing.T) {
		seen := map[string]bool{}
		var order []string
		query := "?limit=40"
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatal("pagination does not end")
			}
			ids, next, more := page(t, query)
			for _, id := range ids {
				if seen[id] {
					t.Errorf("row %s returned twice", id)
				}
				seen[id] = true
			}
			order = append(order, ids...)
			if !more {
				if next != nil {
					t.Errorf("last page next_cursor = %v, want null", next)
				}
				break
			}
			query = "?limit=40&cursor=" + next.(string)
		}
		if len(order) != len(all) {
			t.Fatalf("walked %d rows, want %d", len(order), len(all))
		}
		// WebhookDeliveries is in creation order: the list is its reverse
		// (newest first, rows of the same instant by creation sequence).
		created := map[string]int{}
		for i, d := range all {
			created[d.ID] = i
		}
		for i := 1; i < len(order); i++ {
			if created[order[i-1]] <= created[order[i]] {
				t.Fatalf("rows %s and %s out of newest-first order", order[i-1], order[i])
			}
		}
	})
}
