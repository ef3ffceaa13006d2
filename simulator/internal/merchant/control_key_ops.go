package merchant

import (
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
)

// The control operations of the merchant's API Keys, over the declaring
// package's run of one op X. The Keys are the gateway's (it reads them to
// authenticate, and they are the declaring package's type) and the Go
// methods take the declaring package's public Key settings: what the ops
// need of them the declaring package gives as func values (KeyViews).

// The inputs of the Key ops.
type (
	// KeySettingsIn is the settings part of a Key body, the fields of the
	// declaring package's public Key settings.
	KeySettingsIn struct {
		Scopes            []string   `json:"scopes" dom:"name"`
		ApproveRestricted *bool      `json:"approve_restricted" dom:"boolean"`
		Disabled          *bool      `json:"disabled" dom:"boolean"`
		SignatureRequired *bool      `json:"signature_required" dom:"boolean"`
		IPAllowlist       []string   `json:"ip_allowlist" dom:"name"`
		Environment       string     `json:"environment" dom:"environment"`
		ValidUntil        *time.Time `json:"valid_until" dom:"time"`
	}
	// KeyAddIn is the body of POST /_sim/keys.
	KeyAddIn struct {
		ClientID   string `json:"client_id" dom:"name"`
		APIKey     string `json:"api_key" dom:"name"`
		SigningKey string `json:"signing_key" dom:"name"`
		KeySettingsIn
	}
	// KeySetIn is the input of POST /_sim/keys/{client_id}.
	KeySetIn struct {
		ClientID string `path:"client_id" json:"-" dom:"key"`
		KeySettingsIn
	}
	// KeyID is the input of a read of one Key.
	KeyID struct {
		ClientID string `path:"client_id" json:"-" dom:"key"`
	}
	// SignIn is the input of POST /_sim/keys/{client_id}/sign.
	SignIn struct {
		ClientID string `path:"client_id" json:"-" dom:"key"`
		Method   string `json:"method" dom:"http_method,req"`
		Path     string `json:"path" dom:"business_target,req"`
		Body     string `json:"body" dom:"body_text"`
		Nonce    string `json:"nonce" dom:"name"`
	}
)

// KeyViews are what the Key ops need of the declaring package.
type KeyViews[X any] struct {
	// Settings are the Go methods' settings argument (the public Key
	// settings).
	Settings func(KeySettingsIn) any
	// Add creates a Key; Created is the document of the Key it answered,
	// its secrets included.
	Add     func(x X, in *KeyAddIn) (any, error)
	Created func(out any) map[string]any
	// Set changes the Key of a client id.
	Set func(x X, clientID string, ks KeySettingsIn) error
	// Doc is the document of the Key of a client id, without its secrets;
	// All those of every Key, in the order of the Keys.
	Doc func(x X, clientID string) map[string]any
	All func(x X) []map[string]any
	// Sign signs a request as the holder of the Key would.
	Sign func(x X, in *SignIn) (any, error)
}

// KeyOps are the Key ops, by Go method; List and Get are GET /_sim/keys
// and GET /_sim/keys/{client_id}, which no Go method mirrors.
type KeyOps[X any] struct {
	List, Add, Get, Set, Sign *control.Op[X]
}

// NewKeyOps declares the Key ops.
func NewKeyOps[X any](v KeyViews[X]) *KeyOps[X] {
	return &KeyOps[X]{
		List: control.Def[X, control.NoInput]{Route: "GET /_sim/keys", Run: func(x X, _ *control.NoInput) (any, error) {
			return control.List(v.All(x)), nil
		}}.Op(),
		Add: control.Def[X, KeyAddIn]{
			Route: "POST /_sim/keys", Name: "Keys.Add", Status: http.StatusCreated,
			Args: func(in *KeyAddIn) []any {
				return []any{in.ClientID, in.APIKey, in.SigningKey, v.Settings(in.KeySettingsIn)}
			},
			Run: func(x X, in *KeyAddIn) (any, error) { return v.Add(x, in) },
			Reply: func(_ X, _ *KeyAddIn, out any) (int, any) {
				return http.StatusCreated, v.Created(out)
			},
		}.Op(),
		Get: control.Def[X, KeyID]{Route: "GET /_sim/keys/{client_id}", Run: func(x X, in *KeyID) (any, error) {
			return v.Doc(x, in.ClientID), nil
		}}.Op(),
		Set: control.Def[X, KeySetIn]{
			Route: "POST /_sim/keys/{client_id}", Name: "Keys.Set",
			Args: func(in *KeySetIn) []any { return []any{in.ClientID, v.Settings(in.KeySettingsIn)} },
			Run: func(x X, in *KeySetIn) (any, error) {
				if err := v.Set(x, in.ClientID, in.KeySettingsIn); err != nil {
					return nil, err
				}
				return v.Doc(x, in.ClientID), nil
			},
		}.Op(),
		Sign: control.Def[X, SignIn]{
			Route: "POST /_sim/keys/{client_id}/sign", Name: "Keys.Sign",
			Args: func(in *SignIn) []any { return []any{in.ClientID, in.Method, in.Path, in.Nonce, []byte(in.Body)} },
			Run:  func(x X, in *SignIn) (any, error) { return v.Sign(x, in) },
		}.Op(),
	}
}
