package startup

import (
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// FixtureKey is the Key a simulator starts with, of the credentials
// clientID, apiKey and signingKey in environment env: writes signed and,
// in production, an IP allowlist of loopback only (a production Key needs
// a non-empty allowlist; the embedded server listens on loopback). Its
// scopes are granted once every endpoint is registered (Catalog).
func FixtureKey(clientID, apiKey, signingKey, env string) gateway.Key {
	k := gateway.Key{ClientID: clientID, APIKey: apiKey, SigningKey: signingKey, SignatureRequired: true, Env: env}
	if env == Production {
		k.IPAllowlist, k.IPAllowlistSet = kernel.ListOf("127.0.0.1"), true
	}
	return k
}
