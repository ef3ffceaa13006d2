package devtools

import (
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Accounts is the control API's view of one member and its accounts
// (GET /_sim/members/{id}, the MembersControl methods): it reads the
// books, the catalogue, the members and the merchant, and changes nothing.
type Accounts struct {
	Books     Ledger
	Catalogue interface {
		All() []*assetcat.Asset
		Scale(code string) (int, bool)
	}
	// Members finds a member by mem_ id, bare uuid or external_member_id.
	Members interface {
		ByAny(tx *kernel.Tx, id string) *api.Member
	}
	// Merchant is the merchant's id, that of a member that names none.
	Merchant interface{ ID(tx *kernel.Tx) string }
}

// MemberInfo describes a member for tests (the simulator's MemberInfo,
// which converts from it).
type MemberInfo struct {
	ID         string
	ExternalID string
	KYCLevel   int
	Status     string
}

// Info is the member id names (mem_ id, bare uuid or external_member_id);
// false when there is none.
func (a Accounts) Info(tx *kernel.Tx, id string) (MemberInfo, bool) {
	m := a.Members.ByAny(tx, id)
	if m == nil {
		return MemberInfo{}, false
	}
	return MemberInfo{ID: m.ID, ExternalID: m.ExternalID, KYCLevel: m.KYCLevel, Status: m.Status}, true
}

// Balance is the available and locked balance, in that order, of the
// member id names in asset (its code in any case); zero at the asset's
// scale for a member there is none of.
func (a Accounts) Balance(tx *kernel.Tx, id, asset string) [2]money.Amount {
	asset = strings.ToUpper(asset)
	m := a.Members.ByAny(tx, id)
	if m == nil {
		sc, _ := a.Catalogue.Scale(asset)
		return [2]money.Amount{money.Zero(sc), money.Zero(sc)}
	}
	return [2]money.Amount{a.Books.Balance(tx, kernel.MemberAvailable(m.ID), asset), a.Books.Balance(tx, kernel.MemberLocked(m.ID), asset)}
}

// Document is the control API's document of member m, with its balances
// in every asset of the catalogue (MemberDocument).
func (a Accounts) Document(tx *kernel.Tx, m *api.Member) map[string]any {
	merchantID := m.MerchantID
	if merchantID == "" {
		merchantID = a.Merchant.ID(tx)
	}
	return MemberDocument(tx, a.Books, m, AssetCodes(a.Catalogue.All()), merchantID)
}
