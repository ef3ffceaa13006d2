package merchant

import (
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// KeyTable is the table of the merchant's API keys the keyring reads and
// writes, each as the checks of the caller read it (internal/gateway's
// Key); the simulator keeps its own record of a key and converts it.
type KeyTable interface {
	Has(tx *kernel.Tx, clientID string) bool
	Get(tx *kernel.Tx, clientID string) (gateway.Key, bool)
	Put(tx *kernel.Tx, clientID string, k gateway.Key)
}

// Keyring creates and changes the merchant's API keys (the control API's
// side; the gateway reads them to authenticate): the keys of Keys, a new
// one in the environment of Merchant, its scopes those of the scope
// catalogue Scopes.
type Keyring struct {
	Keys     KeyTable
	Merchant *Line
	Scopes   map[string]bool
}

// Add creates a key; empty values are drawn from the seeded ids, in the
// order client id, API key, signing key. A client id already taken is
// refused with duplicate_resource.
func (r Keyring) Add(tx *kernel.Tx, clientID, apiKey, signingKey string, ks KeySettingsIn) (gateway.Key, error) {
	clientID = strings.TrimSpace(clientID)
	if clientID == "" {
		clientID = "sim_client_" + tx.NewUUID()[:8]
	}
	if r.Keys.Has(tx, clientID) {
		return gateway.Key{}, api.NewErr("duplicate_resource", fmt.Sprintf("key %q already exists", clientID))
	}
	if apiKey == "" {
		apiKey = "sim_api_key_" + strings.ReplaceAll(tx.NewUUID(), "-", "")
	}
	if signingKey == "" {
		signingKey = "sim_signing_key_" + strings.ReplaceAll(tx.NewUUID(), "-", "")
	}
	k := gateway.Key{
		ClientID: clientID, APIKey: apiKey, SigningKey: signingKey,
		SignatureRequired: true, Env: r.Merchant.Env(tx),
	}
	if err := r.apply(&k, ks); err != nil {
		return gateway.Key{}, err
	}
	r.Keys.Put(tx, clientID, k)
	return k, nil
}

// Set changes the key of clientID; an unknown one is not_found.
func (r Keyring) Set(tx *kernel.Tx, clientID string, ks KeySettingsIn) error {
	k, ok := r.Keys.Get(tx, clientID)
	if !ok {
		return api.NotFound("key")
	}
	if err := r.apply(&k, ks); err != nil {
		return err
	}
	r.Keys.Put(tx, clientID, k)
	return nil
}

// apply applies ks to k: scopes outside the scope catalogue are dropped.
func (r Keyring) apply(k *gateway.Key, ks KeySettingsIn) error {
	switch ks.Environment {
	case "", Sandbox, Production:
	default:
		return api.InvalidRequest(fmt.Sprintf("environment %q: want sandbox or production", ks.Environment))
	}
	if ks.Scopes != nil {
		scopes := map[string]bool{}
		for _, sc := range ks.Scopes {
			sc = strings.TrimSpace(sc)
			if r.Scopes[sc] {
				scopes[sc] = true
			}
		}
		k.Scopes = kernel.SortedSet(scopes)
	}
	if ks.ApproveRestricted != nil {
		k.Approved = kernel.List[string]{}
		if *ks.ApproveRestricted {
			k.Approved = kernel.SortedSet(gateway.RestrictedScopes)
		}
	}
	if ks.Disabled != nil {
		k.Disabled = *ks.Disabled
	}
	if ks.SignatureRequired != nil {
		k.SignatureRequired = *ks.SignatureRequired
	}
	if ks.IPAllowlist != nil {
		k.IPAllowlist, k.IPAllowlistSet = kernel.ListOf(ks.IPAllowlist...), true
	}
	if ks.Environment != "" {
		k.Env = ks.Environment
	}
	if ks.ValidUntil != nil {
		k.ValidUntil = ks.ValidUntil.UTC()
	}
	return nil
}

// KeyJSON is the control API's document of key k; its secrets only when
// withSecrets (on creation).
func KeyJSON(k gateway.Key, withSecrets bool) map[string]any {
	requested := append([]string{}, k.Scopes.Slice()...)
	out := map[string]any{
		"client_id": k.ClientID, "requested_scopes": requested, "scopes": k.EffectiveScopes(),
		"restricted_approved": k.Approved.Len() > 0, "disabled": k.Disabled,
		"signature_required": k.SignatureRequired, "ip_allowlist": append([]string{}, k.IPAllowlist.Slice()...),
		"environment": k.Env,
	}
	if !k.ValidUntil.IsZero() {
		out["valid_until"] = k.ValidUntil.Format(time.RFC3339)
	}
	if withSecrets {
		out["api_key"] = k.APIKey
		out["signing_key"] = k.SigningKey
	}
	return out
}
