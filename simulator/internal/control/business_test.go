package control

import (
	"net/http"
	"testing"
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
