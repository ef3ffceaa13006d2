package simulator

import (
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// The token exchange and the checks of the caller (token, API key, merchant,
// scope, signature, write quota, x-on-behalf-of) are internal/exchange's
// (token.go, auth.go), over the keys and tokens the exchange's Host
// (internal/gatewayhost) looks up as internal/gateway's Key and Token
// (keyTableOf in admin.go, tokenTable in gateway_host.go).

// key is the Key as the checks of the caller read it (internal/gateway's
// Key).
func (k apiKey) key() pipeline.Key {
	return pipeline.Key{
		ClientID: k.ClientID, APIKey: k.APIKey, SigningKey: k.SigningKey, Scopes: k.Scopes, Approved: k.Approved,
		Disabled: k.Disabled, SignatureRequired: k.SignatureRequired, IPAllowlist: k.IPAllowlist, IPAllowlistSet: k.IPAllowlistSet,
		Env: string(k.Env), ValidUntil: k.ValidUntil,
	}
}

// apiKeyOf is the Key k as the state keeps it.
func apiKeyOf(k pipeline.Key) apiKey {
	return apiKey{
		ClientID: k.ClientID, APIKey: k.APIKey, SigningKey: k.SigningKey, Scopes: k.Scopes, Approved: k.Approved,
		Disabled: k.Disabled, SignatureRequired: k.SignatureRequired, IPAllowlist: k.IPAllowlist, IPAllowlistSet: k.IPAllowlistSet,
		Env: Environment(k.Env), ValidUntil: k.ValidUntil,
	}
}
