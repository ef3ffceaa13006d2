package merchant

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// keyMap is a KeyTable over a map.
type keyMap map[string]gateway.Key

func (m keyMap) Has(_ *kernel.Tx, id string) bool { _, ok := m[id]; return ok }
func (m keyMap) Get(_ *kernel.Tx, id string) (gateway.Key, bool) {
	k, ok := m[id]
	return k, ok
}
func (m keyMap) Put(_ *kernel.Tx, id string, k gateway.Key) { m[id] = k }

func boolp(v bool) *bool { return &v }

// keyView is what a test compares of a key.
type keyView struct {
	ClientID, APIKey, SigningKey, Env string
	Scopes, Approved, IPAllowlist     []string
	IPAllowlistSet, Disabled, Signed  bool
	ValidUntil                        time.Time
}

func viewOfKey(k gateway.Key) keyView {
	return keyView{ClientID: k.ClientID, APIKey: k.APIKey, SigningKey: k.SigningKey, Env: k.Env,
		Scopes: k.Scopes.Slice(), Approved: k.Approved.Slice(), IPAllowlist: k.IPAllowlist.Slice(),
		IPAllowlistSet: k.IPAllowlistSet, Disabled: k.Disabled, Signed: k.SignatureRequired, ValidUntil: k.ValidUntil}
}

// TestKeyringAdd: a new key's drawn secrets, its environment, its scopes
// narrowed to the catalogue, and the refusals of a taken id and an unknown
// environment, which add nothing.
func TestKeyringAdd(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	tests := []struct {
		name             string
		id, apiKey, sign string
		ks               KeySettingsIn
		want             keyView
		wantCode         string
	}{
		{name: "drawn secrets, the merchant's environment", id: " c1 ",
			want: keyView{ClientID: "c1", APIKey: "sim_api_key_u1", SigningKey: "sim_signing_key_u2", Env: Sandbox, Signed: true}},
		{name: "given secrets and settings", id: "c2", apiKey: "ak", sign: "sk",
			ks: KeySettingsIn{Scopes: []string{" cards:read", "nope", "cards:secure"}, ApproveRestricted: boolp(true), Disabled: boolp(true),
				SignatureRequired: boolp(false), IPAllowlist: []string{}, Environment: Production, ValidUntil: &until},
			want: keyView{ClientID: "c2", APIKey: "ak", SigningKey: "sk", Env: Production, Scopes: []string{"cards:read", "cards:secure"},
				Approved: []string{"cards:secure", "deposits:write"}, IPAllowlistSet: true, Disabled: true, ValidUntil: until.UTC()}},
		{name: "a taken id", id: "old", wantCode: "duplicate_resource"},
		{name: "an unknown environment", id: "c3", apiKey: "a", sign: "s", ks: KeySettingsIn{Environment: "staging"}, wantCode: "invalid_request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			svc := kerneltest.New()
			tx := svc.Begin()
			defer tx.End()
			keys := keyMap{"old": {ClientID: "old"}}
			r := Keyring{Keys: keys, Merchant: New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", PlatformHosted, StatusActive, Sandbox),
				Scopes: map[string]bool{"cards:read": true, "cards:secure": true}}
			k, err := r.Add(tx, tc.id, tc.apiKey, tc.sign, tc.ks)
			if tc.wantCode != "" {
				var ae *api.Error
				if !errors.As(err, &ae) || ae.Code != tc.wantCode {
					t.Fatalf("Add = %v, want %s", err, tc.wantCode)
				}
				if len(keys) != 1 {
					t.Fatalf("a refused Add kept a key: %v", keys)
				}
				return
			}
			if err != nil {
				t.Fatalf("Add = %v", err)
			}
			if diff := cmp.Diff(tc.want, viewOfKey(k), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("key (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, viewOfKey(keys[tc.want.ClientID]), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("stored key (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKeyringSet: a change keeps what it does not name, a withdrawn approval
// and an unknown key.
func TestKeyringSet(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	keys := keyMap{"c1": {ClientID: "c1", Env: Sandbox, Scopes: kernel.ListOf("cards:read"), Approved: kernel.ListOf("cards:secure"), SignatureRequired: true}}
	r := Keyring{Keys: keys, Merchant: New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", PlatformHosted, StatusActive, Sandbox)}
	if err := r.Set(tx, "c1", KeySettingsIn{ApproveRestricted: boolp(false), IPAllowlist: []string{"10.0.0.1"}}); err != nil {
		t.Fatalf("Set = %v", err)
	}
	want := keyView{ClientID: "c1", Env: Sandbox, Scopes: []string{"cards:read"}, IPAllowlist: []string{"10.0.0.1"}, IPAllowlistSet: true, Signed: true}
	if diff := cmp.Diff(want, viewOfKey(keys["c1"]), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("key (-want +got):\n%s", diff)
	}
	var ae *api.Error
	if err := r.Set(tx, "nope", KeySettingsIn{}); !errors.As(err, &ae) || ae.Code != "not_found" {
		t.Errorf("Set of an unknown key = %v, want not_found", err)
	}
}

// TestKeyJSON: the document of a key, with its secrets only on request.
func TestKeyJSON(t *testing.T) {
	t.Parallel()
	k := gateway.Key{ClientID: "c1", APIKey: "ak", SigningKey: "sk", Scopes: kernel.ListOf("cards:secure", "cards:write"),
		Approved: kernel.ListOf("cards:secure"), IPAllowlist: kernel.ListOf("10.0.0.1"), Env: Production,
		ValidUntil: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	base := map[string]any{
		"client_id": "c1", "requested_scopes": []string{"cards:secure", "cards:write"}, "scopes": k.EffectiveScopes(),
		"restricted_approved": true, "disabled": false, "signature_required": false, "ip_allowlist": []string{"10.0.0.1"},
		"environment": Production, "valid_until": "2026-01-02T03:04:05Z",
	}
	tests := []struct {
		name    string
		secrets bool
		extra   map[string]any
	}{
		{name: "without secrets"},
		{name: "with secrets", secrets: true, extra: map[string]any{"api_key": "ak", "signing_key": "sk"}},
	}
	for _, tc := range tests {
		want := map[string]any{}
		for k, v := range base {
			want[k] = v
		}
		for k, v := range tc.extra {
			want[k] = v
		}
		if diff := cmp.Diff(want, KeyJSON(k, tc.secrets)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, ok := KeyJSON(gateway.Key{}, false)["valid_until"]; ok {
		t.Error("a key without a limit has a valid_until")
	}
}
