package simulator

import (
	"fmt"

	assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
)

// contractScopes are the scopes the contract names.
var contractScopes = []string{
	"members:read", "qrpay:write", "deposits:write", "cards:read", "cards:write",
	"cards:secure", "remittances:read", "merchant:read",
}

// serviceScopes are the scopes the simulator adds where the contract names
// an endpoint but no scope for it: every endpoint needs one, and a line's
// writes need its write scope, which includes its read.
//
//   - remittances:write: POST /v1/remittances (holds the member's funds) and
//     POST /v1/remit/payees (where the funds go). The contract shows
//     remittances:read for the line's reads; its write is the natural pair.
//   - kyc:write: POST /v1/kyc/profile-sessions and POST /v1/kyc/quick (a
//     quick binding costs a usage fee); kyc:read: GET /v1/kyc and GET
//     /v1/kyc/quick. The contract shows no KYC scope at all.
//
// Lines whose contract scopes cover every endpoint keep them: the QR line
// shows only qrpay:write (even decode, which moves nothing, needs it), so its
// unshown reads need qrpay:write too; deposit reads need deposits:write.
// Inventing a read scope there would let a Key pass here with a scope the
// service may drop as unknown.
var serviceScopes = []string{"remittances:write", "kyc:read", "kyc:write"}

// loadFixture loads the default fixture into st (the merchant line exists):
// the fixture Key, the assets, the default member unless o says none, the
// WithMember seeds (a seed that cannot be created is an error) and the
// funded prepaid account.
func loadFixture(tx *kernel.Tx, st *simState, o *options) error {
	k := apiKey{
		ClientID:          st.creds.ClientID,
		APIKey:            st.creds.APIKey,
		SigningKey:        st.creds.SigningKey,
		SignatureRequired: true,
		Env:               st.creds.Environment,
	}
	if k.Env == Production {
		// Production Keys need a non-empty allowlist; the embedded server
		// listens on loopback.
		k.IPAllowlist, k.IPAllowlistSet = kernel.ListOf("127.0.0.1"), true
	}
	st.keys.Put(tx, st.creds.ClientID, k)
	for _, a := range assetcat.Fixture() {
		st.cat.Add(a)
	}
	if !o.noMember {
		_, _ = createMember(tx, &st.members, MemberSeed{
			ExternalID: DefaultMemberExternalID,
			KYCLevel:   1,
			Balances:   map[string]string{"USDT": "1000.000000", "USDC": "500.000000"},
		})
	}
	for _, m := range o.members {
		if _, err := createMember(tx, &st.members, m); err != nil {
			return fmt.Errorf("simulator: WithMember %q: %w", m.ExternalID, err)
		}
	}
	// Merchant prepaid starts funded so merchant_hosted flows work out of the box.
	for _, code := range []string{"USDT", "USDC"} {
		amt, _ := st.cat.Amount(code, "100000", decimalSigned)
		_ = tx.Transfer(st.clock.Now(), "fixture: merchant prepaid", code, amt, AccountWorld, AccountMerchantPrepaid)
	}
	return nil
}

// grantFixtureScopes builds the scope catalogue (contract scopes plus the
// simulator's own) and grants all of it to the fixture Key, restricted
// scopes approved. It runs once every endpoint is registered; an endpoint
// whose scope is outside the catalogue is a programming error.
func grantFixtureScopes(tx *kernel.Tx, st *simState, endpoints []endpoint) {
	for _, sc := range contractScopes {
		st.gw.ScopeCatalog[sc] = true
	}
	for _, sc := range serviceScopes {
		st.gw.ScopeCatalog[sc] = true
	}
	for _, e := range endpoints {
		if !st.gw.ScopeCatalog[e.Scope] {
			panic(fmt.Sprintf("simulator: %s %s needs scope %q, which is not in the scope catalogue", e.Method, e.Pattern, e.Scope))
		}
	}
	k, _ := st.keys.Get(tx, st.creds.ClientID)
	k.Scopes, k.Approved = sortedSet(st.gw.ScopeCatalog), sortedSet(restrictedScopes)
	st.keys.Put(tx, st.creds.ClientID, k)
}

// createMember creates a member (the members line) and credits its seed
// balances from the world account.
func createMember(tx *kernel.Tx, l *members.Line, seed MemberSeed) (*member, error) {
	return l.Create(tx, members.Seed{ExternalID: seed.ExternalID, KYCLevel: seed.KYCLevel, Balances: seed.Balances,
		Status: seed.Status, PlatformDirect: seed.PlatformDirect, MerchantID: seed.MerchantID})
}
