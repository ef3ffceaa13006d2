package simulator

import (
	"net/http"
	"time"
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
	key, err := invoke[*apiKey](k.s, opKeysAdd, &keyAddIn{ClientID: clientID, APIKey: apiKeyValue, SigningKey: signingKey, keySettingsIn: keySettingsIn(ks)})
	if err != nil {
		return Credentials{}, err
	}
	c := k.s.Credentials()
	c.ClientID, c.APIKey, c.SigningKey, c.Environment = key.ClientID, key.APIKey, key.SigningKey, key.Env
	return c, nil
}

// Set changes the Key of clientID.
func (k *KeysControl) Set(clientID string, ks KeySettings) error {
	return k.s.wiring.ctl.perform(opKeysSet, &keySetIn{ClientID: clientID, keySettingsIn: keySettingsIn(ks)})
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
	return invoke[SignedRequest](k.s, opKeysSign, &signIn{ClientID: clientID, Method: method, Path: target, Nonce: nonce, Body: string(body)})
}

// keySettingsIn is the settings part of a Key body, the fields of
// KeySettings (the two convert into each other).
type keySettingsIn struct {
	Scopes            []string    `json:"scopes" dom:"name"`
	ApproveRestricted *bool       `json:"approve_restricted" dom:"boolean"`
	Disabled          *bool       `json:"disabled" dom:"boolean"`
	SignatureRequired *bool       `json:"signature_required" dom:"boolean"`
	IPAllowlist       []string    `json:"ip_allowlist" dom:"name"`
	Environment       Environment `json:"environment" dom:"environment"`
	ValidUntil        *time.Time  `json:"valid_until" dom:"time"`
}

// keyAddIn is the body of POST /_sim/keys.
type keyAddIn struct {
	ClientID   string `json:"client_id" dom:"name"`
	APIKey     string `json:"api_key" dom:"name"`
	SigningKey string `json:"signing_key" dom:"name"`
	keySettingsIn
}

// keySetIn is the input of POST /_sim/keys/{client_id}.
type keySetIn struct {
	ClientID string `path:"client_id" json:"-" dom:"key"`
	keySettingsIn
}

// keyID is the input of a read of one Key.
type keyID struct {
	ClientID string `path:"client_id" json:"-" dom:"key"`
}

// signIn is the input of POST /_sim/keys/{client_id}/sign.
type signIn struct {
	ClientID string `path:"client_id" json:"-" dom:"key"`
	Method   string `json:"method" dom:"http_method,req"`
	Path     string `json:"path" dom:"business_target,req"`
	Body     string `json:"body" dom:"body_text"`
	Nonce    string `json:"nonce" dom:"name"`
}

var (
	opKeysAdd = def[keyAddIn]{
		Route: "POST /_sim/keys", Name: "Keys.Add", Status: http.StatusCreated,
		Args: func(in *keyAddIn) []any {
			return []any{in.ClientID, in.APIKey, in.SigningKey, KeySettings(in.keySettingsIn)}
		},
		Run: func(x *opRun, in *keyAddIn) (any, error) {
			return x.s.wiring.keys.add(x.tx, in.ClientID, in.APIKey, in.SigningKey, KeySettings(in.keySettingsIn))
		},
		Reply: func(_ *opRun, _ *keyAddIn, out any) (int, any) {
			return http.StatusCreated, keyJSON(*out.(*apiKey), true)
		},
	}.Op()
	opKeysSet = def[keySetIn]{
		Route: "POST /_sim/keys/{client_id}", Name: "Keys.Set",
		Args: func(in *keySetIn) []any { return []any{in.ClientID, KeySettings(in.keySettingsIn)} },
		Run: func(x *opRun, in *keySetIn) (any, error) {
			if err := x.s.wiring.keys.set(x.tx, in.ClientID, KeySettings(in.keySettingsIn)); err != nil {
				return nil, err
			}
			k, _ := x.s.st.keys.Get(x.tx, in.ClientID)
			return keyJSON(k, false), nil
		},
	}.Op()
	opKeysSign = def[signIn]{
		Route: "POST /_sim/keys/{client_id}/sign", Name: "Keys.Sign",
		Args: func(in *signIn) []any { return []any{in.ClientID, in.Method, in.Path, in.Nonce, []byte(in.Body)} },
		Run: func(x *opRun, in *signIn) (any, error) {
			return x.s.wiring.gw.sign(x.tx, in.ClientID, in.Method, in.Path, in.Nonce, []byte(in.Body))
		},
	}.Op()
)

// keysOps declares the Keys' routes and methods.
var keysOps = []*op{
	def[noInput]{Route: "GET /_sim/keys", Run: func(x *opRun, _ *noInput) (any, error) {
		out := make([]map[string]any, 0, x.s.st.keys.Len(x.tx))
		for _, k := range x.s.st.keys.All(x.tx) {
			out = append(out, keyJSON(k, false))
		}
		return controlList(out), nil
	}}.Op(),
	opKeysAdd,
	def[keyID]{Route: "GET /_sim/keys/{client_id}", Run: func(x *opRun, in *keyID) (any, error) {
		k, _ := x.s.st.keys.Get(x.tx, in.ClientID)
		return keyJSON(k, false), nil
	}}.Op(),
	opKeysSet, opKeysSign,
}
