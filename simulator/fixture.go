package simulator

import (
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	"github.com/mwallet/mwallet-go/simulator/internal/startup"
)

// loadFixture loads the default fixture into st (the merchant line exists):
// the fixture Key (startup.FixtureKey), then what internal/startup's
// Fixture loads: the assets, the default member unless o says none, the
// WithMember seeds (a seed that cannot be created is an error) and the
// funded prepaid account.
func loadFixture(tx *kernel.Tx, st *simState, o *options) error {
	c := st.creds
	st.keys.Put(tx, c.ClientID, apiKeyOf(startup.FixtureKey(c.ClientID, c.APIKey, c.SigningKey, string(c.Environment))))
	f := startup.Fixture{Member: DefaultMemberExternalID}
	if o.noMember {
		f.Member = ""
	}
	for _, m := range o.members {
		f.Seeds = append(f.Seeds, members.Seed(m))
	}
	return f.Load(tx, st.cat.Catalogue, &st.members, st.clock.Now())
}

// grantFixtureScopes builds the scope catalogue and grants all of it to
// the fixture Key, restricted scopes approved (startup.Catalog). It runs
// once every endpoint is registered.
func grantFixtureScopes(tx *kernel.Tx, st *simState, endpoints []endpoint) {
	k, _ := st.keys.Get(tx, st.creds.ClientID)
	k.Scopes, k.Approved = startup.Catalog(st.gw.ScopeCatalog, pipeline.RestrictedScopes, endpoints)
	st.keys.Put(tx, st.creds.ClientID, k)
}
