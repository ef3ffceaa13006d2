package gateway

import (
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestKey: a key is usable until it is disabled or reaches ValidUntil, its
// allowlist is empty-means-any only outside production, and its scopes
// follow the scope rules (approved restricted scopes only).
func TestKey(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ip := netip.MustParseAddr("10.0.0.1")
	k := Key{Scopes: kernel.ListOf("cards:secure", "cards:write", "deposits:write"), Approved: kernel.ListOf("cards:secure")}
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"usable", k.Usable(now), true},
		{"disabled", Key{Disabled: true}.Usable(now), false},
		{"before ValidUntil", Key{ValidUntil: now.Add(time.Second)}.Usable(now), true},
		{"at ValidUntil", Key{ValidUntil: now}.Usable(now), false},
		{"sandbox, no allowlist", Key{Env: "sandbox"}.IPAllowed(ip), true},
		{"production, no allowlist", Key{Env: Production}.IPAllowed(ip), false},
		{"production, listed", Key{Env: Production, IPAllowlist: kernel.ListOf("10.0.0.0/8")}.IPAllowed(ip), true},
		{"write gives read", k.Allows("cards:read"), true},
		{"approved restricted", k.Allows("cards:secure"), true},
		{"unapproved restricted", k.Allows("deposits:write"), false},
		{"not granted", k.Allows("members:read"), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if diff := cmp.Diff([]string{"cards:secure", "cards:write"}, k.EffectiveScopes()); diff != "" {
		t.Errorf("effective scopes (-want +got):\n%s", diff)
	}
}
