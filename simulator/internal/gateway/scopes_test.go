package gateway

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

func TestScopes(t *testing.T) {
	t.Parallel()
	s := Scopes{
		Granted:  kernel.ListOf("cards:secure", "cards:write", "deposits:write", "qrpay:write"),
		Approved: kernel.ListOf("cards:secure"),
	}
	tests := []struct {
		scope string
		want  bool
	}{
		{"cards:write", true},
		{"cards:read", true}, // write includes read
		{"qrpay:read", true},
		{"cards:secure", true},    // restricted, approved
		{"deposits:write", false}, // restricted, not approved
		{"deposits:read", false},  // nor does it imply read
		{"members:read", false},
		{"merchant:read", false},
	}
	for _, tt := range tests {
		if got := s.Allows(tt.scope); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v", tt.scope, got, tt.want)
		}
	}
	if diff := cmp.Diff([]string{"cards:secure", "cards:write", "qrpay:write"}, s.List()); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestIPAllowed(t *testing.T) {
	t.Parallel()
	v4, v6 := netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("2001:db8::1")
	tests := []struct {
		name       string
		list       kernel.List[string]
		production bool
		ip         netip.Addr
		want       bool
	}{
		{"empty list, sandbox", kernel.List[string]{}, false, v4, true},
		{"empty list, production", kernel.List[string]{}, true, v4, false},
		{"entry trimmed", kernel.ListOf(" 10.1.* "), true, v4, true},
		{"no entry matches", kernel.ListOf("10.2.*", "10.1.2.4"), false, v4, false},
		{"IPv6 never", kernel.ListOf("10.1.*"), false, v6, false},
	}
	for _, tt := range tests {
		if got := IPAllowed(tt.list, tt.production, tt.ip); got != tt.want {
			t.Errorf("%s: IPAllowed = %v, want %v", tt.name, got, tt.want)
		}
	}
}
