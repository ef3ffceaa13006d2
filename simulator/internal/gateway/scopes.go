package gateway

import (
	"net/netip"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// RestrictedScopes count only once the operator has approved them.
var RestrictedScopes = map[string]bool{"deposits:write": true, "cards:secure": true}

// Scopes are an API key's scopes: those granted and, of the restricted
// ones, those the operator approved (each a sorted list).
type Scopes struct{ Granted, Approved kernel.List[string] }

// has reports whether the sorted list holds v.
func has(list kernel.List[string], v string) bool {
	return list.Index(func(x string) bool { return x == v }) >= 0
}

// Effective reports whether scope is granted and, when restricted, approved.
func (s Scopes) Effective(scope string) bool {
	return has(s.Granted, scope) && (!RestrictedScopes[scope] || has(s.Approved, scope))
}

// Allows reports whether the key may call an endpoint needing scope: write
// on a resource includes read of the same resource.
func (s Scopes) Allows(scope string) bool {
	if s.Effective(scope) {
		return true
	}
	if res, ok := strings.CutSuffix(scope, ":read"); ok {
		return s.Effective(res + ":write")
	}
	return false
}

// List lists the effective scopes, sorted.
func (s Scopes) List() []string {
	out := make([]string, 0, s.Granted.Len())
	for sc := range s.Granted.Values() {
		if s.Effective(sc) {
			out = append(out, sc)
		}
	}
	sort.Strings(out)
	return out
}

// IPAllowed applies an API key's IP allowlist to ip. An empty list admits
// everyone on a sandbox key and no one on a production key; an entry
// admits as AllowEntryMatches says, after trimming.
func IPAllowed(allowlist kernel.List[string], production bool, ip netip.Addr) bool {
	if allowlist.Len() == 0 {
		return !production
	}
	if !ip.Is4() {
		return false
	}
	for e := range allowlist.Values() {
		if AllowEntryMatches(strings.TrimSpace(e), ip) {
			return true
		}
	}
	return false
}
