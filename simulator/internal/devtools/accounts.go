package devtools

import (
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Ledger is what the account views read of the books: the balance of an
// account in an asset.
type Ledger interface {
	Balance(tx *kernel.Tx, account, asset string) money.Amount
}

// Balance is the balance of one asset, as decimal strings at the asset's
// ledger scale (the simulator's BalanceSnapshot).
type Balance struct {
	Asset     string
	Available string
	Locked    string
}

// Member is one member with its balances (the simulator's
// MemberSnapshot, which documents each field).
type Member struct {
	ID               string
	ExternalMemberID string
	KYCLevel         int
	Status           string
	PlatformDirect   bool
	Balances         []Balance
	CreatedAt        time.Time
}

// balances reads the available and locked accounts in every asset, in
// the assets' order; nil when there is no asset.
func balances(tx *kernel.Tx, books Ledger, available, locked string, assets []string) []Balance {
	var out []Balance
	for _, a := range assets {
		out = append(out, Balance{
			Asset:     a,
			Available: books.Balance(tx, available, a).String(),
			Locked:    books.Balance(tx, locked, a).String(),
		})
	}
	return out
}

// Prepaid is the merchant's prepaid balance of every asset, in the
// assets' order (nil when there is none).
func Prepaid(tx *kernel.Tx, books Ledger, assets []string) []Balance {
	return balances(tx, books, kernel.AccountMerchantPrepaid, kernel.AccountMerchantPrepaidLocked, assets)
}

// Members are the members with their balances of every asset, in the
// members' order (nil when there is none).
func Members(tx *kernel.Tx, books Ledger, list []api.Member, assets []string) []Member {
	var out []Member
	for _, m := range list {
		out = append(out, Member{
			ID: m.ID, ExternalMemberID: m.ExternalID, KYCLevel: m.KYCLevel, Status: m.Status,
			PlatformDirect: m.PlatformDirect, CreatedAt: m.CreatedAt.UTC(),
			Balances: balances(tx, books, kernel.MemberAvailable(m.ID), kernel.MemberLocked(m.ID), assets),
		})
	}
	return out
}

// AssetCodes are the codes of the catalogue's assets, in its order.
func AssetCodes(assets []*assetcat.Asset) []string {
	out := make([]string, len(assets))
	for i, a := range assets {
		out[i] = a.Code
	}
	return out
}
