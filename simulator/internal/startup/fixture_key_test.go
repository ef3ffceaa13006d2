package startup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFixtureKey: the fixture Key is signed, and allowlists loopback only
// in production.
func TestFixtureKey(t *testing.T) {
	t.Parallel()
	type view struct {
		ClientID, APIKey, SigningKey, Env string
		Signed, AllowlistSet              bool
		Allowlist                         []string
	}
	tests := []struct {
		env  string
		want view
	}{
		{Sandbox, view{ClientID: "c", APIKey: "a", SigningKey: "s", Env: Sandbox, Signed: true}},
		{Production, view{ClientID: "c", APIKey: "a", SigningKey: "s", Env: Production, Signed: true,
			AllowlistSet: true, Allowlist: []string{"127.0.0.1"}}},
	}
	for _, tc := range tests {
		k := FixtureKey("c", "a", "s", tc.env)
		got := view{ClientID: k.ClientID, APIKey: k.APIKey, SigningKey: k.SigningKey, Env: k.Env,
			Signed: k.SignatureRequired, AllowlistSet: k.IPAllowlistSet, Allowlist: k.IPAllowlist.Slice()}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.env, diff)
		}
	}
}
