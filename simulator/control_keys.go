package simulator

import (
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/merchant"
)

// KeysControl creates and changes the merchant's API Keys (sim.Keys): scopes
// and their approval, signing, IP allowlist, environment, expiry. Control
// API: POST /_sim/keys and POST /_sim/keys/{client_id}.
type KeysControl struct{ s *Simulator }

// Add creates another Key of the merchant and returns its credentials.
// Empty clientID, apiKeyValue or signingKey are generated. The Key starts with the
// settings ks (SignatureRequired defaults to true, Environment to the current
// one; restricted scopes need ApproveRestricted).
func (k *KeysControl) Add(clientID, apiKeyValue, signingKey string, ks KeySettings) (Credentials, error) {
	key, err := invoke[pipeline.Key](k.s, keyOps.Add, &merchant.KeyAddIn{ClientID: clientID, APIKey: apiKeyValue, SigningKey: signingKey, KeySettingsIn: ks.keySettingsIn()})
	if err != nil {
		return Credentials{}, err
	}
	c := k.s.Credentials()
	c.ClientID, c.APIKey, c.SigningKey, c.Environment = key.ClientID, key.APIKey, key.SigningKey, Environment(key.Env)
	return c, nil
}

// Set changes the Key of clientID.
func (k *KeysControl) Set(clientID string, ks KeySettings) error {
	return k.s.wiring.ctl.perform(keyOps.Set, &merchant.KeySetIn{ClientID: clientID, KeySettingsIn: ks.keySettingsIn()})
}

// Sign computes the signing headers (x-timestamp, x-nonce, x-signature) of
// a request as the holder of Key clientID would, at the simulator clock:
// method, target (path with its query exactly as it will be sent) and the
// exact body bytes. An empty nonce gets a fresh one. A test (or a recipe)
// can then send the same signed request twice to meet nonce_reused. Control
// API: POST /_sim/keys/{client_id}/sign with {"method", "path", "body",
// "nonce"}.
func (k *KeysControl) Sign(clientID, method, target, nonce string, body []byte) (SignedRequest, error) {
	// A recorded input: a fresh nonce draws from the simulator's random
	// source.
	return invoke[SignedRequest](k.s, keyOps.Sign, &merchant.SignIn{ClientID: clientID, Method: method, Path: target, Nonce: nonce, Body: string(body)})
}

// SignedRequest is what KeysControl.Sign computes: the three signing
// headers of one request (x-timestamp, x-nonce, x-signature).
type SignedRequest struct {
	Timestamp string `json:"timestamp"`
	Nonce     string `json:"nonce"`
	Signature string `json:"signature"`
}

// keySettingsOf is the public settings of a Key input, and keySettingsIn
// the input of public settings (the fields are the same).
func keySettingsOf(in merchant.KeySettingsIn) KeySettings {
	return KeySettings{Scopes: in.Scopes, ApproveRestricted: in.ApproveRestricted, Disabled: in.Disabled, SignatureRequired: in.SignatureRequired,
		IPAllowlist: in.IPAllowlist, Environment: Environment(in.Environment), ValidUntil: in.ValidUntil}
}

func (ks KeySettings) keySettingsIn() merchant.KeySettingsIn {
	return merchant.KeySettingsIn{Scopes: ks.Scopes, ApproveRestricted: ks.ApproveRestricted, Disabled: ks.Disabled, SignatureRequired: ks.SignatureRequired,
		IPAllowlist: ks.IPAllowlist, Environment: string(ks.Environment), ValidUntil: ks.ValidUntil}
}

// keyOps are the Keys' ops, declared in the merchant line
// (internal/merchant): a Key is the gateway's apiKey, kept in the state's
// table and created and changed by the state's keyring (admin.go); signing
// is the gateway's.
var keyOps = merchant.NewKeyOps(merchant.KeyViews[*opRun]{
	Settings: func(in merchant.KeySettingsIn) any { return keySettingsOf(in) },
	Add: func(x *opRun, in *merchant.KeyAddIn) (any, error) {
		return x.Sim.st.keyring().Add(x.Tx, in.ClientID, in.APIKey, in.SigningKey, in.KeySettingsIn)
	},
	Created: func(out any) map[string]any { return merchant.KeyJSON(out.(pipeline.Key), true) },
	Set: func(x *opRun, clientID string, ks merchant.KeySettingsIn) error {
		return x.Sim.st.keyring().Set(x.Tx, clientID, ks)
	},
	Doc: func(x *opRun, clientID string) map[string]any {
		k, _ := x.Sim.st.keys.Get(x.Tx, clientID)
		return merchant.KeyJSON(k.key(), false)
	},
	All: func(x *opRun) []map[string]any {
		out := make([]map[string]any, 0, x.Sim.st.keys.Len(x.Tx))
		for _, k := range x.Sim.st.keys.All(x.Tx) {
			out = append(out, merchant.KeyJSON(k.key(), false))
		}
		return out
	},
	// Signing is internal/exchange's Pipeline.Sign; an empty nonce gets a
	// fresh one.
	Sign: func(x *opRun, in *merchant.SignIn) (any, error) {
		ts, nonce, sig, err := x.Sim.wiring.gw.ex.Sign(x.Tx, in.ClientID, in.Method, in.Path, in.Nonce, []byte(in.Body))
		if err != nil {
			return SignedRequest{}, err
		}
		return SignedRequest{Timestamp: ts, Nonce: nonce, Signature: sig}, nil
	},
})

// keysOps declares the Keys' routes and methods.
var keysOps = []*op{keyOps.List, keyOps.Add, keyOps.Get, keyOps.Set, keyOps.Sign}
