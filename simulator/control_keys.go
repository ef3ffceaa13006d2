package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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
	return call2(k.s, ctlKeysAdd, func() (Credentials, error) {
		if err := checkEnvironment(ks.Environment); err != nil {
			return Credentials{}, err
		}
		return inTx1(k.s, func(tx *kernel.Tx) (Credentials, error) {
			key, err := k.s.wiring.keys.add(tx, clientID, apiKeyValue, signingKey, ks)
			if err != nil {
				return Credentials{}, err
			}
			c := k.s.st.creds
			c.ClientID, c.APIKey, c.SigningKey, c.Environment = key.ClientID, key.APIKey, key.SigningKey, key.Env
			return c, nil
		})
	}, clientID, apiKeyValue, signingKey, ks)
}

// addKeyCall is POST /_sim/keys, the HTTP entry of Add: it answers 201 with
// the Key and its secrets.
func addKeyCall(s *Simulator, _ *http.Request, body []byte) (string, []any, controlRun, error) {
	var in keyJSONIn
	if err := decodeControl(body, &in); err != nil {
		return "", nil, nil, err
	}
	ks := in.settings()
	return "", []any{in.ClientID, in.APIKey, in.SigningKey, ks}, func(tx *kernel.Tx) (int, any, error) {
		if err := checkEnvironment(ks.Environment); err != nil {
			return 0, nil, err
		}
		k, err := s.wiring.keys.add(tx, in.ClientID, in.APIKey, in.SigningKey, ks)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, keyJSON(k, true), nil
	}, nil
}

// setKeyCall is POST /_sim/keys/{client_id}, the HTTP entry of Set: it
// answers with the Key.
func setKeyCall(s *Simulator, r *http.Request, body []byte) (string, []any, controlRun, error) {
	var in keyJSONIn
	if err := decodeControl(body, &in); err != nil {
		return "", nil, nil, err
	}
	id, ks := r.PathValue("client_id"), in.settings()
	return "", []any{id, ks}, func(tx *kernel.Tx) (int, any, error) {
		if err := s.wiring.keys.set(tx, id, ks); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, keyJSON(s.st.keys[id], false), nil
	}, nil
}

// Set changes the Key of clientID.
func (k *KeysControl) Set(clientID string, ks KeySettings) error {
	return call1(k.s, ctlKeysSet, func() error {
		if err := checkEnvironment(ks.Environment); err != nil {
			return err
		}
		return unknownID("key", clientID, inTx(k.s, func(tx *kernel.Tx) error { return k.s.wiring.keys.set(tx, clientID, ks) }))
	}, clientID, ks)
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
	return call2(k.s, ctlKeysSign, func() (SignedRequest, error) {
		tx := k.s.k.Begin()
		defer tx.End()
		return unknownID2[SignedRequest]("key", clientID)(k.s.wiring.gw.sign(tx, clientID, method, target, nonce, body))
	}, clientID, method, target, nonce, body)
}

// The names the Keys control methods record their calls under, each declared
// once and used by its method and by keysControls.
const (
	ctlKeysAdd  = "Keys.Add"
	ctlKeysSet  = "Keys.Set"
	ctlKeysSign = "Keys.Sign"
)

// keysControls declares the keys control methods and the routes that call them
// (control_decl.go), the routes in their registration order. Add and Set
// are declared with their routes among the core routes (control.go), where
// those register.
var keysControls = []controlDecl{
	{
		name: ctlKeysSign, bind: func(s *Simulator) any { return s.Keys.Sign },
		route: "POST /_sim/keys/{client_id}/sign",
		call: func(s *Simulator, r *http.Request, body []byte) (int, any, error) {
			var in struct {
				Method string `json:"method"`
				Path   string `json:"path"`
				Body   string `json:"body"`
				Nonce  string `json:"nonce"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			sig, err := s.Keys.Sign(r.PathValue("client_id"), in.Method, in.Path, in.Nonce, []byte(in.Body))
			if err != nil {
				return 0, nil, err
			}
			return http.StatusOK, sig, nil
		},
	},
}
