package gateway

import (
	"net/netip"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Key is an API key of the merchant as the checks of the caller read it
// (the simulator keeps its own record and converts it).
type Key struct {
	ClientID          string
	APIKey            string
	SigningKey        string
	Scopes            kernel.List[string] // requested scopes (known keys only), sorted
	Approved          kernel.List[string] // restricted scopes approved by the operator, sorted
	Disabled          bool
	SignatureRequired bool
	IPAllowlist       kernel.List[string] // empty: any address on sandbox keys, none on production keys
	// IPAllowlistSet says the allowlist was set (to empty, too).
	IPAllowlistSet bool
	Env            string
	ValidUntil     time.Time // zero: no limit; the key stops working exactly then
}

// Production is the environment whose keys refuse every address their
// allowlist does not name.
const Production = "production"

// Usable reports whether the key may be used at now.
func (k Key) Usable(now time.Time) bool {
	return !k.Disabled && (k.ValidUntil.IsZero() || now.Before(k.ValidUntil))
}

// IPAllowed applies the key's allowlist (IPAllowed).
func (k Key) IPAllowed(ip netip.Addr) bool {
	return IPAllowed(k.IPAllowlist, k.Env == Production, ip)
}

// Grants are the key's scopes under the scope rules (Scopes).
func (k Key) Grants() Scopes { return Scopes{Granted: k.Scopes, Approved: k.Approved} }

// Allows reports whether the key may call an endpoint needing scope: write
// on a resource includes read of the same resource.
func (k Key) Allows(scope string) bool { return k.Grants().Allows(scope) }

// EffectiveScopes lists the effective scopes, sorted.
func (k Key) EffectiveScopes() []string { return k.Grants().List() }

// Token is an issued access token.
type Token struct {
	Value     string
	ClientID  string
	Env       string
	ExpiresAt time.Time
}
