package devtools

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// MemberDocument is the control API's document of member m (POST and GET
// /_sim/members): its fields, the merchant it belongs to (merchantID when
// the member names none) and its available and locked balances in every
// asset of assets, as decimal strings keyed by asset code.
func MemberDocument(tx *kernel.Tx, books Ledger, m *api.Member, assets []string, merchantID string) map[string]any {
	balances := map[string]any{}
	for _, a := range assets {
		balances[a] = map[string]string{
			"available": books.Balance(tx, kernel.MemberAvailable(m.ID), a).String(),
			"locked":    books.Balance(tx, kernel.MemberLocked(m.ID), a).String(),
		}
	}
	if m.MerchantID != "" {
		merchantID = m.MerchantID
	}
	return map[string]any{
		"id": m.ID, "external_member_id": m.ExternalID, "kyc_level": m.KYCLevel, "status": m.Status,
		"platform_direct": m.PlatformDirect, "merchant_id": merchantID,
		"created_at": m.CreatedAt.UTC().Format(time.RFC3339), "balances": balances,
	}
}
