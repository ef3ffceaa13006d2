package remittance_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// ReviewedAt is a time.Time: set for a reviewed application, zero for an
// empty or null reviewed_at; anything else is an error, never a guess.
func TestVPApplicationReviewedAt(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	res, err := c.Remittances.QueryVPApplications(context.Background(), []string{member1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].Application == nil {
		t.Fatalf("items %+v", res.Items)
	}
	app := res.Items[0].Application
	if app.Status != "approved" || app.ReviewedAt.IsZero() || app.ReviewedAt.After(sim.Clock.Now()) {
		t.Fatalf("application %+v: want approved, reviewed at or before %s", app, sim.Clock.Now())
	}

	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name, body string
		want       remittance.VPApplication
		wantErr    bool
	}{
		{name: "reviewed", body: `{"id":"vpa_1","status":"approved","reviewed_at":"2026-01-02T03:04:05Z","created_at":"2026-01-02T03:04:05Z"}`,
			want: remittance.VPApplication{ID: "vpa_1", Status: "approved", ReviewedAt: created, CreatedAt: created}},
		{name: "empty", body: `{"id":"vpa_1","status":"pending_review","reviewed_at":"","created_at":"2026-01-02T03:04:05Z"}`,
			want: remittance.VPApplication{ID: "vpa_1", Status: "pending_review", CreatedAt: created}},
		{name: "null", body: `{"id":"vpa_1","reviewed_at":null}`, want: remittance.VPApplication{ID: "vpa_1"}},
		{name: "absent", body: `{"id":"vpa_1"}`, want: remittance.VPApplication{ID: "vpa_1"}},
		{name: "not a time", body: `{"id":"vpa_1","reviewed_at":"yesterday"}`, wantErr: true},
	}
	for _, tt := range tests {
		var got remittance.VPApplication
		err := json.Unmarshal([]byte(tt.body), &got)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, want error %v", tt.name, err, tt.wantErr)
			continue
		}
		if !tt.wantErr {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, diff)
			}
		}
	}
}
