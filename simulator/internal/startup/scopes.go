package startup

import (
	"fmt"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ContractScopes are the scopes the contract names.
var ContractScopes = []string{
	"members:read", "qrpay:write", "deposits:write", "cards:read", "cards:write",
	"cards:secure", "remittances:read", "merchant:read",
}

// ServiceScopes are the scopes the simulator adds where the contract names
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
var ServiceScopes = []string{"remittances:write", "kyc:read", "kyc:write"}

// Catalog builds the scope catalogue into catalog (ContractScopes and
// ServiceScopes) and answers the fixture Key's grants: every scope of the
// catalogue, and of them the restricted ones approved. It runs once every
// endpoint is registered; an endpoint whose scope is outside the catalogue
// is a programming error (a panic).
func Catalog(catalog, restricted map[string]bool, endpoints []api.Endpoint) (granted, approved kernel.List[string]) {
	for _, sc := range ContractScopes {
		catalog[sc] = true
	}
	for _, sc := range ServiceScopes {
		catalog[sc] = true
	}
	for _, e := range endpoints {
		if !catalog[e.Scope] {
			panic(fmt.Sprintf("simulator: %s %s needs scope %q, which is not in the scope catalogue", e.Method, e.Pattern, e.Scope))
		}
	}
	return kernel.SortedSet(catalog), kernel.SortedSet(restricted)
}
