package startup

import (
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
)

// Fixture is the state a simulator starts with, beside its fixture Key.
type Fixture struct {
	// Member is the external id of the fixture member, "" for none.
	Member string
	// Seeds are the members asked for (WithMember), created after it.
	Seeds []members.Seed
}

// FixtureMember is the seed of the fixture member: KYC level 1, funded
// with 1000 USDT and 500 USDC.
func FixtureMember(externalID string) members.Seed {
	return members.Seed{
		ExternalID: externalID,
		KYCLevel:   1,
		Balances:   map[string]string{"USDT": "1000.000000", "USDC": "500.000000"},
	}
}

// PrepaidFunding is what the fixture credits the merchant's prepaid
// account with, per asset, so merchant_hosted flows work out of the box.
var PrepaidFunding = []struct{ Asset, Amount string }{{"USDT", "100000"}, {"USDC", "100000"}}

// Load loads the fixture into a new state: the fixture's assets into cat,
// the fixture member (unless f.Member is "") and f.Seeds into l, and the
// merchant's prepaid account funded from the world account at now. A seed
// that cannot be created is an error that names it.
func (f Fixture) Load(tx *kernel.Tx, cat *catalogue.Catalogue, l *members.Line, now time.Time) error {
	for _, a := range catalogue.Fixture() {
		cat.Add(a)
	}
	if f.Member != "" {
		_, _ = l.Create(tx, FixtureMember(f.Member))
	}
	for _, m := range f.Seeds {
		if _, err := l.Create(tx, m); err != nil {
			return fmt.Errorf("simulator: WithMember %q: %w", m.ExternalID, err)
		}
	}
	for _, p := range PrepaidFunding {
		amt, _ := cat.Amount(p.Asset, p.Amount, catalogue.Signed)
		_ = tx.Transfer(now, "fixture: merchant prepaid", p.Asset, amt, kernel.AccountWorld, kernel.AccountMerchantPrepaid)
	}
	return nil
}
