package control

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// TestBusinessPath: served paths, named paths and prefixes of either are
// business paths; anything else, or a path with control characters or not
// in its canonical form, is not.
func TestBusinessPath(t *testing.T) {
	patterns := func() []string { return []string{"/v1/assets", "/v1/cards/{id}/ship"} }
	served := func(r *http.Request) bool { return r.URL.Path == "/v1/assets" || r.URL.Path == "/v1/cards/c1/ship" }
	tests := []struct {
		p    string
		want bool
	}{
		{"/v1/assets", true},
		{"/v1/cards/c1/ship", true},
		{"/v1/members", true},
		{"/v1/merchant/anything", true},
		{"/v1/withdrawals/w1", true},
		{"/v1/assets*", true},
		{"/v1/cards/c9*", true},
		{"/v1/ca*", true},
		{"/v1/earn*", true},
		{"/*", true},
		{"/v1/deposit", false},
		{"/v2/assets", false},
		{"v1/assets", false},
		{"/v2*", false},
		{"v1*", false},
		{"/v1/assets\n", false},
		{"/v1/a/../assets", false},
	}
	for _, tt := range tests {
		if got := BusinessPath(tt.p, patterns, served); got != tt.want {
			t.Errorf("BusinessPath(%q) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

// TestBusinessEndpoint: a write an endpoint serves passes; any other
// method and path is refused with every write of the endpoints, sorted.
func TestBusinessEndpoint(t *testing.T) {
	endpoints := []api.Endpoint{
		{Method: "POST", Pattern: "/v1/members"},
		{Method: "GET", Pattern: "/v1/members"},
		{Method: "POST", Pattern: "/v1/cards/{id}/ship", Routes: []string{"/v1/cards/{id}/ship", "/v1/cards/{id}/ship"}},
	}
	allowed := func(r *http.Request) []string {
		if r.URL.Path == "/v1/members" {
			return []string{"GET", "POST"}
		}
		return nil
	}
	valid := []string{"POST /v1/cards/{id}/ship", "POST /v1/members"}
	tests := []struct {
		method, target string
		want           *Refusal
	}{
		{method: " post", target: "/v1/members?x=1"},
		{method: "PUT", target: "/v1/members?x=1",
			want: &Refusal{Kind: "business endpoint", Name: "PUT /v1/members", Valid: valid, Field: "method and path"}},
		{method: "POST", target: "/v1/nowhere",
			want: &Refusal{Kind: "business endpoint", Name: "POST /v1/nowhere", Valid: valid, Field: "method and path"}},
	}
	for _, tt := range tests {
		got := BusinessEndpoint(tt.method, tt.target, endpoints, allowed)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("BusinessEndpoint(%q, %q) (-want +got):\n%s", tt.method, tt.target, diff)
		}
	}
}

// TestWithIDPrefix: an id with or without its prefix names the same
// object; the empty id stays empty.
func TestWithIDPrefix(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ id, want string }{
		{"", ""}, {"  ", ""}, {"abc", "rmt_abc"}, {" rmt_abc ", "rmt_abc"}, {"whe_abc", "rmt_whe_abc"},
	} {
		if got := WithIDPrefix("rmt_", tt.id); got != tt.want {
			t.Errorf("WithIDPrefix(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}
